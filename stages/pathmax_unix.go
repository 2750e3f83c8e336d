//go:build unix

package stages

import (
	"errors"
	"syscall"

	"golang.org/x/sys/unix"
)

// pathMax is the longest path the kernel takes, its NUL included
// (Linux 4,096 bytes, macOS 1,024).
const pathMax = unix.PathMax

// errNameTooLong is what the kernel says of a path over its limits.
var errNameTooLong error = syscall.ENAMETOOLONG

// isNameTooLong reports a path or name over the kernel's limits.
func isNameTooLong(err error) bool { return errors.Is(err, syscall.ENAMETOOLONG) }
