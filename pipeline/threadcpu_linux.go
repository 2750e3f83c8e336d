package pipeline

import (
	"time"

	"golang.org/x/sys/unix"
)

// threadCPU is the user and system CPU time of the calling thread: a
// goroutine locked to its thread (runtime.LockOSThread) measures its own
// work with it while other goroutines run beside it. 0 if the system
// will not say.
func threadCPU() time.Duration {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_THREAD, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
