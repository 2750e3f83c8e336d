package pipeline

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// ErrLocked means another run holds the lock on the same OUT.
var ErrLocked = errors.New("another run is publishing to this output")

// outLock is an flock(2) held on a file beside OUT. The kernel drops it when
// the process dies, so a run killed with SIGKILL never blocks the next one.
type outLock struct{ f *os.File }

// lockPath, tmpPrefix: the run's files live beside OUT (same filesystem, so
// the final rename is atomic) under names derived from OUT's, which the scan
// skips when OUT lies inside the input.
func lockPath(out string) string  { return siblingPrefix(out) + "lock" }
func tmpPrefix(out string) string { return siblingPrefix(out) + "tmp-" }
func siblingPrefix(out string) string {
	return filepath.Join(filepath.Dir(out), "."+filepath.Base(out)+".")
}

func acquireLock(out string) (*outLock, error) {
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(lockPath(out), os.O_RDWR|os.O_CREATE|unix.O_CLOEXEC, 0o644)
	if err != nil {
		return nil, err
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		holder, _ := os.ReadFile(lockPath(out))
		f.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			return nil, fmt.Errorf("%s: %w (held by %s)", out, ErrLocked, describeHolder(holder))
		}
		return nil, fmt.Errorf("lock %s: %w", lockPath(out), err)
	}
	// Record who holds it, for the message the next run prints.
	info := fmt.Sprintf("pid %d", os.Getpid())
	if host, err := os.Hostname(); err == nil {
		info += " on " + host
	}
	if err := f.Truncate(0); err == nil {
		f.WriteAt([]byte(info+"\n"), 0)
	}
	return &outLock{f: f}, nil
}

func describeHolder(b []byte) string {
	s := strings.TrimSpace(string(b))
	if s == "" {
		return "an unknown process"
	}
	return s
}

func (l *outLock) release() {
	l.f.Truncate(0)
	l.f.Close() // closing drops the flock; the file stays so no run races on its inode
}

// removeLeftovers deletes temporary snapshots that killed runs left beside
// OUT. Only the lock holder calls it, so none of them is in use.
// Only names MkdirTemp makes (the prefix and digits, or that and ".old"
// from publish's fallback) are this OUT's: ".out.tmp-x.lock" belongs to an
// OUT named "out.tmp-x", whose live lock must not be touched.
func removeLeftovers(out string) error {
	dir, prefix := filepath.Split(tmpPrefix(out))
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), prefix)
		if !ok || !isTempSuffix(rest) {
			continue
		}
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			return fmt.Errorf("remove leftover %s: %w", e.Name(), err)
		}
	}
	return nil
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

func isTempSuffix(s string) bool {
	s = strings.TrimSuffix(s, ".old")
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// publish swaps the finished snapshot at tmp into out. With an existing out
// it is an atomic exchange (renameat2 RENAME_EXCHANGE): a reader sees the old
// snapshot or the new one, never neither; the old one then lies at tmp for
// the caller to remove.
func publish(tmp, out string) (old string, err error) {
	if _, err := os.Lstat(out); errors.Is(err, os.ErrNotExist) {
		return "", os.Rename(tmp, out)
	}
	err = unix.Renameat2(unix.AT_FDCWD, tmp, unix.AT_FDCWD, out, unix.RENAME_EXCHANGE)
	if errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EINVAL) {
		// No exchange on this filesystem: fall back to two renames. A reader
		// in between sees no OUT, but OUT never holds a partial snapshot.
		old = tmp + ".old"
		if err := os.Rename(out, old); err != nil {
			return "", err
		}
		if err := os.Rename(tmp, out); err != nil {
			os.Rename(old, out)
			return "", err
		}
		return old, nil
	}
	if err != nil {
		return "", fmt.Errorf("publish %s: %w", out, err)
	}
	return tmp, nil
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
