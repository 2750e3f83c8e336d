package textenc

import (
	"encoding/binary"
	"math/bits"
	"sync"
	"unicode"
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
// feed reports a hit at once, which is how a candidate decoding is judged.
// Valid UTF-8 input is the author's own text and is judged at the end by
// isMojibakeUTF8, from what feed and ascii gathered.
type mojibakeState struct {
	weak int // hits that a rare legitimate text could also produce

	// For the end-of-text judgement of UTF-8 input:
	ring     [8]rune // the last runes, ASCII included; ring[(n-1)&7] is the newest
	n        uint    // runes pushed
	pending  int     // runes of a hit waiting for the rune after it
	pendLead bool    // that hit was preceded by a letter
	embedded int     // runes inside hits that sit in a word (see isMojibakeUTF8)
	kjkEnd   uint    // n just after the last 锟斤拷 (0: none yet)
	gbkRun   bool    // 锟斤拷 twice in a row, or 烫 or 屯 four times: the garbage itself, never a mention
}

// weakHitsLimit is how many weak hits make text mojibake: one "Ö’" may be
// real, two such pairs are not.
const weakHitsLimit = 2

// ascii records an ASCII rune: it ends any non-ASCII run, and settles
// whether a hit just before it was inside a word. It is called for every
// ASCII byte of UTF-8 input, so it stays small enough to inline.
func (m *mojibakeState) ascii(c byte) {
	if m.pending > 0 {
		m.settle(rune(c))
	}
	m.ring[m.n&7] = rune(c)
	m.n++
}

// asciiRun is ascii on each byte of b, in order.
func (m *mojibakeState) asciiRun(b []byte) {
	if len(b) == 0 {
		return
	}
	if m.pending > 0 {
		m.settle(rune(b[0])) // which leaves nothing pending for the rest
	}
	skip := max(0, len(b)-len(m.ring)) // bytes the ring would lose again
	n := m.n + uint(skip)
	for _, c := range b[skip:] {
		m.ring[n&7] = rune(c)
		n++
	}
	m.n += uint(len(b))
}

// push records r in the context window and settles a pending hit by it.
func (m *mojibakeState) push(r rune) {
	if m.pending > 0 {
		m.settle(r)
	}
	m.ring[m.n&7] = r
	m.n++
}

// settle decides whether the pending hit was inside a word, now that r
// follows it. Rare, so kept out of line for ascii's sake.
//
//go:noinline
func (m *mojibakeState) settle(r rune) {
	if m.pendLead || isWordRune(r) {
		m.embedded += m.pending
	}
	m.pending = 0
}

// back returns the rune k places before the newest (0: the newest).
func (m *mojibakeState) back(k int) rune {
	if uint(k) >= m.n {
		return 0
	}
	return m.ring[(m.n-1-uint(k))&7]
}

// hit records a hit of n runes ending at the newest rune: whether it sits
// in a word is known once the next rune arrives.
func (m *mojibakeState) hit(n int) {
	if m.pending > 0 { // hits that touch each other are in one word
		m.embedded += m.pending
		m.pending = 0
		m.pendLead = true
	} else {
		m.pendLead = isWordRune(m.back(n))
	}
	m.pending = n
}

func isWordRune(r rune) bool { return r != 0 && (unicode.IsLetter(r) || unicode.IsDigit(r)) }

// feed adds a non-ASCII rune r and reports whether the text is now known to
// be mojibake.
func (m *mojibakeState) feed(r rune) bool {
	m.push(r)
	// An ASCII rune in between is in the window as itself, which no
	// pattern matches: sequences never span it.
	p0, p1, p2 := m.back(1), m.back(2), m.back(3)
	switch {
	case r == '拷' && p0 == '斤' && p1 == '锟':
		m.gbkRun = m.gbkRun || m.kjkEnd > 0 && m.n-m.kjkEnd == 3 // right after another 锟斤拷
		m.kjkEnd = m.n
		m.hit(3)
		return true
	case (r == '烫' || r == '屯') && p0 == r && p1 == r:
		m.gbkRun = m.gbkRun || p2 == r
		m.hit(3)
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
		m.hit(4)
		return true
	case ok0 && ok1 && b1 >= 0xe0 && b1 < 0xf0 && utf8.Valid([]byte{b1, b0, c}):
		m.hit(3)
		return true
	case ok0 && b0 >= 0xc2 && b0 < 0xe0 && utf8.Valid([]byte{b0, c}):
		m.hit(2)
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

// Valid UTF-8 input is judged by what its hits look like, not by one hit: a
// test that checks a MIME decoder with "foo-Ã¤.html", a comment reading
// "2×½ + 3×¼", or a README that lists 锟斤拷 and "Ã©" as examples, is the
// author's text. Garbled text differs in two ways. Its hits sit inside
// words: "Café" garbled has the letter f before its "Ã©", and a garbled
// Russian or Chinese word is hits back to back, where a mention stands
// alone between quotes, spaces or punctuation. And lost Chinese leaves
// runs (锟斤拷 repeated, 烫 or 屯 four times and more) where a document
// names the pattern once. So UTF-8 text is
// mojibake with such a run, or when at least mojibakeMinRunes runes sit in
// in-word hits and make 1/mojibakeShare or more of its non-ASCII runes.
const (
	mojibakeMinRunes = 3
	mojibakeShare    = 3
)

// isMojibakeUTF8 gives the verdict once the whole text has been fed.
func (m *mojibakeState) isMojibakeUTF8(nonASCII int64) bool {
	embedded := m.embedded
	if m.pending > 0 && m.pendLead { // a hit at the very end of the text
		embedded += m.pending
	}
	return m.gbkRun || embedded >= mojibakeMinRunes && int64(embedded)*mojibakeShare >= nonASCII
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

// UTF-8 text misread as any single-byte charset, not only Windows-1252:
// "РџСЂРёРІРµС‚" is Russian UTF-8 read as Windows-1251, "п═я─п╦п╡п╣я┌" the same
// read as KOI8-R, "ĂĄ" Hungarian UTF-8 read as ISO-8859-2. Every non-ASCII
// character of the original turned into two to four characters whose bytes
// in the misreading charset form a UTF-8 sequence, so in such text each run
// of non-ASCII characters is, in that charset, UTF-8 sequences back to back
// from its first character to its last. Real text has such sequences now and
// then, by chance, but seldom whole runs of them: Russian "Шерлок" is
// 98 A5 E0 AB AE AA in code page 866, whose last four bytes are a sequence
// and whose first is not, and counting the sequences alone refused a README
// that named Sherlock twice. A whole word does tile by chance ("рад" is
// E0 A0 A4 in code page 866), but not most of the words of a text.

// mojibakeCharsets are the charsets the check reads text back into: those
// UTF-8 is commonly misread as.
var mojibakeCharsets = []*charmap.Charmap{
	charmap.Windows1252, charmap.Windows1250, charmap.Windows1251, charmap.Windows1253,
	charmap.Windows1254, charmap.Windows1255, charmap.Windows1256, charmap.Windows1257,
	charmap.ISO8859_1, charmap.ISO8859_2, charmap.ISO8859_5, charmap.ISO8859_7, charmap.ISO8859_15,
	charmap.KOI8R, charmap.KOI8U, charmap.CodePage437, charmap.CodePage850, charmap.CodePage866,
	charmap.Macintosh, charmap.MacintoshCyrillic,
}

// utf8Roles tells, per rune, in which of mojibakeCharsets (bit k) its byte
// is a UTF-8 lead of a 2-, 3- or 4-byte sequence, or a continuation byte.
type utf8Roles struct{ lead2, lead3, lead4, cont uint32 }

// runeRoles holds the roles of runes below roleTableRunes in a table (the
// Latin, Greek, Cyrillic, Hebrew, Arabic, Thai letters and the punctuation,
// math and box drawing of the code pages), of the few above in a map.
type runeRoleSet struct {
	table []utf8Roles
	more  map[rune]utf8Roles
}

const roleTableRunes = 0x2600

func (s *runeRoleSet) of(r rune) utf8Roles {
	if r < roleTableRunes {
		return s.table[r]
	}
	return s.more[r]
}

var runeRoles = sync.OnceValue(func() *runeRoleSet {
	s := &runeRoleSet{table: make([]utf8Roles, roleTableRunes), more: map[rune]utf8Roles{}}
	for k, cm := range mojibakeCharsets {
		bit := uint32(1) << k
		for b := 0x80; b < 0x100; b++ {
			r := cm.DecodeByte(byte(b))
			if r == utf8.RuneError {
				continue
			}
			x := s.of(r)
			switch {
			case b < 0xc0:
				x.cont |= bit
			case b >= 0xc2 && b < 0xe0:
				x.lead2 |= bit
			case b >= 0xe0 && b < 0xf0:
				x.lead3 |= bit
			case b >= 0xf0 && b < 0xf5:
				x.lead4 |= bit
			}
			if r < roleTableRunes {
				s.table[r] = x
			} else {
				s.more[r] = x
			}
		}
	}
	return s
})

// Thresholds of the check: at least mojibakeMinCovered non-ASCII runes, and
// at least 1/mojibakeCoverShare of them, in runs tiled by sequences of one
// charset.
const (
	mojibakeMinCovered = 4
	mojibakeCoverShare = 2
)

// isMisreadUTF8 reports text most of whose non-ASCII characters are in runs
// that are UTF-8 sequences read as one of mojibakeCharsets.
func isMisreadUTF8(text string) bool {
	m := newMisreadScan()
	for _, r := range text {
		m.feed(r)
	}
	return m.verdict()
}

// isMisreadUTF8Bytes is isMisreadUTF8 on valid UTF-8 bytes, without a copy.
func isMisreadUTF8Bytes(b []byte) bool {
	m := newMisreadScan()
	for len(b) > 0 {
		if b[0] < utf8.RuneSelf {
			m.endRun()
			b = b[asciiPrefix(b):]
			continue
		}
		r, n := utf8.DecodeRune(b)
		m.feed(r)
		b = b[n:]
	}
	return m.verdict()
}

// asciiPrefix returns the length of b's leading run of ASCII bytes.
func asciiPrefix(b []byte) int {
	i := 0
	for ; i+8 <= len(b); i += 8 {
		if binary.LittleEndian.Uint64(b[i:])&0x8080808080808080 != 0 {
			break
		}
	}
	for i < len(b) && b[i] < utf8.RuneSelf {
		i++
	}
	return i
}

// misreadScan counts, per charset, the non-ASCII runes in runs that the
// charset's bytes tile with UTF-8 sequences. Bit k of each mask is charset
// k's state in the current run: at a sequence boundary, or one, two or
// three continuation bytes short of one; a charset in none of them has
// failed the run.
type misreadScan struct {
	covered             [32]int
	boundary            uint32
	need1, need2, need3 uint32
	run                 int // non-ASCII runes in the current run
	nonASCII            int
}

func newMisreadScan() *misreadScan { return &misreadScan{boundary: ^uint32(0)} }

func (m *misreadScan) feed(r rune) {
	if r < utf8.RuneSelf {
		m.endRun()
		return
	}
	m.nonASCII++
	m.run++
	cur := runeRoles().of(r)
	b := m.boundary
	m.boundary = m.need1 & cur.cont
	m.need1 = m.need2&cur.cont | b&cur.lead2
	m.need2 = m.need3&cur.cont | b&cur.lead3
	m.need3 = b & cur.lead4
}

// endRun credits the run that just ended to each charset that tiles it.
func (m *misreadScan) endRun() {
	if m.run == 0 {
		return
	}
	for k := m.boundary; k != 0; k &= k - 1 {
		m.covered[bits.TrailingZeros32(k)] += m.run
	}
	m.boundary, m.need1, m.need2, m.need3, m.run = ^uint32(0), 0, 0, 0, 0
}

func (m *misreadScan) verdict() bool {
	m.endRun()
	for _, n := range m.covered {
		if n >= mojibakeMinCovered && n*mojibakeCoverShare >= m.nonASCII {
			return true
		}
	}
	return false
}
