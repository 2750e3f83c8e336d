//go:build windows

package pipeline

import (
	"fmt"
	"os"
	"syscall"
	"testing"
)

// fileTimes is p's modification and access times (100 ns units), not
// following a symlink.
func fileTimes(t testing.TB, p string) (mtime, atime string) {
	t.Helper()
	info, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	a := info.Sys().(*syscall.Win32FileAttributeData)
	return fmt.Sprint(a.LastWriteTime.Nanoseconds()), fmt.Sprint(a.LastAccessTime.Nanoseconds())
}
