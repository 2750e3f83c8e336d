//go:build unix

package pipeline

import (
	"os"
	"os/exec"
	"syscall"
)

// killSelf ends the process as SIGKILL does: no deferred call, no cleanup.
func killSelf() { syscall.Kill(os.Getpid(), syscall.SIGKILL) }

// setNoFile sets RLIMIT_NOFILE, soft and hard, to n.
func setNoFile(n uint64) error {
	return syscall.Setrlimit(syscall.RLIMIT_NOFILE, &syscall.Rlimit{Cur: n, Max: n})
}

// haveRlimit: setNoFile works here.
const haveRlimit = true

// killedHard reports a child ended by SIGKILL.
func killedHard(exit *exec.ExitError) bool {
	ws, ok := exit.Sys().(syscall.WaitStatus)
	return ok && ws.Signal() == syscall.SIGKILL
}
