//go:build !unix

package tokens

import (
	"fmt"
	"os"
)

// fileIdentity is what changes when the file at path is replaced or
// rewritten, as far as os.Stat tells: its size and modification time.
func fileIdentity(path string) (string, bool) {
	info, err := os.Stat(path)
	if err != nil {
		return "", false
	}
	return fmt.Sprintf("%d/%d", info.Size(), info.ModTime().UnixNano()), true
}

// openTables opens a tables file for reading.
func openTables(path string) (*os.File, error) { return os.Open(path) }
