//go:build unix

package cachedir

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// PathIdentity names the file at path as it is now: device, inode, size,
// modification and change times. A file written, replaced or moved over
// has another, so what is kept under an executable's identity is never
// read by another build.
func PathIdentity(path string) (string, bool) {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return "", false
	}
	return identity(&st), true
}

// FileIdentity is PathIdentity of an open file.
func FileIdentity(f *os.File) (string, bool) {
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		return "", false
	}
	return identity(&st), true
}

func identity(st *unix.Stat_t) string {
	return fmt.Sprintf("%d/%d/%d/%d.%d/%d.%d", st.Dev, st.Ino, st.Size,
		st.Mtim.Sec, st.Mtim.Nsec, st.Ctim.Sec, st.Ctim.Nsec)
}
