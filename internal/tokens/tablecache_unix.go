//go:build unix

package tokens

import (
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

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
