//go:build race

package tokens

// raceEnabled lets the slowest exhaustive checks sample under -race.
const raceEnabled = true
