//go:build unix

package main

import (
	"os"
	"runtime"
	"syscall"
)

// peakRSS is the process's peak resident set in bytes (0 if unknown).
func peakRSS(ps *os.ProcessState) int64 {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0
	}
	if runtime.GOOS == "darwin" {
		return int64(ru.Maxrss) // bytes there
	}
	return int64(ru.Maxrss) << 10 // KiB on Linux and the BSDs
}
