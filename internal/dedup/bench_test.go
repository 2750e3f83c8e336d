package dedup

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkGroup groups 100,000 hashed files, a tenth of them copies of
// others, with sizes spread like a source tree's: the dedup barrier's
// whole cost once the loop has hashed every text.
func BenchmarkGroup(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	const n = 100_000
	files := make([]File, n)
	sums := make([][32]byte, n)
	for i := range n {
		files[i] = File{Path: fmt.Sprintf("m%d/p%d/f%06d.go", i%13, i%5, i), Size: int64(64 + rng.IntN(60<<10))}
		if i%10 == 9 {
			j := rng.IntN(i)
			files[i].Size, sums[i] = files[j].Size, sums[j]
			continue
		}
		for k := range sums[i] {
			sums[i][k] = byte(rng.Uint32())
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Group(files, sums); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "files/s")
}
