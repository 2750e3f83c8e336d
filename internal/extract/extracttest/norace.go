//go:build !race

package extracttest

// RaceEnabled reports whether the race detector is on.
const RaceEnabled = false
