//go:build !linux

package pipeline

import "time"

// threadCPU is 0 where a thread's CPU time is not read: the work it
// would measure is counted with what runs beside it.
func threadCPU() time.Duration { return 0 }
