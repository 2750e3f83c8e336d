//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestBusyLockExitCode: a run that finds OUT's lock held exits 75
// (EX_TEMPFAIL), not 1, naming the holder; it publishes nothing.
func TestBusyLockExitCode(t *testing.T) {
	src := smallRepo(t, nil)
	parent := t.TempDir()
	out := filepath.Join(parent, "o")
	lock, err := os.OpenFile(filepath.Join(parent, ".o.lock"), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	lock.WriteString("pid 4242 on cron-host\n")
	if err := unix.Flock(int(lock.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCmd(t, "run", "-q", "-o", out, src)
	if code != exitBusy || !strings.Contains(stderr, "pid 4242 on cron-host") {
		t.Errorf("exit %d, stderr %q; want %d naming the holder", code, stderr, exitBusy)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a refused run published")
	}
	unix.Flock(int(lock.Fd()), unix.LOCK_UN)
	if code, _, stderr := runCmd(t, "run", "-q", "-o", out, src); code != exitOK {
		t.Errorf("once the lock is free: exit %d: %s", code, stderr)
	}
}
