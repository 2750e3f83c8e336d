//go:build race

package pipeline

// raceEnabled: the race detector slows decoding and token counting about
// tenfold, so the heaviest tests shrink their inputs under it.
const raceEnabled = true
