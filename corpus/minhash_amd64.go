//go:build amd64 && !purego

package corpus

import "golang.org/x/sys/cpu"

// useAVX512 says lowerBatch may take eight permutations an instruction
// (VPMULLQ is AVX-512DQ): on the machine of docs/corpus.md's figures
// that is the sketch's 128 multiplies a shingle in 16.
var useAVX512 = cpu.X86.HasAVX512F && cpu.X86.HasAVX512DQ

// lowerBatchAVX512 is lowerBatch on AVX-512, with the permutations'
// multipliers in a and addends in b (permA, permB); minhash_amd64.s.
//
//go:noescape
func lowerBatchAVX512(sig *signature, xs *[batchShingles]uint64, a, b *[permutations]uint64)
