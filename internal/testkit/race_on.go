//go:build race

package testkit

// Race says whether the race detector is on. Only what cannot run under it
// at all skips (PDFium, whose WebAssembly takes minutes to compile there);
// tests shrink their inputs under -short instead, which make test's race
// pass sets, and its whole pass runs them at full size.
const Race = true
