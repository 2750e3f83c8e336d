package serve

import (
	"path"
	"slices"
	"sync"
)

// pathGrams is an inverted index of the readable paths' q-grams, so an
// unknown path's suggestions cost the paths that share enough of its
// q-grams, not an edit distance against every path (90 times a hit on Go's
// src/). Trigrams of whole paths; trigrams and, for short names, bigrams of
// base names. Built on the first miss; safe for concurrent use.
type pathGrams struct {
	once  sync.Once
	n     int
	whole map[uint32][]int32 // trigram -> indexes into snapshot.readable
	base3 map[uint32][]int32
	base2 map[uint32][]int32
}

func (pg *pathGrams) build(readable []string) {
	pg.once.Do(func() {
		pg.n = len(readable)
		pg.whole, pg.base3, pg.base2 = map[uint32][]int32{}, map[uint32][]int32{}, map[uint32][]int32{}
		for i, p := range readable {
			for _, t := range grams(p, 3) {
				pg.whole[t] = append(pg.whole[t], int32(i))
			}
			b := path.Base(p)
			for _, t := range grams(b, 3) {
				pg.base3[t] = append(pg.base3[t], int32(i))
			}
			for _, t := range grams(b, 2) {
				pg.base2[t] = append(pg.base2[t], int32(i))
			}
		}
	})
}

// grams lists the distinct q-grams of s (q is 2 or 3).
func grams(s string, q int) []uint32 {
	var out []uint32
	for i := 0; i+q <= len(s); i++ {
		g := uint32(s[i])<<8 | uint32(s[i+1])
		if q == 3 {
			g = g<<8 | uint32(s[i+2])
		}
		out = append(out, g)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// within returns the indexes, ascending, of the strings indexed in m that
// can be within edit distance limit of s, or all=true when the filter
// cannot tell (s too short). An edit touches at most q q-grams, so a string
// within limit edits shares all but q*limit of s's distinct q-grams.
func (pg *pathGrams) within(m map[uint32][]int32, q int, s string, limit int) (idx []int32, all bool) {
	g := grams(s, q)
	need := len(g) - q*limit
	if need <= 0 {
		return nil, true
	}
	counts := make([]uint16, pg.n)
	for _, t := range g {
		for _, i := range m[t] {
			if counts[i]++; int(counts[i]) == need {
				idx = append(idx, i)
			}
		}
	}
	slices.Sort(idx)
	return idx, false
}

// suggestionCandidates lists, in path order, the readable entries that may
// be within limit of name or baseLimit of base: a superset of what
// closest's edit distances accept, so its answer does not change.
func (sn *view) suggestionCandidates(name, base string, limit, baseLimit int) []int32 {
	pg := &sn.grams
	pg.build(sn.readablePaths())
	b, allB := pg.within(pg.base3, 3, base, baseLimit)
	if allB {
		b, allB = pg.within(pg.base2, 2, base, baseLimit)
	}
	var w []int32
	allW := true
	if !allB {
		w, allW = pg.within(pg.whole, 3, name, limit)
	}
	if allW || allB {
		out := make([]int32, len(sn.readable))
		for i := range out {
			out[i] = int32(i)
		}
		return out
	}
	return slices.Compact(slices.Sorted(slices.Values(append(w, b...))))
}

func (sn *view) readablePaths() []string {
	out := make([]string, len(sn.readable))
	for i, e := range sn.readable {
		out[i] = e.Path
	}
	return out
}

// levenshtein computes edit distances from one string of at most 64 bytes
// to many others with Myers' bit-parallel algorithm (Hyyrö's form for the
// global distance): one pass of a few word operations per byte of the other
// string, where the dynamic program costs a row per byte.
type levenshtein struct {
	peq [256]uint64 // positions of each byte in a
	m   int
}

func newLevenshtein(a string) (*levenshtein, bool) {
	if len(a) == 0 || len(a) > 64 {
		return nil, false
	}
	l := &levenshtein{m: len(a)}
	for i := 0; i < len(a); i++ {
		l.peq[a[i]] |= 1 << i
	}
	return l, true
}

// dist is the edit distance in bytes, or limit+1 when it exceeds limit.
func (l *levenshtein) dist(b string, limit int) int {
	if d := l.m - len(b); d > limit || -d > limit {
		return limit + 1
	}
	pv, mv, score := ^uint64(0), uint64(0), l.m
	top := uint64(1) << (l.m - 1)
	for i := 0; i < len(b); i++ {
		eq := l.peq[b[i]]
		xv := eq | mv
		xh := (((eq & pv) + pv) ^ pv) | eq
		ph := mv | ^(xh | pv)
		mh := pv & xh
		if ph&top != 0 {
			score++
		} else if mh&top != 0 {
			score--
		}
		ph = ph<<1 | 1
		mh <<= 1
		pv = mh | ^(xv | ph)
		mv = ph & xv
	}
	if score > limit {
		return limit + 1
	}
	return score
}

// distanceTo returns a function giving editDistance(a, b, limit), by Myers
// when a is short enough.
func distanceTo(a string) func(b string, limit int) int {
	if l, ok := newLevenshtein(a); ok {
		return l.dist
	}
	return func(b string, limit int) int { return editDistance(a, b, limit) }
}
