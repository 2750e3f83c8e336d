//go:build windows

package stages

import (
	"errors"
	"syscall"

	"golang.org/x/sys/windows"
)

// pathMax bounds a path: 32,767 UTF-16 units once the standard library
// gives it the \\?\ prefix (it does for long absolute paths); a UTF-8 byte
// count is never below the UTF-16 one, so the bound errs on the side of
// trying the write.
const pathMax = 32767

// errNameTooLong is what Windows says of a path over its limits.
var errNameTooLong error = windows.ERROR_FILENAME_EXCED_RANGE

// isNameTooLong reports a path or name over the limits (a component over
// 255 units, a path over 32,767).
func isNameTooLong(err error) bool {
	return errors.Is(err, windows.ERROR_FILENAME_EXCED_RANGE) || errors.Is(err, syscall.ENAMETOOLONG)
}
