package testkit

import (
	"time"

	"github.com/repoprep/repoprep/internal/cputime"
)

// CPUTime is the CPU time this process has used (cputime.Process).
func CPUTime() time.Duration { return cputime.Process() }
