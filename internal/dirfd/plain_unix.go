//go:build unix

package dirfd

import (
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

// OpenPlain opens name for reading as os.Open does, but leaves the file out
// of the runtime's poller: os.Open offers every file to it, which on Linux
// costs a regular file four fcntl calls and an epoll_ctl that fails. For
// the files of a directory the caller made itself (the snapshot being
// built), where no FIFO can be, that is all waste.
func OpenPlain(name string) (*os.File, error) {
	return openPlain(name, unix.O_RDONLY, 0)
}

// CreatePlain creates name, which must not exist, for writing with perm
// (before the umask), as os.OpenFile with O_WRONLY|O_CREATE|O_EXCL does,
// and likewise outside the poller.
func CreatePlain(name string, perm fs.FileMode) (*os.File, error) {
	return openPlain(name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL, uint32(perm.Perm()))
}

func openPlain(name string, flags int, perm uint32) (*os.File, error) {
	for {
		fd, err := unix.Open(name, flags|unix.O_CLOEXEC, perm)
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return nil, &fs.PathError{Op: "open", Path: name, Err: err}
		}
		return os.NewFile(uintptr(fd), name), nil
	}
}
