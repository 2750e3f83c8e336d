//go:build unix

package snapshot

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

// LinkCount is how many names the file behind fi has: a staged copy has
// one, and the server and verify refuse a hard-linked one (a link from
// elsewhere would let a write there change what is served).
func LinkCount(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink) //nolint:unconvert // widths differ by platform
	}
	return 1
}
