package textenc

import (
	"bytes"
	"encoding/binary"
	"io"
	"math/bits"
	"unicode/utf8"

	"github.com/repoprep/repoprep/internal/tokens"
)

const (
	// flushBytes is how much normalized text the sink gathers before writing.
	flushBytes = 32 << 10
	// tokenBatchBytes is the size of the line-aligned batches handed to the
	// tokenizer; counting per batch keeps memory bounded, and cutting where
	// tokens.Cut says keeps the sum equal to the whole-file count.
	tokenBatchBytes = 64 << 10
	// tokenMaxPendingBytes bounds a batch that has no newline at all (a
	// minified file): it is cut at a rune boundary instead.
	tokenMaxPendingBytes = 1 << 20
	// maxControlShare is the share of control characters (other than tab,
	// newline, CR, form feed, vertical tab and escape) above which the text
	// is called binary: 1 in 50.
	maxControlShare = 50
	// maxUTF8ControlShare is the same for valid UTF-8: one in four.
	maxUTF8ControlShare = 4
)

// sink receives decoded text in arbitrary chunks and writes it out
// normalized: CRLF and lone CR become LF, and every rune is checked. It
// accepts only valid UTF-8; legacy decoders always emit it, so an invalid
// byte can only come from input that claimed to be UTF-8.
type sink struct {
	dst        io.Writer
	res        *Result
	keepFFFD   bool // the source is UTF-8, so a U+FFFD in it is the author's, not ours
	allowFFFD  bool // a double-byte source with broken pairs: the decoder's U+FFFD are counted in replaced (brokenpairs.go)
	replaced   int64
	skipTokens bool         // leave Result.Tokens at 0 (NormalizeUncounted)
	batches    BatchCounter // counts the token batches when not nil (Options.Batches)

	chunk []byte // pump's read buffer, kept by a Normalizer; nil: pump makes one

	afterCR bool   // the last byte written was a CR, so a leading LF is its pair
	carry   []byte // an incomplete rune left at the end of the last chunk
	out     []byte // normalized text not yet written
	lastOut byte   // last byte written, to count a final line without LF

	moji     mojibakeState
	runes    int64
	nonASCII int64
	controls int64

	pending []byte // normalized text not yet counted by the tokenizer
}

func newSink(dst io.Writer, res *Result) *sink {
	return &sink{dst: dst, res: res, out: make([]byte, 0, flushBytes+utf8.UTFMax+1)}
}

// write checks and normalizes b. atEOF says no more input follows, so an
// incomplete rune at the end of b is an error rather than carried over.
func (s *sink) write(b []byte, atEOF bool) error {
	if len(s.carry) > 0 {
		// Complete the carried rune with the first bytes of b; at most 3 bytes
		// are copied, never the whole chunk.
		need := min(utf8.UTFMax-len(s.carry), len(b))
		joined := append(s.carry, b[:need]...)
		if !utf8.FullRune(joined) && !atEOF {
			s.carry = joined
			return nil
		}
		_, size := utf8.DecodeRune(joined)
		if size <= len(s.carry) { // the carried bytes never form a rune
			return s.invalid()
		}
		used := size - len(s.carry)
		s.carry = s.carry[:0]
		if err := s.scan(joined[:size], atEOF && used == len(b)); err != nil {
			return err
		}
		b = b[used:]
	}
	return s.scan(b, atEOF)
}

// scan processes b, which starts at a rune boundary.
func (s *sink) scan(b []byte, atEOF bool) error {
	for i := 0; i < len(b); {
		if len(s.out) >= flushBytes {
			if err := s.flush(); err != nil {
				return err
			}
		}
		c := b[i]
		if plainASCII[c] && !s.afterCR && !scanByteByByte {
			// A run of ASCII that needs nothing done: copied at once, up
			// to where the gathered text is due to be flushed.
			end := min(len(b), i+flushBytes-len(s.out))
			j := i + 1 + plainPrefix(b[i+1:end])
			s.moji.asciiRun(b[i:j])
			s.runes += int64(j - i)
			if len(s.out) == 0 && (j-i == flushBytes || j == len(b) && atEOF) {
				// The whole flush, or the rest of the text, is b's own
				// bytes: written from b, as flush would write its copy.
				if err := s.emit(b[i:j]); err != nil {
					return err
				}
				i = j
				continue
			}
			s.out = append(s.out, b[i:j]...)
			i = j
			continue
		}
		if c < utf8.RuneSelf {
			i++
			switch {
			case c == '\r':
				s.res.CRLF = true
				s.out = append(s.out, '\n')
				s.afterCR = true
				s.moji.ascii(c)
				s.runes++
				continue
			case c == '\n':
				if s.afterCR {
					s.afterCR = false
					continue // second half of a CRLF
				}
			case c == 0:
				return ErrBinary
			case isControl(rune(c)):
				s.controls++
			}
			s.afterCR = false
			s.moji.ascii(c)
			s.runes++
			s.out = append(s.out, c)
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			if !atEOF && !utf8.FullRune(b[i:]) {
				s.carry = append(s.carry[:0], b[i:]...)
				break
			}
			return s.invalid()
		}
		if r == utf8.RuneError && !s.keepFFFD {
			if !s.allowFFFD {
				return ErrUndecodable
			}
			s.replaced++
		}
		if isControl(r) {
			s.controls++
		}
		s.nonASCII++
		// A decoding that makes mojibake is wrong at once; UTF-8 input is
		// the author's own and is judged by density at close.
		if s.moji.feed(r) && !s.keepFFFD {
			return ErrMojibake
		}
		s.afterCR = false
		s.runes++
		s.out = append(s.out, b[i:i+size]...)
		i += size
	}
	if atEOF && len(s.carry) > 0 {
		return s.invalid()
	}
	if len(s.out) >= flushBytes {
		return s.flush()
	}
	return nil
}

// invalid is the error for bytes that are not UTF-8: UTF-8 input with
// errors, or (never expected) a decoder that wrote them.
func (s *sink) invalid() error {
	if s.keepFFFD {
		return ErrInvalidUTF8
	}
	return ErrUndecodable
}

// flush writes the gathered text to dst and hands it to the token counter.
func (s *sink) flush() error {
	if len(s.out) == 0 {
		return nil
	}
	if err := s.emit(s.out); err != nil {
		return err
	}
	s.out = s.out[:0]
	return nil
}

// emit writes p, normalized text that is due (a flush's), to dst and
// hands it to the token counter; p is not empty.
func (s *sink) emit(p []byte) error {
	n, err := s.dst.Write(p)
	s.res.Bytes += int64(n)
	if err != nil {
		return err
	}
	s.res.Lines += bytes.Count(p, []byte{'\n'})
	s.lastOut = p[len(p)-1]
	s.countTokens(p, false)
	return nil
}

// countTokens adds b to the pending batch and counts whole lines once the
// batch is large enough; final counts everything left.
func (s *sink) countTokens(b []byte, final bool) {
	if s.skipTokens {
		return
	}
	s.pending = append(s.pending, b...)
	for len(s.pending) >= tokenBatchBytes || (final && len(s.pending) > 0) {
		cut := len(s.pending)
		if !final || len(s.pending) > tokenBatchBytes {
			cut = tokens.BatchEnd(s.pending, tokenMaxPendingBytes)
			if cut == 0 {
				if !final {
					return // wait for a newline or for the cap
				}
				cut = len(s.pending)
			}
		}
		if s.batches != nil {
			s.res.Tokens += s.batches.CountBatch(s.pending[:cut], final && cut == len(s.pending))
		} else {
			s.res.Tokens += tokens.CountBytes(s.pending[:cut])
		}
		s.pending = append(s.pending[:0], s.pending[cut:]...)
	}
}

// close flushes what is left and applies the whole-file checks.
func (s *sink) close() error {
	if len(s.carry) > 0 {
		return ErrUndecodable
	}
	if err := s.flush(); err != nil {
		return err
	}
	s.countTokens(nil, true)
	if s.res.Bytes > 0 && s.lastOut != '\n' {
		s.res.Lines++
	}
	share := int64(maxControlShare)
	if s.res.Encoding == "utf-8" || s.res.Declared != "" && !s.res.DeclaredIgnored {
		// Valid UTF-8 (or ASCII), or a charset the file declares, is
		// refused only when controls are a good part of it: a vim keymap
		// holds a literal ^V on every line. A detected legacy reading
		// thick with controls is binary read as a single-byte charset.
		share = maxUTF8ControlShare
	}
	if s.controls*share > s.runes {
		return ErrBinary
	}
	if s.keepFFFD && s.moji.isMojibakeUTF8(s.nonASCII) {
		s.res.Mojibake = true // valid UTF-8: flagged, never refused
	}
	return nil
}

// plainASCII holds the bytes scan copies as they are: ASCII that is not a
// control character (isControl), NUL or CR. LF is among them, but only
// where no CR precedes it.
var plainASCII = func() (t [256]bool) {
	for c := range utf8.RuneSelf {
		t[c] = c != 0 && c != '\r' && !isControl(rune(c))
	}
	return t
}()

// plainPrefix returns how many of b's first bytes are plainASCII, eight
// at a time: each byte's tests are exact (no carry or borrow crosses a
// byte), so the lowest flagged byte is the first that is not plain.
func plainPrefix(b []byte) int {
	const (
		ones = 0x0101010101010101
		high = 0x8080808080808080
	)
	// isByte flags the bytes of x equal to c.
	isByte := func(x uint64, c byte) uint64 {
		y := x ^ ones*uint64(c)
		return ^((y&^high + ones*0x7f) | y) & high
	}
	i := 0
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		low := x | high // each byte's low seven bits, over a set top bit: no borrow crosses it
		under20 := ^(low - ones*0x20) & high
		tabToFF := (low - ones*0x09) & ^(low - ones*0x0d) & high // 0x09-0x0C: \t \n \v \f
		bad := x&high | under20&^(tabToFF|isByte(x, 0x1b)) | isByte(x, 0x7f)
		if bad != 0 {
			return i + bits.TrailingZeros64(bad)/8
		}
	}
	for ; i < len(b) && plainASCII[b[i]]; i++ {
	}
	return i
}

// scanByteByByte turns scan's ASCII runs off: the tests' reference.
var scanByteByByte = false

// isControl reports a control character that plain text has no business
// holding: C0 controls other than \t \n \v \f \r and ESC (kept for ANSI
// colours in logs), DEL, and the C1 range.
func isControl(r rune) bool {
	switch {
	case r < 0x20:
		return r != '\t' && r != '\n' && r != '\v' && r != '\f' && r != '\r' && r != 0x1b
	case r == 0x7f:
		return true
	case r >= 0x80 && r < 0xa0:
		return true
	}
	return false
}
