//go:build unix

package tokens

import (
	"fmt"

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
