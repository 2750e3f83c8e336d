//go:build !unix

package testkit

import "time"

// CPUTime is unknown here; benchmarks then report wall-clock figures only.
func CPUTime() time.Duration { return 0 }
