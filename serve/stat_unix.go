//go:build unix

package serve

import (
	"io/fs"
	"syscall"
)

// openNoBlock keeps an open of a FIFO from waiting for a writer.
const openNoBlock = syscall.O_NONBLOCK | syscall.O_NOCTTY

func devIno(fi fs.FileInfo) (dev, ino uint64) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Dev), uint64(st.Ino) //nolint:unconvert // widths differ by platform
	}
	return 0, 0
}

func linkCount(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink) //nolint:unconvert // widths differ by platform
	}
	return 1
}
