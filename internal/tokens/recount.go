package tokens

import (
	"fmt"
	"strings"
	"unicode/utf8"
	"unsafe"
)

// Pre-tokenization is local, and this file puts that to use: a redaction
// changes the count of the pieces around it only, and a text can be counted
// in parts that add up exactly.
//
// A position q is a cut when s[q-1] is '\n' and s[q] is none of '\r', '\n'
// and '/'. Then Count(s) == Count(s[:q]) + Count(s[q:]), whatever else s
// holds. Why: only two branches of the split pattern can match a newline,
// ` ?[^\s\p{L}\p{N}]+[\r\n/]*` and `\s*[\r\n]+`, and each ends where its run
// of [\r\n/] or [\r\n] ends; so the piece holding s[q-1] ends at q, in s and
// in s[:q] alike. No piece before it looks past s[q-1] (words, numbers and
// punctuation stop at the newline, and a whitespace run that reaches it is
// that piece), and the scanner starts afresh at q, reading only s[q:].
// Invalid UTF-8 does not change this: each invalid byte becomes U+FFFD on
// its own, and a newline is never part of an invalid sequence.
// TestCutAdditive and FuzzRecount check it.

// isCut reports whether q is a cut of s; 0 < q < len(s).
func isCut(s string, q int) bool {
	if s[q-1] != '\n' {
		return false
	}
	c := s[q]
	return c != '\r' && c != '\n' && c != '/'
}

// Cut returns the largest cut of b: the length of the longest prefix whose
// count plus the count of the rest equals the count of all of b, for any
// bytes that follow. It returns 0 if b has none. A stream counted in parts
// cut here adds up to exactly its whole count.
func Cut(b []byte) int {
	s := unsafe.String(unsafe.SliceData(b), len(b))
	for hi := len(s) - 1; hi > 0; {
		i := strings.LastIndexByte(s[:hi], '\n')
		if i < 0 {
			break
		}
		if isCut(s, i+1) {
			return i + 1
		}
		hi = i
	}
	return 0
}

// Edit replaces Start..End of a text with Repl, as a redaction does.
type Edit struct {
	Start, End int // byte offsets, End exclusive
	Repl       string
}

// Apply returns text with edits made; edits must be sorted by Start and
// must not overlap, or Apply panics.
func Apply(text string, edits []Edit) string {
	checkEdits(len(text), edits)
	var b strings.Builder
	pos := 0
	for _, e := range edits {
		b.WriteString(text[pos:e.Start])
		b.WriteString(e.Repl)
		pos = e.End
	}
	b.WriteString(text[pos:])
	return b.String()
}

func checkEdits(n int, edits []Edit) {
	pos := 0
	for i, e := range edits {
		if e.Start < pos || e.End < e.Start || e.End > n {
			panic(fmt.Sprintf("tokens: edit %d (%d..%d) of a %d-byte text is out of order or range", i, e.Start, e.End, n))
		}
		pos = e.End
	}
}

// Recount returns Count(Apply(text, edits)), given count == Count(text),
// without counting the whole text again: only the pieces whose bounds or
// bytes the edits change are counted. Each group of edits is taken from the
// cut before it to the cut after it (see Cut); inside that window the
// pieces before the first edit that come out the same are skipped, and so
// are the pieces after the last edit once the old and new splits meet
// again. Edits must be sorted and disjoint, as for Apply. Safe for
// concurrent use.
func Recount(text string, count int, edits []Edit) int {
	checkEdits(len(text), edits)
	tab, v := bmpClasses(), theVocab()
	enc := encoders.Get().(*encoder)
	defer encoders.Put(enc)
	floor := 0 // the end of the last window, itself a cut
	for i := 0; i < len(edits); {
		start, end := edits[i].Start, edits[i].End
		hi := cutAfter(text, end)
		j := i + 1
		for j < len(edits) && edits[j].Start <= hi {
			end = edits[j].End
			hi = cutAfter(text, end)
			j++
		}
		lo := cutBefore(text, start, floor)
		var nb strings.Builder
		nb.WriteString(text[lo:start])
		pos := start
		for _, e := range edits[i:j] {
			nb.WriteString(text[pos:e.Start])
			nb.WriteString(e.Repl)
			pos = e.End
		}
		newEnd := nb.Len() // where the edited middle ends in the new window
		nb.WriteString(text[end:hi])
		count += recountWindow(tab, v, enc, text[lo:hi], nb.String(), start-lo, end-lo, newEnd)
		floor, i = hi, j
	}
	return count
}

// RecountBytes is Recount on a byte slice, without copying it.
func RecountBytes(text []byte, count int, edits []Edit) int {
	return Recount(unsafe.String(unsafe.SliceData(text), len(text)), count, edits)
}

// cutBefore returns the last cut of s below start (so that the byte after it
// is not edited), or floor if there is none at or above floor.
func cutBefore(s string, start, floor int) int {
	for hi := start - 1; hi > floor; {
		i := strings.LastIndexByte(s[floor:hi], '\n')
		if i < 0 {
			break
		}
		if q := floor + i + 1; isCut(s, q) {
			return q
		}
		hi = floor + i
	}
	return floor
}

// cutAfter returns the first cut q of s with s[q-1] at or after end, so
// that neither byte that makes it a cut is edited, or len(s).
func cutAfter(s string, end int) int {
	for from := end; from < len(s); {
		i := strings.IndexByte(s[from:], '\n')
		if i < 0 {
			break
		}
		q := from + i + 1
		if q == len(s) || isCut(s, q) {
			return q
		}
		from = q
	}
	return len(s)
}

// recountWindow returns Count(newW) - Count(oldW). The two windows share
// their first start bytes and, after oldEnd and newEnd, their tails.
func recountWindow(tab *[1 << 16]uint8, v *vocab, enc *encoder, oldW, newW string, start, oldEnd, newEnd int) int {
	if !utf8.ValidString(oldW) || !utf8.ValidString(newW) {
		return Count(newW) - Count(oldW) // Count converts to runes first
	}
	count := func(s string, from, to int) int { return countPiece(v, enc, s[from:to]) }
	// The head: pieces that come out the same in both, and end before the
	// first edited byte, have the same bytes and the same count.
	po, pn := 0, 0
	for {
		so, eo := nextPiece(tab, oldW, po)
		sn, en := nextPiece(tab, newW, pn)
		if so != sn || eo != en || eo > start || so == eo {
			break
		}
		po, pn = eo, en
	}
	// The middle: advance whichever split is behind, counting its pieces,
	// until both stand at the same place in the shared tail, after which
	// they split alike.
	delta := 0
	for po < oldEnd || pn < newEnd || po-oldEnd != pn-newEnd {
		if po-oldEnd <= pn-newEnd {
			so, eo := nextPiece(tab, oldW, po)
			if so < eo {
				delta -= count(oldW, so, eo)
			}
			po = eo
		} else {
			sn, en := nextPiece(tab, newW, pn)
			if sn < en {
				delta += count(newW, sn, en)
			}
			pn = en
		}
	}
	return delta
}

// CountBytes is Count on a byte slice, without copying it.
func CountBytes(b []byte) int {
	return Count(unsafe.String(unsafe.SliceData(b), len(b)))
}
