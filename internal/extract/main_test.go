package extract

import (
	"sync"
	"testing"

	xt "github.com/repoprep/repoprep/internal/extract/extracttest"
)

// testPDFMemory is PDFium's memory ceiling in these tests: small, so a
// stream bomb reaches it fast.
const testPDFMemory = 128 << 20

var startPDFium = sync.OnceValue(func() error {
	return preparePDF(Limits{MaxPDFMemory: testPDFMemory})
})

// needPDFium skips the test under the race detector and starts PDFium
// with the test ceiling (the pool takes the limit of its first use).
func needPDFium(t testing.TB) {
	t.Helper()
	xt.SkipPDFUnderRace(t)
	if err := startPDFium(); err != nil {
		t.Fatal(err)
	}
}
