package textenc

import "strings"

// boxShape reports a box-drawing character at head[i] that draws: beside
// no letter, and part of a line (the same character before or after it:
// "════", "░░░"), a corner or joint on a line ("╔══", "══╣": the line two
// long at least), or a lone column between spaces ("║  1. Open  ║"). CJK
// bytes read as a DOS code page give box characters too, but in no shape
// ("└▐╠¿" for 擂台 in code page 437), and so do Russian words read as the
// other Russian code page ("на" in code page 866 is KOI8-R's "╜═").
func boxShape(t *sbTable, head []byte, i int) bool {
	at := func(j int) byte {
		if j < 0 || j >= len(head) {
			return ' '
		}
		return head[j]
	}
	c, prev, next := head[i], at(i-1), at(i+1)
	r := t.runes[c]
	if !isBoxDrawing(r) || t.flags[prev]&flagLetter != 0 || t.flags[next]&flagLetter != 0 {
		return false
	}
	isSpace := func(b byte) bool { return b == ' ' || b == '\t' || b == '\n' || b == '\r' }
	switch {
	case prev == c || next == c:
		return true
	case r < 0x2580 && (isBoxLine(t.runes[prev]) && at(i-2) == prev || isBoxLine(t.runes[next]) && at(i+2) == next):
		return true
	}
	return isSpace(prev) && isSpace(next) && strings.ContainsRune("│║┃", r)
}

// isBoxDrawing reports the box-drawing and block characters of the DOS
// code pages (U+2500-U+259F).
func isBoxDrawing(r rune) bool { return r >= 0x2500 && r <= 0x259f }

// isBoxLine reports a box-drawing line, which corners and joints sit on.
func isBoxLine(r rune) bool { return strings.ContainsRune("─━│┃═║", r) }

// hasLetter reports a non-ASCII byte that t reads as a letter.
func hasLetter(t *sbTable, head []byte, pos []int) bool {
	for _, i := range pos {
		if t.flags[head[i]]&flagLetter != 0 {
			return true
		}
	}
	return false
}

// mostlyBoxes reports that t reads most of the non-ASCII bytes as box
// drawing.
func mostlyBoxes(t *sbTable, head []byte, pos []int) bool {
	n := 0
	for _, i := range pos {
		if isBoxDrawing(t.runes[head[i]]) {
			n++
		}
	}
	return n*2 > len(pos)
}

// isApostrophe reports what Western text puts between the letters of
// "user’s" and "don´t": the right single quote, and the acute accent
// that many typed for it (Windows-1252's 0xB4, which ISO-8859-10 reads
// as a Latvian letter).
func isApostrophe(r rune) bool { return r == '’' || r == '´' }

// repeats reports that head[i] is the third in a row of a byte, or ends
// the third in a row of a pair of bytes.
func repeats(head []byte, i int) bool {
	c := head[i]
	switch {
	case i >= 2 && head[i-1] == c && head[i-2] == c:
		return true
	case i >= 5 && head[i-2] == c && head[i-4] == c && head[i-1] == head[i-3] && head[i-3] == head[i-5]:
		return true
	}
	return false
}

// maxTypoTokenBytes bounds how far layoutTypo reads on each side of the
// letter for the rest of its token.
const maxTypoTokenBytes = 32

// layoutTypo reports a Cyrillic letter at head[i] that looks like a
// Latin one (latinLookalikes) and starts a token of ASCII otherwise,
// glued to an ASCII letter, digit, "+" or "#": "С++", "С#", "Сlass",
// "РHP". It is the classic typo of a Russian keyboard layout (its C key
// writes "С"), and evidence for the charsets that read the byte so:
// another charset's reading of it is rarely better (Mac Cyrillic's
// "—++", Windows-1252's "Ñ++"). Western letters that Windows-1251 reads
// as such a letter start words too ("Île", "Åke", "Être"), but among
// the Latin letters of a language that explains them better; a letter
// in the middle of a word ("España" as "Espaсa") or standing alone as
// one ("Mise à jour" as "Mise а jour") is no typo. A token longer than
// maxTypoTokenBytes on either side is taken as one that has no other
// non-ASCII byte beyond the bound.
func layoutTypo(t *sbTable, head []byte, i int) bool {
	if !strings.ContainsRune(latinLookalikes, t.runes[head[i]]) || i+1 >= len(head) {
		return false
	}
	if i > 0 {
		if p := head[i-1]; p >= 0x80 || isASCIIAlnum(rune(p)) {
			return false
		}
	}
	if n := head[i+1]; !isASCIIAlnum(rune(n)) && n != '+' && n != '#' {
		return false
	}
	isSpace := func(b byte) bool { return b <= ' ' }
	for j := i + 1; j < len(head) && j <= i+maxTypoTokenBytes && !isSpace(head[j]); j++ {
		if head[j] >= 0x80 {
			return false
		}
	}
	for j := i - 1; j >= 0 && j >= i-maxTypoTokenBytes && !isSpace(head[j]); j-- {
		if head[j] >= 0x80 {
			return false
		}
	}
	return true
}

// latinLookalikes are the Cyrillic letters that look like Latin ones:
// the capitals А В Е К М Н О Р С Т Х and the small letters а е о р с у х.
const latinLookalikes = "АВЕКМНОРСТХаеорсух"
