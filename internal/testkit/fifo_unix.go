//go:build unix

package testkit

import (
	"syscall"
	"testing"
)

// Mkfifo makes a FIFO at p (mode 0644), failing t if it cannot; where
// the platform has no FIFOs in the filesystem (Windows) it skips t.
func Mkfifo(t testing.TB, p string) {
	t.Helper()
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Fatal(err)
	}
}
