//go:build unix

package pipeline

import "syscall"

// setNoFile sets RLIMIT_NOFILE, soft and hard, to n.
func setNoFile(n uint64) error {
	return syscall.Setrlimit(syscall.RLIMIT_NOFILE, &syscall.Rlimit{Cur: n, Max: n})
}

// haveRlimit: setNoFile works here.
const haveRlimit = true
