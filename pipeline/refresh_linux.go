package pipeline

import (
	"io/fs"
	"os"

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
