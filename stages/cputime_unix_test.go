//go:build unix

package stages

import (
	"syscall"
	"time"
)

// cpuTime is the process's user and system CPU time so far. The machine is
// shared, so besides files/s (wall) the benchmarks report files per CPU
// second, which other processes do not dilute.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
