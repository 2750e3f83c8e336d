package main

import (
	"math"
	"runtime/debug"
	"testing"
)

// TestServeGC: the server raises the GC percent under a soft limit,
// unless the user set GOGC or GOMEMLIMIT.
func TestServeGC(t *testing.T) {
	restore := func() func() {
		gc, limit := debug.SetGCPercent(100), debug.SetMemoryLimit(math.MaxInt64)
		return func() { debug.SetGCPercent(gc); debug.SetMemoryLimit(limit) }
	}
	for _, c := range []struct {
		name, gogc, memlimit string
		wantGC               int
		wantLimit            int64
	}{
		{"defaults", "", "", serveGCPercent, serveMemoryLimit},
		{"GOGC set", "50", "", 100, math.MaxInt64},
		{"GOMEMLIMIT set", "", "1GiB", 100, math.MaxInt64},
	} {
		t.Run(c.name, func(t *testing.T) {
			defer restore()()
			t.Setenv("GOGC", c.gogc)
			t.Setenv("GOMEMLIMIT", c.memlimit)
			serveGC()
			if gc := debug.SetGCPercent(100); gc != c.wantGC {
				t.Errorf("GC percent %d, want %d", gc, c.wantGC)
			}
			if limit := debug.SetMemoryLimit(-1); limit != c.wantLimit {
				t.Errorf("memory limit %d, want %d", limit, c.wantLimit)
			}
		})
	}
}
