package extract

import (
	"sync"
	"testing"
)

// testPDFMemory is PDFium's memory ceiling in these tests: small, so a
// stream bomb reaches it fast.
const testPDFMemory = 128 << 20

var startPDFium = sync.OnceValue(func() error {
	return preparePDF(Limits{MaxPDFMemory: testPDFMemory})
})

// needPDFium starts PDFium with the test ceiling (the pool takes the limit
// of its first use) and skips the test under the race detector: wazero
// compiling PDFium's 5.6 MB module takes minutes when the compiler itself
// is instrumented (seconds without). `make test` runs this package a
// second time without -race, so every PDF test runs in CI.
func needPDFium(t testing.TB) {
	t.Helper()
	if raceEnabled {
		t.Skip("PDFium tests run in the non-race pass of make test (compiling it under -race takes minutes)")
	}
	if err := startPDFium(); err != nil {
		t.Fatal(err)
	}
}
