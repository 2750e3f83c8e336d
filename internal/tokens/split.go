package tokens

import (
	"sync"
	"unicode"
	"unicode/utf8"
)

// This file is a hand-written copy of the o200k_base pre-tokenizer as
// tiktoken-go v0.10.0 runs it: the split pattern
//
//	[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//	|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//	|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+
//
// compiled by regexp2's code generator (codec/regexp.gen.go). The reference
// is that generated matcher, not the regex as written, and it departs from
// what the written regex suggests in three places, reproduced on purpose:
//
//   - DEL (U+007F) is missing from the generated ASCII bitmaps of
//     [^\r\n\p{L}\p{N}] and [^\s\p{L}\p{N}], so no branch matches it and the
//     scanner skips it: it yields no token at all.
//   - \s*[\r\n]+ backtracks \s* to the FIRST \r or \n of the whitespace run
//     (helpers.IndexOfAny2), not the last, so "\n \n x" splits as "\n",
//     " \n", " x".
//   - (?i:'s) also accepts U+017F LATIN SMALL LETTER LONG S, by .NET case
//     folding.
//
// \s is unicode.IsSpace and the \p classes are the standard library's unicode
// tables, exactly as regexp2 evaluates them.

// Rune classes; one rune can be in several.
const (
	clsUpper  = 1 << iota // [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}], "A" below
	clsLower              // [\p{Ll}\p{Lm}\p{Lo}\p{M}], "B" below
	clsNumber             // \p{N}
	clsSpace              // \s
	clsLead               // [^\r\n\p{L}\p{N}], the optional lead of a word
	clsPunct              // [^\s\p{L}\p{N}]
)

// The generated matcher's ASCII bitmaps, copied verbatim (bit c of lo is
// rune c, bit c-64 of hi is rune c); note bit 63 of each hi, DEL, is clear.
const (
	leadLo, leadHi   = 0xfc00ffffffffdbff, 0x78000001f8000001
	punctLo, punctHi = 0xfc00fffeffffc1ff, 0x78000001f8000001
)

// bmpClasses holds classOf for every rune below U+10000; the scanner looks
// each rune up once, so the unicode.Is binary searches run once per process.
var bmpClasses = sync.OnceValue(func() *[1 << 16]uint8 {
	var t [1 << 16]uint8
	for r := range rune(len(t)) {
		t[r] = computeClass(r)
	}
	return &t
})

func inBitmap(r rune, lo, hi uint64) bool {
	if r < 64 {
		return lo&(1<<uint(r)) != 0
	}
	return hi&(1<<uint(r-64)) != 0
}

func computeClass(r rune) uint8 {
	var c uint8
	isL := unicode.Is(unicode.L, r)
	isN := unicode.Is(unicode.N, r)
	isM := unicode.Is(unicode.M, r)
	isSpace := unicode.IsSpace(r)
	if isM || unicode.Is(unicode.Lu, r) || unicode.Is(unicode.Lt, r) ||
		unicode.Is(unicode.Lm, r) || unicode.Is(unicode.Lo, r) {
		c |= clsUpper
	}
	if isM || unicode.Is(unicode.Ll, r) || unicode.Is(unicode.Lm, r) ||
		unicode.Is(unicode.Lo, r) {
		c |= clsLower
	}
	if isN {
		c |= clsNumber
	}
	if isSpace {
		c |= clsSpace
	}
	if r < utf8.RuneSelf {
		if inBitmap(r, leadLo, leadHi) {
			c |= clsLead
		}
		if inBitmap(r, punctLo, punctHi) {
			c |= clsPunct
		}
		return c
	}
	if !isL && !isN {
		c |= clsLead
		if !isSpace {
			c |= clsPunct
		}
	}
	return c
}

// classAt decodes the rune at s[i:] and returns its classes and width;
// i must be < len(s) and s valid UTF-8.
func classAt(tab *[1 << 16]uint8, s string, i int) (uint8, int) {
	if b := s[i]; b < utf8.RuneSelf {
		return tab[b], 1
	}
	return classAtSlow(tab, s, i)
}

// classAtSlow is classAt beyond ASCII, split off so classAt inlines.
func classAtSlow(tab *[1 << 16]uint8, s string, i int) (uint8, int) {
	r, size := utf8.DecodeRuneInString(s[i:])
	if r < 1<<16 {
		return tab[r], size
	}
	return computeClass(r), size
}

// nextPiece returns the bounds of the first piece at or after s[i]; start ==
// end means there is none. Runes where no branch of the pattern matches (see
// pieceEnd) are skipped: the regex engine moves on one rune and the rune
// yields no token. s must be valid UTF-8.
func nextPiece(tab *[1 << 16]uint8, s string, i int) (start, end int) {
	for i < len(s) {
		if end := pieceEnd(tab, s, i); end >= 0 {
			return i, end
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return i, i
}

// pieceEnd returns the end of the piece that starts at s[i], or -1 if no
// branch matches there (the caller then skips one rune, as regexp2 does).
// s must be valid UTF-8 and i < len(s).
func pieceEnd(tab *[1 << 16]uint8, s string, i int) int {
	if end := asciiWordEnd(s, i); end >= 0 {
		return end // most pieces of code and English
	}
	if end := asciiOtherEnd(tab, s, i); end >= 0 {
		return end // most of the rest: punctuation, indentation, newlines
	}
	return pieceEndGeneral(tab, s, i)
}

// pieceEndGeneral is pieceEnd for any piece.
func pieceEndGeneral(tab *[1 << 16]uint8, s string, i int) int {
	c0, size0 := classAt(tab, s, i)

	// Branches 0 and 1, words. The optional lead is greedy: try with it
	// first, then without.
	if c0&(clsLead|clsUpper|clsLower) != 0 {
		if end := wordEnd(tab, s, i, c0, size0); end >= 0 {
			return end
		}
	}

	// Branch 2: \p{N}{1,3}.
	if c0&clsNumber != 0 {
		end := i + size0
		for k := 1; k < 3 && end < len(s); k++ {
			c, size := tab[s[end]], 1 // classAt, inlined by hand for ASCII
			if s[end] >= utf8.RuneSelf {
				c, size = classAtSlow(tab, s, end)
			}
			if c&clsNumber == 0 {
				break
			}
			end += size
		}
		return end
	}

	// Branch 3: ` ?[^\s\p{L}\p{N}]+[\r\n/]*`, all atomic.
	j := i
	if s[i] == ' ' {
		j++
	}
	end := j
	for end < len(s) {
		c, size := tab[s[end]], 1 // classAt, inlined by hand for ASCII
		if s[end] >= utf8.RuneSelf {
			c, size = classAtSlow(tab, s, end)
		}
		if c&clsPunct == 0 {
			break
		}
		end += size
	}
	if end > j {
		for end < len(s) && (s[end] == '\r' || s[end] == '\n' || s[end] == '/') {
			end++
		}
		return end
	}

	// Branches 4 to 6 share the maximal whitespace run s[i:w]; a newline in
	// it decides the piece alone (branch 4), so the scan stops there: going
	// on to the run's end for every piece made a run of "\n " quadratic.
	w, firstNL, lastSize := i, -1, 0
	for w < len(s) {
		c, size := tab[s[w]], 1 // classAt, inlined by hand for ASCII
		if s[w] >= utf8.RuneSelf {
			c, size = classAtSlow(tab, s, w)
		}
		if c&clsSpace == 0 {
			break
		}
		if s[w] == '\r' || s[w] == '\n' {
			firstNL = w
			break
		}
		w += size
		lastSize = size
	}
	switch {
	case firstNL >= 0:
		// Branch 4, \s*[\r\n]+ as generated: back to the first newline, then
		// the atomic newline run from there.
		end := firstNL
		for end < len(s) && (s[end] == '\r' || s[end] == '\n') {
			end++
		}
		return end
	case w == i:
		return -1 // e.g. DEL; see the file comment
	case w == len(s) || w-lastSize == i:
		// Branch 5 at the end of the text, or branch 6 for a single
		// whitespace rune before a non-space.
		return w
	default:
		// Branch 5, \s+(?!\S): leave the last space to lead the next word.
		return w - lastSize
	}
}

// wordEnd runs branches 0 and 1 at s[i], whose rune has classes c0 and width
// size0, and returns the end of the match or -1.
func wordEnd(tab *[1 << 16]uint8, s string, i int, c0 uint8, size0 int) int {
	// The optional lead is greedy: each branch first tries to start after it,
	// then at i.
	p := i
	if c0&clsLead != 0 {
		p = i + size0
	}
	if end := lowerWordEnd(tab, s, p); end >= 0 {
		return end
	}
	if p != i {
		if end := lowerWordEnd(tab, s, i); end >= 0 {
			return end
		}
	}

	// Branch 1: A+ B*; both greedy, and nothing after them can fail.
	if q := runEnd(tab, s, p, clsUpper); q > p {
		return contractionEnd(s, runEnd(tab, s, q, clsLower))
	}
	if p != i {
		if q := runEnd(tab, s, i, clsUpper); q > i {
			return contractionEnd(s, runEnd(tab, s, q, clsLower))
		}
	}
	return -1
}

// lowerWordEnd runs branch 0 after its lead, A* B+ and the contraction, from
// s[p], and returns the end of the match or -1. A* is greedy and backtracks
// one rune at a time until B+ can start, so B+ starts at the last B-rune of
// [p, q], where s[p:q] is the maximal A-run; if that rune is inside the run,
// B+ stops right after it.
func lowerWordEnd(tab *[1 << 16]uint8, s string, p int) int {
	q, lastBEnd := p, -1
	for q < len(s) {
		c, size := tab[s[q]], 1 // classAt, inlined by hand for ASCII
		if s[q] >= utf8.RuneSelf {
			c, size = classAtSlow(tab, s, q)
		}
		if c&clsUpper == 0 {
			if c&clsLower != 0 {
				return contractionEnd(s, runEnd(tab, s, q, clsLower))
			}
			break
		}
		q += size
		if c&clsLower != 0 {
			lastBEnd = q
		}
	}
	if lastBEnd >= 0 {
		return contractionEnd(s, lastBEnd)
	}
	return -1
}

// runEnd returns the end of the maximal run of runes in class cls from s[i].
func runEnd(tab *[1 << 16]uint8, s string, i int, cls uint8) int {
	for i < len(s) {
		c, size := tab[s[i]], 1 // classAt, inlined by hand for ASCII
		if s[i] >= utf8.RuneSelf {
			c, size = classAtSlow(tab, s, i)
		}
		if c&cls == 0 {
			break
		}
		i += size
	}
	return i
}

// contractionEnd extends a word ending at s[i] by an optional
// (?i:'s|'t|'re|'ve|'m|'ll|'d), matched as the generated code does.
func contractionEnd(s string, i int) int {
	if i+1 >= len(s) || s[i] != '\'' {
		return i
	}
	switch s[i+1] {
	case 'S', 'T', 's', 't', 'M', 'm', 'D', 'd':
		return i + 2
	case 'R', 'r', 'V', 'v':
		if i+2 < len(s) && s[i+2]|0x20 == 'e' {
			return i + 3
		}
	case 'L', 'l':
		if i+2 < len(s) && s[i+2]|0x20 == 'l' {
			return i + 3
		}
	case 0xC5: // U+017F is C5 BF
		if i+2 < len(s) && s[i+2] == 0xBF {
			return i + 3
		}
	}
	return i
}

// asciiWordEnd is branches 0 and 1 for the commonest pieces, an ASCII word
// with an optional ASCII lead (" foo", "\tBar", "XML"), without the class
// table: it returns the end of the piece at s[i], or -1 to leave s[i] to
// the general path (not such a word, or a non-ASCII rune right after it
// that might continue it). In ASCII, A is [A-Z] and B is [a-z], so A* B+
// is the uppercase run then the lowercase run, and when there is no
// lowercase run, A+ B* is the uppercase run.
func asciiWordEnd(s string, i int) int {
	p := i
	if b := s[i]; !isASCIILetter(b) {
		if b >= utf8.RuneSelf || !inBitmap(rune(b), leadLo, leadHi) ||
			i+1 == len(s) || !isASCIILetter(s[i+1]) {
			return -1
		}
		p = i + 1
	}
	q := p
	for q < len(s) && s[q]-'A' < 26 {
		q++
	}
	r := q
	for r < len(s) && s[r]-'a' < 26 {
		r++
	}
	if r < len(s) && s[r] >= utf8.RuneSelf {
		return -1
	}
	return contractionEnd(s, r)
}

func isASCIILetter(b byte) bool { return (b|0x20)-'a' < 26 }

// asciiOtherEnd is branches 3 to 6 for ASCII punctuation and whitespace
// (", ", " {\n", "\t\t", "\n"), where branches 0 to 2 can't match: it
// returns the end of the piece at s[i], or -1 to leave s[i] to the general
// path (a letter, digit or non-ASCII byte where the answer would depend on
// it).
func asciiOtherEnd(tab *[1 << 16]uint8, s string, i int) int {
	c := s[i]
	if c >= utf8.RuneSelf {
		return -1
	}
	cls := tab[c]
	if cls&(clsPunct|clsSpace) == 0 {
		return -1 // a letter, digit, DEL or control
	}
	// c may lead a word (branches 0 and 1) if a letter follows; and a
	// space may lead punctuation (branch 3).
	next := byte(0)
	if i+1 < len(s) {
		if next = s[i+1]; next >= utf8.RuneSelf || isASCIILetter(next) {
			return -1
		}
	}
	if cls&clsPunct != 0 || c == ' ' && i+1 < len(s) && tab[next]&clsPunct != 0 {
		// Branch 3: ` ?[^\s\p{L}\p{N}]+[\r\n/]*`, all atomic.
		end := i + 1
		for end < len(s) && tab[s[end]]&clsPunct != 0 {
			if s[end] >= utf8.RuneSelf {
				return -1 // other punctuation may continue the run
			}
			end++
		}
		if end < len(s) && s[end] >= utf8.RuneSelf {
			return -1
		}
		for end < len(s) && (s[end] == '\r' || s[end] == '\n' || s[end] == '/') {
			end++
		}
		return end
	}
	// Branches 4 to 6 on the whitespace run s[i:w], as in pieceEndGeneral
	// (which the newline ends here too).
	w, firstNL := i, -1
	for w < len(s) && s[w] < utf8.RuneSelf && tab[s[w]]&clsSpace != 0 {
		if s[w] == '\r' || s[w] == '\n' {
			firstNL = w
			break
		}
		w++
	}
	if firstNL < 0 && w < len(s) && s[w] >= utf8.RuneSelf {
		return -1 // NBSP, U+3000 and more are spaces too
	}
	switch {
	case firstNL >= 0:
		end := firstNL
		for end < len(s) && (s[end] == '\r' || s[end] == '\n') {
			end++
		}
		return end
	case w == len(s) || w-1 == i:
		return w
	default:
		return w - 1
	}
}
