package textenc

import (
	"unicode/utf8"

	"golang.org/x/text/encoding/charmap"
)

// mojibakeState recognises text that was garbled before it reached us, one
// rune at a time so it works across chunk boundaries:
//
//   - 锟斤拷: U+FFFD U+FFFD in UTF-8 read as GBK;
//   - 烫烫烫 and 屯屯屯: MSVC's uninitialised stack (0xCC) and heap (0xCD)
//     bytes read as GBK;
//   - UTF-8 read as Windows-1252 or Latin-1 ("Ã©" for é, "â€™" for ’,
//     "Ð¿" for п, "ä¸­" for 中): runes whose Windows-1252 bytes form a
//     valid multi-byte UTF-8 sequence.
//
// Only non-ASCII runs are tracked; an ASCII rune resets the state.
type mojibakeState struct {
	prev [3]rune // prev[0] is the rune just before, prev[2] three runes back
	weak int     // hits that a rare legitimate text could also produce
	hits int     // Latin-1-style hits, strong or weak: the density test for UTF-8 input
	gbk  bool    // 锟斤拷, 烫烫烫 or 屯屯屯 seen: unmistakable in any input
}

// weakHitsLimit is how many weak hits make text mojibake: one "Ö’" may be
// real, two such pairs are not.
const weakHitsLimit = 2

func (m *mojibakeState) reset() { m.prev = [3]rune{} }

// feed adds r and reports whether the text is now known to be mojibake.
func (m *mojibakeState) feed(r rune) bool {
	p0, p1, p2 := m.prev[0], m.prev[1], m.prev[2]
	m.prev = [3]rune{r, p0, p1}
	switch {
	case r == '拷' && p0 == '斤' && p1 == '锟':
		m.gbk = true
		return true
	case (r == '烫' || r == '屯') && p0 == r && p1 == r:
		m.gbk = true
		return true
	}
	c, ok := cp1252Byte(r)
	if !ok || c >= 0xc0 { // only a continuation byte (0x80-0xBF) can end a sequence
		return false
	}
	b0, ok0 := cp1252Byte(p0)
	b1, ok1 := cp1252Byte(p1)
	b2, ok2 := cp1252Byte(p2)
	switch {
	case ok0 && ok1 && ok2 && b2 >= 0xf0 && utf8.Valid([]byte{b2, b1, b0, c}):
		m.hits += 2 // three or four runes in a row that re-encode: strong evidence
		return true
	case ok0 && ok1 && b1 >= 0xe0 && b1 < 0xf0 && utf8.Valid([]byte{b1, b0, c}):
		m.hits += 2
		return true
	case ok0 && b0 >= 0xc2 && b0 < 0xe0 && utf8.Valid([]byte{b0, c}):
		m.hits++
		// Â, Ã, Ð and Ñ lead almost all real cases (Latin-1 punctuation,
		// é-type letters, Cyrillic) and never precede a symbol in real text.
		if b0 == 0xc2 || b0 == 0xc3 || b0 == 0xd0 || b0 == 0xd1 {
			return true
		}
		m.weak++
		return m.weak >= weakHitsLimit
	}
	return false
}

// Valid UTF-8 input is judged by density, not by one Latin-1-style hit: a
// test that checks a MIME decoder with "foo-Ã¤.html" among other non-ASCII
// text, or a comment reading "2×½ + 3×¼", is the author's text. A text
// garbled as a whole has a hit for nearly every accented letter:
// mojibakeMinHits hits that make at least 1/mojibakeShare of its non-ASCII
// runes mark it. The GBK markers need no density: nobody writes 锟斤拷.
const (
	mojibakeMinHits = 2
	mojibakeShare   = 8
)

// isMojibakeUTF8 applies the test after a whole valid UTF-8 text.
func (m *mojibakeState) isMojibakeUTF8(nonASCII int64) bool {
	return m.gbk || m.hits >= mojibakeMinHits && int64(m.hits)*mojibakeShare >= nonASCII
}

// cp1252Byte returns the byte that r has in Windows-1252's upper half, with
// C1 controls standing for themselves (as Latin-1 decoders leave them).
func cp1252Byte(r rune) (byte, bool) {
	if r >= 0x80 && r <= 0xff {
		return byte(r), true
	}
	if r < 0x100 {
		return 0, false
	}
	c, ok := cp1252High[r]
	return c, ok
}

// cp1252High maps the runes Windows-1252 puts at 0x80-0x9F (€, ’, “, ...)
// back to their bytes.
var cp1252High = func() map[rune]byte {
	m := make(map[rune]byte, 32)
	for c := 0x80; c < 0xa0; c++ {
		if r := charmap.Windows1252.DecodeByte(byte(c)); r != utf8.RuneError {
			m[r] = byte(c)
		}
	}
	return m
}()
