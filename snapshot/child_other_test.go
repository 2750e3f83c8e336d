//go:build !unix

package snapshot

import (
	"os"
	"os/exec"
)

// killSelf ends this process at once (TerminateProcess on Windows).
func killSelf() {
	if p, err := os.FindProcess(os.Getpid()); err == nil {
		p.Kill()
	}
}

// killedHard reports a child ended by killSelf: TerminateProcess with
// exit code 1, as os.Process.Kill does on Windows.
func killedHard(exit *exec.ExitError) bool { return exit.ExitCode() == 1 }
