//go:build !amd64 || purego

package corpus

// useAVX512 is false where there is no assembly: lowerBatch is Go.
const useAVX512 = false

func lowerBatchAVX512(*signature, *[batchShingles]uint64, *[permutations]uint64, *[permutations]uint64) {
	panic("corpus: no AVX-512 lowerBatch on this platform")
}
