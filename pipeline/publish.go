package pipeline

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/repoprep/repoprep/internal/dirfd"
)

// Publication steps that tests replace to act as a filesystem without
// RENAME_EXCHANGE (NFS, some overlays) or as a crash between two renames.
// Production never changes them. renameExchange is the platform's atomic
// swap of two names (exchange_linux.go, exchange_darwin.go); where there
// is none it fails as exchangeUnsupported recognises (exchange_other.go).
var (
	renameExchange = exchange
	afterMoveAside = func() {} // between the two renames of the fallback
)

// publish swaps the finished snapshot at tmp into out and returns where
// the previous snapshot now lies ("" if there was none), for the caller to
// remove. With an existing out it is an atomic exchange (renameat2
// RENAME_EXCHANGE on Linux, renamex_np RENAME_SWAP on macOS): a reader
// sees the old snapshot or the new one, never neither. Where the
// filesystem (or the platform: Windows) has no exchange it moves out aside
// and tmp in: a reader in between sees no OUT, and the journal says where the
// previous snapshot went, so a run killed between the two renames loses
// nothing: the next run moves it back (outLock.recover).
func publish(tmp, out string, l *outLock) (old string, err error) {
	st, err := dirfd.Lstat(out)
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.Rename(tmp, out); err != nil {
			return "", err
		}
		return "", l.forget(filepath.Base(tmp))
	} else if err != nil {
		return "", fmt.Errorf("publish %s: %w", out, err)
	}
	aside := tmp + ".old"
	// Where the previous snapshot will be, recorded before it moves.
	id := st.ID
	if err := l.record(journalEntry{"old", filepath.Base(tmp), id}, journalEntry{"old", filepath.Base(aside), id}); err != nil {
		return "", err
	}
	err = renameExchange(tmp, out)
	if exchangeUnsupported(err) {
		if err := os.Rename(out, aside); err != nil {
			return "", err
		}
		afterMoveAside()
		if err := os.Rename(tmp, out); err != nil {
			if rerr := os.Rename(aside, out); rerr != nil {
				// The journal still says where it is; the next run restores it.
				return "", fmt.Errorf("publish %s: %w; the previous snapshot is at %s (%v)", out, err, aside, rerr)
			}
			return "", fmt.Errorf("publish %s: %w", out, err)
		}
		return aside, nil
	}
	if err != nil {
		return "", fmt.Errorf("publish %s: %w", out, err)
	}
	return tmp, nil
}

// realPath resolves the symlinks of the longest existing prefix of an
// absolute path and keeps the rest as written (OUT may not exist yet).
func realPath(p string) string {
	var rest []string
	for {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(append([]string{r}, rest...)...)
		}
		parent := filepath.Dir(p)
		if parent == p {
			return filepath.Join(append([]string{p}, rest...)...)
		}
		rest = append([]string{filepath.Base(p)}, rest...)
		p = parent
	}
}

// inside reports whether target is root or lies below it, and the relative
// path. Both are compared with symlinks resolved: SRC given as a link to the
// directory that holds OUT is still the same tree.
func inside(root, target string) (string, bool) {
	rel, err := filepath.Rel(realPath(root), realPath(target))
	if err != nil || !filepath.IsLocal(rel) {
		return "", false
	}
	return rel, true
}
