package cputime

import (
	"runtime"
	"testing"
	"time"
)

// TestProcessGrows: spinning adds CPU time (on unix; elsewhere it stays
// 0). The spin runs until the process's CPU time has grown by 10 ms, so a
// busy machine that gives this process little of a core only makes it
// take longer; it fails if 10 s of spinning never add that much.
func TestProcessGrows(t *testing.T) {
	switch runtime.GOOS {
	case "windows", "plan9", "js", "wasip1": // not unix: cputime_other.go
		if got := Process(); got != 0 {
			t.Errorf("Process() = %v on %s, want 0", got, runtime.GOOS)
		}
		return
	}
	before := Process()
	x := 0
	deadline := time.Now().Add(10 * time.Second)
	for Process()-before < 10*time.Millisecond {
		for range 100_000 {
			x++
		}
		if time.Now().After(deadline) {
			t.Fatalf("CPU time grew by %v over 10 s of spinning (%d loops)", Process()-before, x)
		}
	}
}
