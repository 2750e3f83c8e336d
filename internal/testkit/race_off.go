//go:build !race

package testkit

// Race says whether the race detector is on (see race_on.go).
const Race = false
