package snapshot

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/repoprep/repoprep/internal/dirfd"
)

// Acquire takes the lock on out that a run holds until it publishes (or
// gives up), creating out's parent directories if missing, and deals with
// what a killed run left beside out (Lock.recover). A second run gets
// ErrLocked.
func Acquire(out string, log *slog.Logger) (*Lock, error) {
	l, err := acquireLock(out, log)
	if err != nil {
		return nil, err
	}
	if err := l.recover(); err != nil {
		l.release()
		return nil, err
	}
	return l, nil
}

// Release drops the lock (see release).
func (l *Lock) Release() { l.release() }

// Skip is what a scan of a tree holding out must pass over, by identity:
// out, the lock file, the temporary snapshots beside it (this run's and
// what killed runs left that could not be removed).
func (l *Lock) Skip() map[dirfd.ID]bool {
	skip := map[dirfd.ID]bool{l.id: true}
	for _, e := range l.journal {
		skip[e.id] = true
	}
	if st, err := dirfd.Lstat(l.out); err == nil {
		skip[st.ID] = true
	}
	return skip
}

// Pending is a snapshot being built in a temporary directory beside OUT,
// recorded in the lock's journal so a killed run's is removed by the
// next. Fill it, then Publish it; Discard removes it if it was not
// published.
type Pending struct {
	dir       string
	lock      *Lock
	published bool
}

// Begin makes a pending snapshot beside OUT.
func (l *Lock) Begin() (*Pending, error) {
	tmp, err := os.MkdirTemp(filepath.Dir(l.out), filepath.Base(tmpPrefix(l.out))+"*")
	if err != nil {
		return nil, err
	}
	p := &Pending{dir: tmp, lock: l}
	st, err := dirfd.Lstat(tmp)
	if err == nil {
		err = l.record(journalEntry{"tmp", filepath.Base(tmp), st.ID})
	}
	if err != nil {
		p.Discard()
		return nil, err
	}
	return p, nil
}

// Dir is the pending snapshot's directory: made 0700, so only this user
// can write into it while it is built.
func (p *Pending) Dir() string { return p.dir }

// Path is where the pending snapshot's file name goes.
func (p *Pending) Path(name string) string { return filepath.Join(p.dir, name) }

// WriteFile creates the pending snapshot's file name (never over an
// existing one) and fills it through a buffered writer, reporting the
// first error of writing, flushing or closing (a full disk shows late).
func (p *Pending) WriteFile(name string, fill func(*bufio.Writer) error) error {
	return WriteFile(p.Path(name), fill)
}

// WriteJSON writes v as the pending snapshot's file name (EncodeJSON).
func (p *Pending) WriteJSON(name string, v any) error {
	return p.WriteFile(name, func(w *bufio.Writer) error { return EncodeJSON(w, v) })
}

// Publish makes the pending snapshot OUT, atomically where the platform
// can (swap), and removes the previous one. Nothing is published if the
// lock was lost meanwhile (another run may be publishing).
func (p *Pending) Publish() error {
	l := p.lock
	// MkdirTemp makes 0700; the snapshot is for readers (a server, agents).
	if err := os.Chmod(p.dir, 0o755); err != nil {
		return err
	}
	if err := l.check(); err != nil {
		return err
	}
	old, err := swap(p.dir, l.out, l)
	if err != nil {
		return err
	}
	p.published = true
	if old != "" {
		if err := removeOwnTree(old); err != nil {
			// The journal keeps it; the next run tries again and skips it.
			l.log.Warn("remove previous snapshot", "path", old, "err", err)
		} else {
			l.forget(filepath.Base(p.dir))
			l.forget(filepath.Base(p.dir) + ".old")
		}
	}
	return nil
}

// Discard removes the pending snapshot unless it was published.
func (p *Pending) Discard() {
	if p.published {
		return
	}
	if err := removeOwnTree(p.dir); err == nil {
		p.lock.forget(filepath.Base(p.dir))
	}
}

// WriteFile creates name (never over an existing file) and fills it
// through a buffered writer, reporting the first error of writing,
// flushing or closing.
func WriteFile(name string, fill func(*bufio.Writer) error) error {
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 64<<10)
	err = fill(w)
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	return nil
}

// Publication steps that tests replace to act as a filesystem without
// RENAME_EXCHANGE (NFS, some overlays) or as a crash between two renames.
// Production never changes them. renameExchange is the platform's atomic
// swap of two names (exchange_linux.go, exchange_darwin.go); where there
// is none it fails as exchangeUnsupported recognises (exchange_other.go).
var (
	renameExchange = exchange
	afterMoveAside = func() {} // between the two renames of the fallback
)

// swap puts the finished snapshot at tmp in out's place and returns where
// the previous snapshot now lies ("" if there was none), for the caller to
// remove. With an existing out it is an atomic exchange (renameat2
// RENAME_EXCHANGE on Linux, renamex_np RENAME_SWAP on macOS): a reader
// sees the old snapshot or the new one, never neither. Where the
// filesystem (or the platform: Windows) has no exchange it moves out aside
// and tmp in: a reader in between sees no OUT, and the journal says where the
// previous snapshot went, so a run killed between the two renames loses
// nothing: the next run moves it back (outLock.recover).
func swap(tmp, out string, l *Lock) (old string, err error) {
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

// removeOwnTree removes a directory this program made. A snapshot made
// read-only (chmod -R a-w, as one may do to a published snapshot) cannot
// be emptied by its owner until its directories are writable again, so a
// removal refused for permission makes them writable (each before it is
// listed, so even mode-000 levels open) and tries once more.
func removeOwnTree(p string) error {
	removeBranches(p)
	err := os.RemoveAll(p)
	if err == nil || !errors.Is(err, fs.ErrPermission) {
		return err
	}
	filepath.WalkDir(p, func(q string, d fs.DirEntry, err error) error {
		if d != nil && d.IsDir() {
			os.Chmod(q, 0o700) // WalkDir does not follow symlinks: d is a directory
		}
		return nil
	})
	return os.RemoveAll(p)
}

// removeBranches removes the directories three levels below p (in a
// snapshot, tree/<dir>/<dir>) on GOMAXPROCS goroutines, through an
// os.Root at p so no symlink planted meanwhile leads out of it: removing a
// 10,000-file snapshot is otherwise one core's unlinks. It is a head
// start: what it leaves, and its errors, are removeOwnTree's.
func removeBranches(p string) {
	root, err := os.OpenRoot(p)
	if err != nil {
		return
	}
	defer root.Close()
	level := []string{"."}
	for range 3 {
		var below []string
		for _, dir := range level {
			f, err := root.Open(dir)
			if err != nil {
				continue
			}
			entries, _ := f.ReadDir(-1)
			f.Close()
			for _, e := range entries {
				if e.IsDir() {
					below = append(below, filepath.Join(dir, e.Name()))
				}
			}
		}
		level = below
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(level)) {
		wg.Go(func() {
			for i := next.Add(1) - 1; i < int64(len(level)); i = next.Add(1) - 1 {
				root.RemoveAll(level[i])
			}
		})
	}
	wg.Wait()
}
