//go:build race

package testkit

// Race says whether the race detector is on: it slows decoding, token
// counting and the secret rules about tenfold, so the heaviest tests shrink
// their inputs under it, and make test runs them whole without it.
const Race = true
