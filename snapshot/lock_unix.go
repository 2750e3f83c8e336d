//go:build unix

package snapshot

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"golang.org/x/sys/unix"

	"github.com/repoprep/repoprep/internal/dirfd"
)

// tryLock makes one attempt; retry means the lock file changed under it.
func tryLock(path string) (l *Lock, retry bool, err error) {
	fd, err := unix.Open(path, unix.O_RDWR|unix.O_CREAT|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0o644)
	switch {
	case err == unix.ELOOP:
		return nil, false, fmt.Errorf("lock %s is a symlink; refusing to follow it (remove it if it is not yours)", path)
	case err != nil:
		return nil, false, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	f := os.NewFile(uintptr(fd), path)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		f.Close()
		return nil, false, &fs.PathError{Op: "fstat", Path: path, Err: err}
	}
	if why := lockProblem(&st); why != "" {
		f.Close()
		return nil, false, fmt.Errorf("lock %s %s; refusing to use it", path, why)
	}
	if err := unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB); err != nil {
		holder, _ := readHolder(f)
		f.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			return nil, false, fmt.Errorf("%w (held by %s)", ErrLocked, holder)
		}
		return nil, false, fmt.Errorf("lock %s: %w", path, err)
	}
	// The file we locked must still be the one at the name: if a peer
	// unlinked it (or put another there) between our open and our flock,
	// the next run would lock the new file and not see us.
	var now unix.Stat_t
	if err := unix.Lstat(path, &now); err != nil || dirfd.IDOf(&now) != dirfd.IDOf(&st) {
		f.Close()
		return nil, true, nil
	}
	l = &Lock{f: f, path: path, id: dirfd.IDOf(&st)}
	l.holder = fmt.Sprintf("pid %d", os.Getpid())
	if host, err := os.Hostname(); err == nil {
		l.holder += " on " + host
	}
	return l, false, nil
}

// lockProblem says why a lock file must not be used, or "".
func lockProblem(st *unix.Stat_t) string {
	switch {
	case st.Mode&unix.S_IFMT != unix.S_IFREG:
		return "is not a regular file"
	case st.Nlink != 1:
		return fmt.Sprintf("has %d hard links (writing it would write another file)", st.Nlink)
	case int(st.Uid) != os.Geteuid():
		return fmt.Sprintf("is owned by uid %d, not by this user", st.Uid)
	}
	return ""
}

// ours reports whether p is a directory (not a symlink) owned by this user
// with identity id.
func (l *Lock) ours(p string, id dirfd.ID) bool {
	var st unix.Stat_t
	if err := unix.Lstat(p, &st); err != nil {
		return false
	}
	return st.Mode&unix.S_IFMT == unix.S_IFDIR && int(st.Uid) == os.Geteuid() && dirfd.IDOf(&st) == id
}
