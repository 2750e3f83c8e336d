package textenc

import (
	"io"
	"slices"
)

// Broken double-byte pairs. A BBS post wrapped at a fixed width cuts a
// GBK or Big5 character in two at the line end, and an ANSI drawing whose
// colour changes mid-character ("\xa2\x1b[46m\xa9": ◣ with a colour code
// between its bytes) does the same at an escape sequence. No decoder reads
// such a pair: the lead byte is U+FFFD, and so is the cut-off trail byte
// when it cannot pair with the byte after it. Refusing the whole file for
// that loses a post or a drawing that is otherwise plainly Chinese, so a
// file that is clearly one double-byte charset is staged with U+FFFD
// exactly where the decoder puts it (Result.Replaced counts them), when:
//
//   - every broken pair has one of these shapes: a lead byte followed by
//     an escape, a CR or an LF (or the end of the file), or a byte that
//     cannot start a character right after one, with only escape
//     sequences and line breaks between them (the trail it was cut from),
//     or right after an escape sequence (the half of a block a drawing
//     colours apart: "\xa2\xaa\x1b[47m\xaa ");
//   - they are few: at most one per brokenPairRatio double-byte characters;
//   - and the sample, with the broken bytes blanked, decides as that very
//     charset by the usual rules, against every other reading.
//
// Any other undecodable byte (a lead before a space or a letter, a pair
// the charset leaves unmapped) still refuses the file, and valid UTF-8
// never gets here.

// brokenPairRatio bounds broken pairs: at most one per this many
// double-byte characters read. A wrapped post has at most one per line
// (one per 30 to 40 characters); an ANSI drawing whose colour codes split
// its blocks has up to one per seven.
const brokenPairRatio = 8

// brokenPairCharsets are the charsets whose broken pairs are tolerated:
// those of the BBS posts and MUD texts the rule is for.
var brokenPairCharsets = []string{"gbk", "big5"}

// pairScanner follows a double-byte charset's byte structure, as x/text's
// GB18030 and Big5 decoders do, and counts the characters, the broken
// pairs of a tolerated shape (cuts) and the undecodable bytes of any other
// shape (bad). It is an io.Writer, so the stream can be teed through it.
type pairScanner struct {
	big5 bool // Big5 trail bytes; otherwise GB18030's

	state    int  // 0: between characters; 1: after a lead byte; 2, 3: inside a GB18030 four-byte sequence
	leadCut  bool // the pending lead byte came right after a cut (it is the cut-off trail)
	leadEsc  bool // ... or right after an escape sequence (it may be a coloured half)
	afterCut bool // a cut was seen, and since then only escape sequences and line breaks
	esc      int  // 0: no escape; 1: after ESC; 2: inside a CSI sequence
	afterEsc bool // the last byte ended an escape sequence

	pos    int // bytes fed so far
	leadAt int // where the pending lead byte is
	lone   int // where the last byte read as U+FFFD is

	// drift: a cut-off trail byte paired with the byte after it, so the
	// characters up to the next ASCII byte are read out of step, as
	// whatever those byte pairs are in the charset (some nothing: more
	// U+FFFD, as the decoder writes them). driftPairs counts them, and
	// driftAt is where the last one starts.
	drift      bool
	driftPairs int
	driftAt    int

	chars, cuts, bad int
	fourByte         bool // a GB18030 four-byte sequence: the charset is gb18030, not gbk
}

func newPairScanner(name string) *pairScanner {
	return &pairScanner{big5: name == "big5"}
}

func (p *pairScanner) isTrail(c byte) bool {
	if p.big5 {
		return c >= 0x40 && c < 0x7f || c >= 0xa1 && c < 0xff
	}
	return c >= 0x40 && c < 0x7f || c >= 0x80 && c < 0xff
}

// Write feeds the raw bytes of the stream.
func (p *pairScanner) Write(b []byte) (int, error) {
	for _, c := range b {
		p.feed(c)
	}
	return len(b), nil
}

// feed takes the next byte of the stream.
func (p *pairScanner) feed(c byte) {
	at := p.pos
	p.pos++
	escEnded := p.afterEsc
	p.afterEsc = false
	switch p.state {
	case 1:
		switch {
		case p.isTrail(c):
			p.chars++
			p.state = 0
			if p.leadCut || p.drift {
				p.drift = true
				p.driftPairs++
				p.driftAt = p.leadAt
			}
			return
		case !p.big5 && c >= 0x30 && c <= 0x39:
			p.state = 2
			return
		}
		// The lead byte stands alone: U+FFFD, and c is read afresh.
		p.state = 0
		p.lone = p.leadAt
		switch {
		case p.leadCut || p.leadEsc:
			p.cuts++ // the trail of a cut pair, reading as a lead
		case c == 0x1b || c == '\r' || c == '\n':
			p.cuts++
			p.afterCut = true
		default:
			p.bad++
		}
	case 2:
		if c >= 0x81 && c < 0xff {
			p.state = 3
		} else {
			p.lone, p.state = p.leadAt, 0
			p.bad++ // not a four-byte sequence after all: refused
		}
		return
	case 3:
		if c >= 0x30 && c <= 0x39 {
			p.chars++
			p.fourByte = true
		} else {
			p.lone = p.leadAt
			p.bad++
		}
		p.state = 0
		return
	}
	switch {
	case c < 0x80:
		p.drift = false
		p.ascii(c)
	case c == 0x80 && !p.big5:
		p.chars++ // GBK's euro sign
		p.afterCut, p.esc = false, 0
	case c >= 0x81 && c < 0xff:
		p.state, p.leadCut, p.leadEsc, p.leadAt = 1, p.afterCut, escEnded, at
		p.afterCut, p.esc = false, 0
	default: // a byte no character starts with
		p.lone = at
		if p.afterCut || escEnded {
			p.cuts++
		} else {
			p.bad++
		}
		p.afterCut, p.esc = false, 0
	}
}

// ascii follows escape sequences and line breaks, which keep a cut's
// trail byte in reach; any other character ends that.
func (p *pairScanner) ascii(c byte) {
	switch {
	case c == 0x1b:
		p.esc = 1
		return
	case p.esc == 1:
		p.esc = 0
		if c == '[' {
			p.esc = 2
		} else {
			p.afterEsc = true // a two-byte escape ends here
		}
		return
	case p.esc == 2:
		if c >= 0x40 && c <= 0x7e {
			p.esc, p.afterEsc = 0, true // the final byte
		}
		return
	case c == '\r' || c == '\n':
		return
	}
	p.afterCut = false
}

// end settles what is pending at the end of the input: the end of a file
// cuts a character as a line end does.
func (p *pairScanner) end() {
	switch p.state {
	case 1:
		p.lone = p.leadAt
		p.cuts++ // cut by the end, or the trail of a cut pair
	case 2, 3:
		p.lone = p.leadAt
		p.bad++
	}
	p.state = 0
}

// fewBroken reports whether the broken pairs seen are all of a tolerated
// shape, and few (at most one per ratio double-byte characters), when the
// decoder wrote replaced U+FFFD: one for each cut, and perhaps some for
// pairs read out of step after one.
func (p *pairScanner) fewBroken(replaced, ratio int) bool {
	return p.bad == 0 && p.cuts > 0 && replaced >= p.cuts && replaced <= p.cuts+p.driftPairs &&
		replaced*ratio <= p.chars
}

// blankBroken returns a copy of the sample with every byte that the
// charset's decoder reads as U+FFFD replaced by a space, or nil when
// there is none, or when they are so many (more than the characters
// read) that the bytes are not that charset's text at all;
// tolerated says they are all broken pairs of a tolerated shape, and few
// (at most one per ratio double-byte characters). Unless atEOF, a byte
// pending at the end is left undecided, as decodeSample leaves it.
func blankBroken(name string, head []byte, atEOF bool, ratio int) (blanked []byte, tolerated bool) {
	p := newPairScanner(name)
	var out []byte
	blank := func(seen int) {
		if p.cuts+p.bad == seen {
			return
		}
		if out == nil {
			out = slices.Clone(head)
		}
		out[p.lone] = ' '
	}
	for _, c := range head {
		seen, drifted := p.cuts+p.bad, p.driftPairs
		p.feed(c)
		blank(seen)
		if p.driftPairs > drifted {
			// Characters read out of step are no evidence either way.
			if out == nil {
				out = slices.Clone(head)
			}
			out[p.driftAt], out[p.driftAt+1] = ' ', ' '
		}
	}
	if atEOF {
		seen := p.cuts + p.bad
		p.end()
		blank(seen)
	}
	if out == nil || p.cuts+p.bad > p.chars {
		return nil, false
	}
	return out, p.fewBroken(p.cuts, ratio)
}

// decideBroken tries the sample as each tolerated double-byte charset
// with its undecodable bytes blanked. The first whose blanked sample
// decides as itself decides the file: with U+FFFD where its pairs are
// broken (decodeBroken) when they are of a tolerated shape and few, and
// as undecodable otherwise, since the file is that charset's text and any
// other reading (a single-byte charset's "¢®¢i¢©" for a Big5 drawing's
// "◢█◣") is garbled.
func decideBroken(head []byte, atEOF, atStart bool) (decision, bool) {
	for _, name := range brokenPairCharsets {
		blanked, tolerated := blankBroken(name, head, atEOF, brokenPairRatio)
		if blanked == nil {
			continue
		}
		if d := decideSample(blanked, atEOF, atStart, false); d.err == nil && d.name == name {
			if !tolerated {
				return decision{err: ErrUndecodable}, true
			}
			d.broken = true
			return d, true
		}
	}
	return decision{}, false
}

// decodeBroken streams r as the double-byte charset c, letting through
// the U+FFFD of broken pairs, and then checks that the whole file kept to
// what the sample promised: every undecodable byte a broken pair of a
// tolerated shape, and at most one per ratio double-byte characters. It
// returns whether a GB18030 four-byte sequence occurred.
func decodeBroken(r io.Reader, c charset, ratio int, out *sink) (fourByte bool, err error) {
	p := newPairScanner(c.name)
	out.allowFFFD = true
	if err := decodeStream(io.TeeReader(r, p), c.enc, out); err != nil {
		return false, err
	}
	p.end()
	if !p.fewBroken(int(out.replaced), ratio) {
		// A pair the charset leaves unmapped, a lone byte of another
		// shape, or too many: what the decoder wrote is not only broken
		// pairs.
		return false, ErrUndecodable
	}
	return p.fourByte, nil
}
