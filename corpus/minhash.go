package corpus

import (
	"math"
	"unicode"
	"unicode/utf8"
)

// Near duplicates: MinHash over shingles of word tokens, with LSH banding
// to find candidates and the signatures' agreement to decide
// (docs/corpus.md). The settings are BigCode's for The Stack (5-token
// shingles, Jaccard 0.85) with 128 permutations; all are recorded in the
// manifest, and the seeds are fixed, so the same corpus always gets the
// same marks. Written here rather than taken from a package: no well-kept
// Go package does MinHash with LSH, and none bounds its buckets, which a
// corpus from anywhere needs (maxBucket).
const (
	shingleTokens = 5   // word tokens per shingle
	permutations  = 128 // MinHash signature length
	bands         = 16  // LSH bands of rowsPerBand values each
	rowsPerBand   = permutations / bands
	nearThreshold = 0.85 // estimated Jaccard similarity from which a file is a near duplicate
	// minShingles: a text with fewer shingles (about 20 words) is too
	// short for its estimate to mean anything, and is never marked.
	minShingles = 16
	// maxBucket bounds the representatives one LSH bucket keeps, so a
	// hostile corpus (thousands of files alike in one band) costs each
	// file at most bands × maxBucket comparisons: linear in the corpus.
	maxBucket = 8
)

// agreeMin is how many of the permutations two signatures must agree on
// to estimate a Jaccard similarity of nearThreshold or more.
var agreeMin = int(math.Ceil(nearThreshold * permutations))

// signature is a text's MinHash: per permutation, the least hash of any
// of its shingles.
type signature [permutations]uint32

// perm holds each permutation's multiply-shift hash, h(x) = (a·x + b) >> 32
// with a odd: universal enough for MinHash, one multiply per value.
var perm = func() (p [permutations][2]uint64) {
	s := uint64(0x5eed_c0de_2026_0033) // fixed: the marks must not change between runs
	for i := range p {
		p[i][0] = splitmix(&s) | 1
		p[i][1] = splitmix(&s)
	}
	return p
}()

func splitmix(s *uint64) uint64 {
	*s += 0x9e3779b97f4a7c15
	return mix64(*s)
}

// mix64 is splitmix64's finaliser: every input bit moves every output bit.
func mix64(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// sketch is text's signature, or nil when it has fewer than minShingles
// shingles. Tokens are maximal runs of letters, digits and '_'; the cost
// is one pass over text and permutations multiplies per shingle, which
// is most of it: the shingles are taken a batch at a time (lowerBatch),
// so each permutation's constants and minimum are loaded once a batch.
func sketch(text []byte) *signature {
	sig := new(signature)
	for i := range sig {
		sig[i] = ^uint32(0)
	}
	var window [shingleTokens]uint64 // the last tokens' hashes, oldest first
	// seen holds shingle hashes already taken, by their low bits: a
	// shingle met again (code repeats itself) cannot lower any minimum,
	// so its permutations are skipped. The signature is the same.
	var seen [seenSlots]uint64
	var batch [batchShingles]uint64 // shingles taken, not yet in sig
	tokens, shingles, batched := 0, 0, 0
	const (
		fnvOffset = 14695981039346656037
		fnvPrime  = 1099511628211
	)
	h, inToken := uint64(fnvOffset), false
	end := func() {
		copy(window[:], window[1:])
		window[shingleTokens-1] = h
		tokens++
		h, inToken = fnvOffset, false
		if tokens < shingleTokens {
			return
		}
		// The shingle's hash, over its tokens in order: the window
		// shifts rather than turns, so no index is taken modulo 5.
		var s uint64
		for _, w := range window {
			s = (s ^ w) * fnvPrime
		}
		x := mix64(s)
		shingles++
		slot := &seen[x%seenSlots]
		if *slot == x && x != 0 {
			return
		}
		*slot = x
		batch[batched] = x
		if batched++; batched == batchShingles {
			lowerBatch(sig, &batch)
			batched = 0
		}
	}
	for i := 0; i < len(text); {
		c := text[i]
		if c < utf8.RuneSelf {
			i++
			if wordByte[c] {
				h = (h ^ uint64(c)) * fnvPrime
				inToken = true
			} else if inToken {
				end()
			}
			continue
		}
		r, size := utf8.DecodeRune(text[i:])
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			for _, b := range text[i : i+size] {
				h = (h ^ uint64(b)) * fnvPrime
			}
			inToken = true
		} else if inToken {
			end()
		}
		i += size
	}
	if inToken {
		end()
	}
	if shingles < minShingles {
		return nil
	}
	if batched > 0 {
		// The last, short batch is filled with its first shingle again:
		// a minimum taken twice is the same minimum.
		for k := batched; k < batchShingles; k++ {
			batch[k] = batch[0]
		}
		lowerBatch(sig, &batch)
	}
	return sig
}

// wordByte says which ASCII bytes are part of a token.
var wordByte = func() (t [utf8.RuneSelf]bool) {
	for c := range t {
		t[c] = 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_'
	}
	return t
}()

// batchShingles is how many shingles lowerBatch takes at once.
const batchShingles = 8

// lowerBatch lowers each permutation's minimum in sig to the least of
// xs's hashes under it: eight permutations an instruction with AVX-512
// (minhash_amd64.s), else lowerBatchGo. The order shingles are taken in
// cannot change a minimum, and neither can how: the signatures are the
// same (TestLowerBatch).
func lowerBatch(sig *signature, xs *[batchShingles]uint64) {
	if useAVX512 {
		lowerBatchAVX512(sig, xs, &permA, &permB)
		return
	}
	lowerBatchGo(sig, xs)
}

// lowerBatchGo is lowerBatch in Go. Eight independent multiplies a
// permutation keep the multiplier busy where one a shingle waited on the
// load and store of sig's value.
func lowerBatchGo(sig *signature, xs *[batchShingles]uint64) {
	x0, x1, x2, x3, x4, x5, x6, x7 := xs[0], xs[1], xs[2], xs[3], xs[4], xs[5], xs[6], xs[7]
	for i := range sig {
		a, b := perm[i][0], perm[i][1]
		m := min(uint32((a*x0+b)>>32), uint32((a*x1+b)>>32), uint32((a*x2+b)>>32), uint32((a*x3+b)>>32))
		n := min(uint32((a*x4+b)>>32), uint32((a*x5+b)>>32), uint32((a*x6+b)>>32), uint32((a*x7+b)>>32))
		sig[i] = min(sig[i], m, n)
	}
}

// permA and permB are perm's multipliers and addends apart, as the
// vector instructions load them, eight at a time.
var permA, permB = func() (a, b [permutations]uint64) {
	for i := range perm {
		a[i], b[i] = perm[i][0], perm[i][1]
	}
	return a, b
}()

// seenSlots is the size of sketch's table of shingles already taken: 8
// KiB of stack, enough for the repeats a file's nearby lines make.
const seenSlots = 1024

// agree counts the permutations on which a and b agree.
func agree(a, b *signature) int {
	n := 0
	for i := range a {
		if a[i] == b[i] {
			n++
		}
	}
	return n
}

// bandKey is the LSH bucket of band i of sig.
func bandKey(sig *signature, i int) uint64 {
	k := uint64(i+1) * 0x9e3779b97f4a7c15
	for _, v := range sig[i*rowsPerBand : (i+1)*rowsPerBand] {
		k = mix64(k ^ uint64(v))
	}
	return k
}

// nearIndex finds near duplicates in corpus order: each text is compared
// with the representatives (texts not themselves near duplicates) that
// share one of its band buckets, and is a near duplicate of the first of
// them, in corpus order, whose signature agrees on agreeMin permutations.
type nearIndex struct {
	reps     []*signature
	names    []string           // each representative's NAME/path
	buckets  map[uint64][]int32 // band key → representatives, at most maxBucket
	compares int                // signature comparisons so far: at most bands × maxBucket a text
}

func newNearIndex() *nearIndex { return &nearIndex{buckets: map[uint64][]int32{}} }

// add returns the representative sig is a near duplicate of, or "" after
// making it a representative itself.
func (x *nearIndex) add(sig *signature, name string) string {
	best := int32(-1)
	var keys [bands]uint64
	for b := range bands {
		keys[b] = bandKey(sig, b)
		for _, r := range x.buckets[keys[b]] {
			if best >= 0 && r >= best {
				continue
			}
			x.compares++
			if agree(sig, x.reps[r]) >= agreeMin {
				best = r
			}
		}
	}
	if best >= 0 {
		return x.names[best]
	}
	r := int32(len(x.reps))
	x.reps = append(x.reps, sig)
	x.names = append(x.names, name)
	for _, k := range keys {
		if len(x.buckets[k]) < maxBucket {
			x.buckets[k] = append(x.buckets[k], r)
		}
	}
	return ""
}
