package corpus

import "testing"

// TestLowerBatch: the AVX-512 lowerBatch gives lowerBatchGo's minima,
// bit for bit, on random minima and shingles, on minima already below
// every hash (nothing to lower) and on shingles met twice in a batch
// (sketch's last batch repeats its first shingle). Skipped where the CPU
// has no AVX-512; TestSketchDefinition checks whichever runs against the
// definition.
func TestLowerBatch(t *testing.T) {
	if !useAVX512 {
		t.Skip("no AVX-512 here: lowerBatch is lowerBatchGo")
	}
	s := uint64(0x1234)
	for _, tc := range []struct {
		name   string
		start  func(i int) uint32
		repeat bool
	}{
		{"random", func(int) uint32 { return uint32(splitmix(&s)) }, false},
		{"unset", func(int) uint32 { return ^uint32(0) }, false},
		{"zero", func(int) uint32 { return 0 }, false},
		{"repeated shingles", func(int) uint32 { return ^uint32(0) }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for range 2000 {
				var want, got signature
				for i := range want {
					want[i] = tc.start(i)
				}
				got = want
				var xs [batchShingles]uint64
				for k := range xs {
					xs[k] = splitmix(&s)
					if tc.repeat && k > 2 {
						xs[k] = xs[k%3]
					}
				}
				lowerBatchGo(&want, &xs)
				lowerBatchAVX512(&got, &xs, &permA, &permB)
				if got != want {
					t.Fatalf("shingles %x: AVX-512 minima differ from Go's", xs)
				}
			}
		})
	}
}
