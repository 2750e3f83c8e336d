//go:build unix

package pipeline

import (
	"io/fs"
	"syscall"
)

// linkCount is how many names the file behind info has (1 where the
// platform does not say).
func linkCount(info fs.FileInfo) uint64 {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink) //nolint:unconvert // widths differ by platform
	}
	return 1
}
