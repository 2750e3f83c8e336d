//go:build linux && !repoprep_portable

package snapshot

import (
	"io/fs"
	"os"
	"strings"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// fastOpen opens below tree/ in one openat2 call: RESOLVE_BENEATH and
// RESOLVE_NO_SYMLINKS refuse a symlink or ".." anywhere on the way,
// O_NONBLOCK a FIFO, O_NOATIME keeps the access time (the snapshot is
// ours). Where the kernel has no openat2 (before 5.6, or a seccomp filter
// refuses it) it says so once and the caller walks with dirfd.
type fastOpen struct {
	dir int
	off atomic.Bool
}

func newFastOpen(dir *os.File) *fastOpen { return &fastOpen{dir: int(dir.Fd())} }

// openFd opens rel; ok is false when openat2 is not available.
func (f *fastOpen) openFd(rel string) (fd int, err error, ok bool) {
	if f == nil || strings.HasPrefix(rel, "/") || f.off.Load() {
		return -1, nil, false
	}
	how := &unix.OpenHow{
		Flags:   unix.O_RDONLY | unix.O_NOFOLLOW | unix.O_NONBLOCK | unix.O_CLOEXEC | unix.O_NOATIME,
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
	}
	for {
		fd, err := unix.Openat2(f.dir, rel, how)
		switch {
		case err == unix.EINTR:
			continue
		case err == unix.EPERM && how.Flags&unix.O_NOATIME != 0:
			how.Flags &^= unix.O_NOATIME // not the owner after all
			continue
		case err == unix.ENOSYS || err == unix.EPERM:
			f.off.Store(true)
			return -1, nil, false
		}
		return fd, err, true
	}
}

// open is openFd as an *os.File of a regular file (anything else is
// refused, as gone), blocking again: the runtime's poller would only spin
// on a regular file.
func (f *fastOpen) open(rel string) (*os.File, bool, error) {
	fd, err, ok := f.openFd(rel)
	if !ok {
		return nil, false, nil
	}
	if err != nil {
		return nil, true, &fs.PathError{Op: "openat2", Path: rel, Err: err}
	}
	var st unix.Stat_t
	err = unix.Fstat(fd, &st)
	if err == nil && st.Mode&unix.S_IFMT != unix.S_IFREG {
		err = unix.EISDIR // a directory, FIFO or device where a file was: the caller takes it for gone
	}
	if err == nil {
		var fl int
		if fl, err = unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0); err == nil {
			_, err = unix.FcntlInt(uintptr(fd), unix.F_SETFL, fl&^unix.O_NONBLOCK)
		}
	}
	if err != nil {
		unix.Close(fd)
		return nil, true, &fs.PathError{Op: "open", Path: rel, Err: err}
	}
	return os.NewFile(uintptr(fd), rel), true, nil
}

// OpenFd opens the staged copy at rel on a raw descriptor (O_RDONLY,
// O_NONBLOCK, O_NOATIME where granted), for a caller that copies with raw
// system calls and checks the file's type itself: one openat2, no
// os.File. ok is false where the kernel has no openat2: use Open. err is
// the raw errno.
func (c *Copies) OpenFd(rel string) (fd int, err error, ok bool) { return c.fast.openFd(rel) }
