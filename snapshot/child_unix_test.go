//go:build unix

package snapshot

import (
	"os"
	"os/exec"
	"syscall"
)

// killSelf ends this process at once, as SIGKILL would from outside.
func killSelf() { syscall.Kill(os.Getpid(), syscall.SIGKILL) }

// killedHard reports a child ended by SIGKILL.
func killedHard(exit *exec.ExitError) bool {
	ws, ok := exit.Sys().(syscall.WaitStatus)
	return ok && ws.Signal() == syscall.SIGKILL
}
