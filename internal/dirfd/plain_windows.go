//go:build windows

package dirfd

import (
	"io/fs"
	"os"
)

// OpenPlain is os.Open; Windows has no poller cost to avoid (see the Unix
// version).
func OpenPlain(name string) (*os.File, error) { return os.Open(name) }

// CreatePlain is os.OpenFile with O_WRONLY|O_CREATE|O_EXCL.
func CreatePlain(name string, perm fs.FileMode) (*os.File, error) {
	return os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
}
