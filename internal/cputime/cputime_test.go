package cputime

import (
	"runtime"
	"testing"
	"time"
)

// TestProcessGrows: spinning for a while adds CPU time (on unix; elsewhere
// it stays 0).
func TestProcessGrows(t *testing.T) {
	before := Process()
	x := 0
	for end := time.Now().Add(50 * time.Millisecond); time.Now().Before(end); {
		x++
	}
	after := Process()
	if runtime.GOOS != "windows" && after-before < 10*time.Millisecond {
		t.Errorf("CPU time grew by %v over 50 ms of spinning (%d loops)", after-before, x)
	}
}
