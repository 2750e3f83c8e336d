//go:build unix

package serve

import (
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// pollable returns in as a file the runtime's poller reads, when it is a
// pipe or a socket (as MCP clients give a server's stdin): a blocking
// read parks an OS thread in the kernel, and each request that wakes it
// made the runtime hand its processor to another thread and back, which
// cost more CPU than the read itself. A duplicate of the descriptor is set
// non-blocking (the flag belongs to the open pipe, which only this
// process reads); restore closes the duplicate and puts the flag back.
// A terminal or a regular file is left as it is.
func pollable(in io.ReadCloser) (_ io.ReadCloser, restore func()) {
	nop := func() {}
	f, ok := in.(*os.File)
	if !ok {
		return in, nop
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return in, nop
	}
	dup, wasNonblock := -1, false
	rc.Control(func(fd uintptr) {
		var st unix.Stat_t
		if unix.Fstat(int(fd), &st) != nil {
			return
		}
		if kind := st.Mode & unix.S_IFMT; kind != unix.S_IFIFO && kind != unix.S_IFSOCK {
			return
		}
		flags, err := unix.FcntlInt(fd, unix.F_GETFL, 0)
		if err != nil {
			return
		}
		wasNonblock = flags&unix.O_NONBLOCK != 0
		if d, err := unix.Dup(int(fd)); err == nil {
			dup = d
		}
	})
	if dup < 0 {
		return in, nop
	}
	unix.CloseOnExec(dup)
	if err := unix.SetNonblock(dup, true); err != nil {
		unix.Close(dup)
		return in, nop
	}
	nf := os.NewFile(uintptr(dup), f.Name())
	return nf, func() {
		nf.Close() // the transport may have closed it already
		if !wasNonblock {
			// Through the original descriptor (the duplicate's number may
			// be another file's by now): the flag is the pipe's.
			rc.Control(func(fd uintptr) { unix.SetNonblock(int(fd), false) })
		}
	}
}
