//go:build unix

package tokens

import (
	"fmt"
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

// fileIdentity is what changes when the file at path is replaced or
// rewritten: its device, inode, size, and modification and change times.
func fileIdentity(path string) (string, bool) {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return "", false
	}
	return fmt.Sprintf("%d/%d/%d/%d.%d/%d.%d", st.Dev, st.Ino, st.Size,
		st.Mtim.Sec, st.Mtim.Nsec, st.Ctim.Sec, st.Ctim.Nsec), true
}

// openTables opens a tables file for reading without following a symlink
// in its last component or waiting on a FIFO: the caller refuses anything
// but a regular file.
func openTables(path string) (*os.File, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(fd), path), nil
}
