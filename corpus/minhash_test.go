package corpus

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"unicode"
)

// words makes a text of n distinct-looking words from seed.
func words(seed uint64, n int) []string {
	r := rand.New(rand.NewPCG(seed, 1))
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("w%x", r.Uint32())
	}
	return out
}

// TestSketch: the estimate follows the Jaccard similarity of the
// shingles: the same text agrees everywhere, one word changed in 400
// stays above the threshold, a text with a fifth of it changed falls
// below, an unrelated one agrees nowhere much, and a short text has no
// signature. Punctuation and spacing are not words.
func TestSketch(t *testing.T) {
	base := words(1, 400)
	text := func(ws []string) []byte { return []byte(strings.Join(ws, " ")) }
	edit := func(every int) []string {
		ws := append([]string(nil), base...)
		for i := every / 2; i < len(ws); i += every {
			ws[i] = "changed"
		}
		return ws
	}
	a := sketch(text(base))
	for _, tc := range []struct {
		name       string
		other      []byte
		near       bool
		minS, maxS int // bounds on agreeing permutations
	}{
		{"same", text(base), true, permutations, permutations},
		{"spacing and punctuation", []byte(strings.Join(base, ",\n\t ")), true, permutations, permutations},
		{"one word in 400", text(edit(400)), true, agreeMin, permutations},
		{"a fifth changed", text(edit(5)), false, 0, agreeMin - 1},
		{"unrelated", text(words(2, 400)), false, 0, 8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := sketch(tc.other)
			n := agree(a, b)
			if n < tc.minS || n > tc.maxS {
				t.Errorf("agree %d, want %d..%d", n, tc.minS, tc.maxS)
			}
			if got := n >= agreeMin; got != tc.near {
				t.Errorf("near %v, want %v", got, tc.near)
			}
		})
	}
	if sketch([]byte(strings.Join(base[:minShingles+shingleTokens-2], " "))) != nil {
		t.Error("a text of fewer than minShingles shingles has a signature")
	}
	if sketch([]byte(strings.Join(base[:minShingles+shingleTokens-1], " "))) == nil {
		t.Error("a text of minShingles shingles has none")
	}
	if sketch([]byte("ünïcödé wörds 字 ")) != nil {
		t.Error("three words have a signature")
	}
}

// TestNearIndex: a text is marked a near duplicate of the first
// representative it is near, in corpus order; a near duplicate is never
// itself a representative.
func TestNearIndex(t *testing.T) {
	base := words(3, 300)
	variant := func(i int) *signature {
		ws := append([]string(nil), base...)
		ws[i] = "variant"
		return sketch([]byte(strings.Join(ws, " ")))
	}
	x := newNearIndex()
	if got := x.add(variant(10), "r/a"); got != "" {
		t.Fatalf("first text marked near %q", got)
	}
	if got := x.add(sketch([]byte(strings.Join(words(4, 300), " "))), "r/other"); got != "" {
		t.Fatalf("an unrelated text marked near %q", got)
	}
	for i, name := range []string{"r/b", "s/c", "s/d"} {
		if got := x.add(variant(100+i*50), name); got != "r/a" {
			t.Errorf("%s: near %q, want r/a", name, got)
		}
	}
	if len(x.reps) != 2 {
		t.Errorf("%d representatives, want 2", len(x.reps))
	}
}

// TestNearIndexHostile: a corpus built to crowd buckets — thousands of
// texts alike in most bands, yet too different to be near duplicates —
// keeps each bucket at maxBucket representatives, so no text costs more
// than bands × maxBucket comparisons and the whole stays linear.
func TestNearIndexHostile(t *testing.T) {
	n := 20000
	if testing.Short() {
		n = 4000
	}
	x := newNearIndex()
	r := rand.New(rand.NewPCG(5, 6))
	near := 0
	for i := range n {
		var s signature
		for k := range s {
			if k < rowsPerBand*(bands-1) {
				s[k] = uint32(k) // the same 15 bands for every text
			} else {
				s[k] = r.Uint32()
			}
		}
		// Differ on enough of the shared bands not to be near anything.
		for k := 0; k < permutations/4; k++ {
			s[r.IntN(rowsPerBand*(bands-1))] = r.Uint32()
		}
		if x.add(&s, fmt.Sprint(i)) != "" {
			near++
		}
	}
	for k, b := range x.buckets {
		if len(b) > maxBucket {
			t.Fatalf("bucket %x holds %d representatives", k, len(b))
		}
	}
	if x.compares > n*bands*maxBucket || x.compares < n {
		t.Errorf("%d texts, %d comparisons: want at most %d a text, and the buckets crowded", n, x.compares, bands*maxBucket)
	}
	if near > 0 {
		t.Errorf("%d texts marked near duplicates; none is", near)
	}
}

// TestSketchDefinition: sketch gives the signature its definition gives
// (the least hash, per permutation, over the set of 5-token shingles),
// computed here the slow way, on texts that repeat themselves, as code
// does, and which its table of shingles already taken must not get wrong:
// a line repeated, the same shingles far apart (evicted from the table
// and taken again), and this package's own source.
func TestSketchDefinition(t *testing.T) {
	src, err := os.ReadFile("minhash.go")
	if err != nil {
		t.Fatal(err)
	}
	line := strings.Repeat("if err != nil { return nil, err }\n", 300)
	far := strings.Join(append(append(words(3, 5000), words(4, 3000)...), words(3, 5000)...), " ")
	for _, tc := range []struct{ name, text string }{
		{"a line repeated", line},
		{"repeats far apart", far},
		{"minhash.go", string(src)},
		{"unicode and bad bytes", strings.Repeat("ünïcödé wörds 字 \xff\xfe x_y 12 ", 40)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, want := sketch([]byte(tc.text)), sketchByDefinition([]byte(tc.text))
			if (got == nil) != (want == nil) || got != nil && *got != *want {
				t.Errorf("sketch differs from its definition")
			}
		})
	}
}

// sketchByDefinition is sketch the slow way: tokens, the set of their
// shingles' hashes, each permutation's least hash over the set.
func sketchByDefinition(text []byte) *signature {
	tokens := bytes.FieldsFunc(text, func(r rune) bool {
		return !(r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r))
	})
	const prime = 1099511628211
	hash := func(tok []byte) uint64 {
		h := uint64(14695981039346656037)
		for _, b := range tok {
			h = (h ^ uint64(b)) * prime
		}
		return h
	}
	set := map[uint64]bool{}
	for i := 0; i+shingleTokens <= len(tokens); i++ {
		var s uint64
		for _, tok := range tokens[i : i+shingleTokens] {
			s = (s ^ hash(tok)) * prime
		}
		set[mix64(s)] = true
	}
	if len(tokens)-shingleTokens+1 < minShingles {
		return nil
	}
	var sig signature
	for i := range sig {
		sig[i] = ^uint32(0)
		for x := range set {
			sig[i] = min(sig[i], uint32((perm[i][0]*x+perm[i][1])>>32))
		}
	}
	return &sig
}
