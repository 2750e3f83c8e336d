//go:build !unix

package stages

import "time"

// cpuTime is unknown here (no getrusage): the benchmarks report files/s
// only.
func cpuTime() time.Duration { return 0 }
