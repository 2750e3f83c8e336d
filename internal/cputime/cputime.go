// Package cputime reads the CPU time this process has used: report.json
// gives each stage's CPU beside its wall time, and benchmarks report
// throughput per CPU second (on a shared machine the wall clock also
// counts time spent waiting for a core).
package cputime
