//go:build unix

package cputime

import (
	"syscall"
	"time"
)

// Process is the user and system CPU time this process has used; 0 where
// the system will not say.
func Process() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
