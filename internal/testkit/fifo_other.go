//go:build !unix

package testkit

import (
	"runtime"
	"testing"
)

// Mkfifo makes a FIFO at p (mode 0644), failing t if it cannot; where
// the platform has no FIFOs in the filesystem (Windows) it skips t.
func Mkfifo(t testing.TB, p string) {
	t.Helper()
	t.Skipf("no FIFOs in the filesystem on %s", runtime.GOOS)
}
