//go:build !unix

package cachedir

import (
	"fmt"
	"os"
)

// PathIdentity names the file at path as it is now, as far as os.Stat
// tells: its size and modification time.
func PathIdentity(path string) (string, bool) {
	info, err := os.Stat(path)
	if err != nil {
		return "", false
	}
	return fmt.Sprintf("%d/%d", info.Size(), info.ModTime().UnixNano()), true
}

// FileIdentity is PathIdentity of an open file.
func FileIdentity(f *os.File) (string, bool) {
	info, err := f.Stat()
	if err != nil {
		return "", false
	}
	return fmt.Sprintf("%d/%d", info.Size(), info.ModTime().UnixNano()), true
}
