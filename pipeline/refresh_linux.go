//go:build linux && !repoprep_portable

package pipeline

import (
	"errors"
	"io/fs"
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// cloneFile makes dst share src's blocks (FICLONE: btrfs, XFS with
// reflink, bcachefs, overlayfs over them): no bytes are copied and a
// later write to either file is copy-on-write. It errs where the
// filesystem cannot (ext4, tmpfs: EOPNOTSUPP; across filesystems: EXDEV),
// and the caller copies.
func cloneFile(dst, src *os.File) error {
	return unix.IoctlFileClone(int(dst.Fd()), int(src.Fd()))
}

// cloneUnsupported reports a clone error that every other file of the
// same trees would meet too: the filesystem has no reflinks, or the two
// trees are on different filesystems.
func cloneUnsupported(err error) bool {
	return errors.Is(err, errors.ErrUnsupported) || errors.Is(err, unix.EXDEV) || errors.Is(err, unix.ENOTTY)
}

// openOwn opens a file of the previous snapshot for reading: never
// through a symlink, never blocking on a FIFO, and without moving its
// access time (the snapshot is ours, so the kernel grants O_NOATIME): a
// refresh that fails leaves the previous snapshot exactly as it was.
func openOwn(name string) (*os.File, error) {
	flags := unix.O_RDONLY | unix.O_NOFOLLOW | unix.O_NONBLOCK | unix.O_CLOEXEC
	fd, err := unix.Open(name, flags|unix.O_NOATIME, 0)
	if err == unix.EPERM {
		fd, err = unix.Open(name, flags, 0)
	}
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return os.NewFile(uintptr(fd), name), nil
}

// openBeneath opens the regular file at rel below the directory dir in one
// call (anything but a regular file is refused): openat2 with RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS refuses a symlink
// or ".." anywhere on the way, O_NONBLOCK a FIFO, O_NOATIME keeps the
// access time (the previous snapshot is ours). ok is false where the
// kernel has no openat2 (before 5.6, or a seccomp filter refuses it): the
// caller then walks with dirfd, one component at a time.
func openBeneath(dir *os.File, rel string) (f *os.File, ok bool, err error) {
	if dir == nil || strings.HasPrefix(rel, "/") {
		return nil, false, nil
	}
	how := &unix.OpenHow{
		Flags:   unix.O_RDONLY | unix.O_NOFOLLOW | unix.O_NONBLOCK | unix.O_CLOEXEC | unix.O_NOATIME,
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
	}
	for {
		fd, err := unix.Openat2(int(dir.Fd()), rel, how)
		switch err {
		case nil:
			var st unix.Stat_t
			err := unix.Fstat(fd, &st)
			if err == nil && st.Mode&unix.S_IFMT != unix.S_IFREG {
				err = unix.EISDIR // a directory, FIFO or device where a file was: the caller takes it for gone
			}
			if err == nil {
				// Blocking again, as a regular file: the runtime's poller
				// would only spin on it.
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
		case unix.EINTR:
			continue
		case unix.ENOSYS, unix.EPERM:
			if err == unix.EPERM && how.Flags&unix.O_NOATIME != 0 {
				how.Flags &^= unix.O_NOATIME // not the owner after all
				continue
			}
			return nil, false, nil
		}
		return nil, true, &fs.PathError{Op: "openat2", Path: rel, Err: err}
	}
}
