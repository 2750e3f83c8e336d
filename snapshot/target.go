package snapshot

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode"
)

// CheckTarget refuses an OUT a run must not publish to: one that would
// swallow the source (publication swaps OUT out of the way, which must
// never move the source), and anything but a previous snapshot or an
// empty directory (publication deletes what OUT held, and a mistyped -o
// must not delete someone's files).
func CheckTarget(src, out string) error {
	info, err := os.Stat(src)
	if err != nil {
		return err
	}
	if !info.IsDir() {
		return fmt.Errorf("%s is not a directory", src)
	}
	if _, ok := inside(out, src); ok {
		return fmt.Errorf("output %s contains the input %s", out, src)
	}
	info, err = os.Lstat(out)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if info.Mode()&os.ModeSymlink != 0 {
		// Publication swaps the new snapshot's directory with OUT's name:
		// the link would be swapped, not the directory it points to, so a
		// link is never taken for its directory.
		if target, err := os.Readlink(out); err == nil {
			return fmt.Errorf("output %s is a symlink (to %s); refusing it: give -o the directory itself", out, target)
		}
		return fmt.Errorf("output %s is a symlink; refusing it: give -o the directory itself", out)
	}
	if !info.IsDir() {
		return fmt.Errorf("output %s exists and is not a directory", out)
	}
	entries, err := os.ReadDir(out)
	if err != nil {
		return err
	}
	if len(entries) == 0 {
		return nil
	}
	if _, err := os.Stat(filepath.Join(out, FilesJSON)); err != nil {
		return fmt.Errorf("output %s exists and is not a repoprep snapshot (no %s); refusing to replace it", out, FilesJSON)
	}
	return nil
}

// DefaultDir is where a run publishes when no OUT is given: one directory
// per source tree under the user's cache directory,
// $XDG_CACHE_HOME/repoprep/<name>-<hash> (~/.cache/repoprep/... on Linux),
// named after the tree and a hash of its real absolute path. Not
// ./staging inside the tree being scanned: that dirties `git status`, and
// puts the lock and the temporary snapshots where the repository's own
// files live, so a hostile repository could plant names there. Tools of
// the ecosystem keep such state in the user's cache (go build's GOCACHE,
// pre-commit, golangci-lint).
func DefaultDir(src string) (string, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no default output directory (%v); give one with -o", err)
	}
	abs, err := filepath.Abs(src)
	if err != nil {
		return "", err
	}
	abs = RealPath(abs)
	sum := sha256.Sum256([]byte(abs))
	name := strings.Map(func(r rune) rune {
		if r < 0x80 && (unicode.IsLetter(r) || unicode.IsDigit(r) || r == '.' || r == '_' || r == '-') {
			return r
		}
		return '_'
	}, filepath.Base(abs))
	if name == "" || name == "." || name == ".." || name == "_" {
		name = "root"
	}
	return filepath.Join(cache, "repoprep", fmt.Sprintf("%s-%x", name, sum[:6])), nil
}

// RealPath resolves the symlinks of the longest existing prefix of an
// absolute path and keeps the rest as written (OUT may not exist yet).
func RealPath(p string) string {
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
	rel, err := filepath.Rel(RealPath(root), RealPath(target))
	if err != nil || !filepath.IsLocal(rel) {
		return "", false
	}
	return rel, true
}
