//go:build unix

package pipeline

import (
	"fmt"
	"testing"

	"golang.org/x/sys/unix"
)

// fileTimes is p's modification and access times to the nanosecond, not
// following a symlink.
func fileTimes(t testing.TB, p string) (mtime, atime string) {
	t.Helper()
	var st unix.Stat_t
	if err := unix.Lstat(p, &st); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%d.%d", st.Mtim.Sec, st.Mtim.Nsec), fmt.Sprintf("%d.%d", st.Atim.Sec, st.Atim.Nsec)
}
