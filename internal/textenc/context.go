package textenc

import "strings"

// maxContextLetters bounds the ASCII letters taken on each side of a
// scored non-ASCII byte: a word's worth, so the cost stays a constant per
// scored byte.
const maxContextLetters = 12

// contextCosts is the cost, in quarter bits in each language model (by
// index in langs().models), of the ASCII letters of the words that the
// scored non-ASCII bytes sit in: "Breitenb" and "ucher" around the byte of
// "Breitenbèucher", "P" in "Può". The ASCII letters read the same in every
// charset, but not in every language: German explains "breitenb" better
// than Czech does, which decides between charsets whose readings of the
// non-ASCII letter alone are as cheap (Windows-1250's "č" in Czech,
// Windows-1252's "è" in German or Catalan).
// The bigrams that touch a non-ASCII byte are the charset's and are scored
// with it (scoreSingleByte). A word is a run of ASCII letters and
// non-ASCII bytes, whatever a charset makes of those; each is taken once.
func contextCosts(head []byte, pos []int) []int {
	s := langs()
	type pair struct{ a, b uint16 }
	var pairs []pair
	done := 0 // head[:done] is taken
	for _, i := range pos {
		if i < done {
			continue
		}
		start := i
		for start > done && i-start < maxContextLetters && isWordByte(head[start-1]) {
			start--
		}
		end := i + 1
		for end < len(head) && end-i <= maxContextLetters && isWordByte(head[end]) {
			end++
		}
		leftEdge := start == 0 || !isWordByte(head[start-1])
		rightEdge := end == len(head) || !isWordByte(head[end])
		for k := start; k < end; k++ {
			c := head[k]
			if !isASCIILetter(rune(c)) {
				continue
			}
			switch {
			case k > start && isASCIILetter(rune(head[k-1])):
				pairs = append(pairs, pair{s.id(rune(head[k-1])), s.id(rune(c))})
			case k == start && leftEdge:
				pairs = append(pairs, pair{0, s.id(rune(c))})
			}
			if k == end-1 && rightEdge {
				pairs = append(pairs, pair{s.id(rune(c)), 0})
			}
		}
		done = end
	}
	costs := make([]int, len(s.models))
	for li := range s.models {
		m := &s.models[li]
		for _, p := range pairs {
			costs[li] += int(m.cost[int(m.class[p.a])*m.n+int(m.class[p.b])])
		}
	}
	return costs
}

// isWordByte reports a byte that may be part of a word in some charset:
// an ASCII letter, or any non-ASCII byte.
func isWordByte(c byte) bool { return c >= 0x80 || isASCIILetter(rune(c)) }

// wordEnd is the cost of letter id c ending a word after id a (a letter
// or 0, a boundary): the bigrams a→c and c→boundary, but at most the
// language's typical cost of a non-ASCII letter when c is a vowel with a
// grave or acute accent in its alphabet. A dictionary lists each word
// once, so the short words running text repeats weigh as little as rare
// ones: Italian "è" (a word alone), "più", "può", "città", "perché" cost 12
// to 15 bits in the Italian model, more than the same bytes cost as
// Windows-1258's Vietnamese "Pụ" or Windows-1251's "и"; in text they are
// among the most frequent words there are. The accent that ends a stressed
// word (Italian, Spanish, Portuguese, Catalan, French "à", "été") is the
// one this bias hides; other letters keep their cost (Slovak "ŕ" ending a
// word is rare in the dictionary and in text alike).
func (m *langModel) wordEnd(a, c uint16, stressed bool) int {
	ca, cc := int(m.class[a]), int(m.class[c])
	cost := int(m.cost[ca*m.n+cc]) + int(m.cost[cc*m.n])
	if stressed && cc >= 1 && cc <= m.n-2 && cost > m.typical {
		return m.typical
	}
	return cost
}

// isStressAccent reports a vowel with a grave or acute accent, the mark
// Romance languages put on a stressed last syllable.
func isStressAccent(r rune) bool {
	return strings.ContainsRune("àèìòùáéíóúÀÈÌÒÙÁÉÍÓÚ", r)
}

// costForeignWord is the cost of a short word of another script than
// Latin (Cyrillic, Greek, Hebrew...) whose nearest letters on both sides
// are ASCII: a lone "и" among Latin words is Italian "è" read as Windows-1251
// ("и utile"), and "БМИВ" in "font-family: БМИВ, MS Sans Serif" is 굴림
// read as ISO-8859-5. Russian text does that now and then between two
// identifiers; Latin-1 or CJK text read as Cyrillic does it every time.
const costForeignWord = 8 * langUnitsPerBit

// maxForeignGap is how far, on its line, foreignWord looks for the letters
// around a word, and maxForeignLetters how long a word it weighs.
const (
	maxForeignGap     = 4
	maxForeignLetters = 4
)

// foreignWord reports that the word starting at head[i] is short (at most
// maxForeignLetters: the one-letter words Latin-1's "è" and "à" become,
// the few letters of a CJK pair) and that the nearest letters before and
// after it, within maxForeignGap bytes on its line, are ASCII letters.
func foreignWord(t *sbTable, head []byte, i int) bool {
	isLetter := func(c byte) bool { return t.flags[c]&(flagLetter|flagMark) != 0 }
	end := i + 1
	for end < len(head) && end-i <= maxForeignLetters && isLetter(head[end]) {
		end++
	}
	if end-i > maxForeignLetters {
		return false // a word of its own: Russian names an identifier in a Forth line
	}
	side := func(from, step int) bool {
		for j, n := from, 0; j >= 0 && j < len(head) && n < maxForeignGap; j, n = j+step, n+1 {
			switch c := head[j]; {
			case c == '\n':
				return false
			case isLetter(c):
				return isASCIILetter(rune(c))
			}
		}
		return false
	}
	return side(i-1, -1) && side(end, 1)
}

// minCodeRun is the length from which a run of consecutive byte values
// (0xE0, 0xE1, 0xE2, ...) is a table of the charset's codes, not text.
const minCodeRun = 8

// codeTable reports a sample whose non-ASCII bytes are, for the most part,
// runs of consecutive codes: a spell file's alphabet ("FOL àáâãäåæç..."),
// a character table. Every charset reads such a run as its letters in its
// own order, and Windows-1251's order is the Cyrillic alphabet's
// ("абвгдежз"), which the language models find more natural than the
// Latin-1 letters the author listed; no reading can be told from another
// by its language.
func codeTable(head []byte, pos []int) bool {
	inRuns, run := 0, 1
	for k := 1; k <= len(pos); k++ {
		if k < len(pos) && pos[k] == pos[k-1]+1 && head[pos[k]] == head[pos[k-1]]+1 {
			run++
			continue
		}
		if run >= minCodeRun {
			inRuns += run
		}
		run = 1
	}
	return inRuns*2 > len(pos)
}
