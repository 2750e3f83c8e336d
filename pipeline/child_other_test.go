//go:build !unix

package pipeline

import (
	"errors"
	"os"
	"os/exec"
)

// killSelf ends the process as SIGKILL does: TerminateProcess, no
// deferred call, no cleanup.
func killSelf() {
	if p, err := os.FindProcess(os.Getpid()); err == nil {
		p.Kill()
	}
}

// setNoFile: there is no descriptor limit to set here; the tests that
// starve a run of descriptors skip (see their callers).
func setNoFile(uint64) error { return errors.ErrUnsupported }

// haveRlimit: setNoFile does not work here.
const haveRlimit = false

// killedHard reports a child ended by killSelf: TerminateProcess with
// exit code 1, as os.Process.Kill does on Windows.
func killedHard(exit *exec.ExitError) bool { return exit.ExitCode() == 1 }
