//go:build !unix

package tokens

import (
	"os"
)

// openTables opens a tables file for reading.
func openTables(path string) (*os.File, error) { return os.Open(path) }
