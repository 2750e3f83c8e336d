package tokens

import (
	"bytes"
	"sync"
	"unicode/utf8"
	"unsafe"
)

// A text's count and its lines' counts share most of their work. The
// token index records each line's count as read_file shows the line:
// Count(" " + line + "\n"); files.json the text's, Count(text). Both
// split the same bytes, and they differ only near each line's ends.
//
// The pre-tokenizer reads forward only: from a position where both
// scans resume (a piece of each ends there), it finds the same pieces in
// both as long as the bytes agree, and the line's copy and the text agree
// through the line's newline. A piece that does not hold that newline is
// decided by the bytes before it and the newline itself, never by what
// follows it (words, numbers and punctuation stop at a newline, a
// whitespace run that reaches one is a newline piece, and `\s+(?!\S)`
// and `\s+` match only where no newline piece does: see Cut). So a
// line's count is its copy's first piece (the leading space joins the
// first word or indentation, or stands alone), the text's pieces from
// where that piece ends, if the text's scan resumes there too, to the
// last place the text's scan resumes before the piece holding the
// newline (tail), and the pieces from tail through the newline. Those
// last are the text's own piece when it starts at tail and ends with the
// newline; otherwise the text from tail to the newline is scanned again:
// the copy's bytes from tail on are the text's, cut after the newline,
// so no copy is made for it. A line without a newline (the text's last)
// or whose copy's first piece meets no place the text's scan resumes
// before the newline is counted whole, from its copy. TestCountLinesExact
// and FuzzCountLines compare it with Count.

// CountLines returns Count(text) and calls line for each line of text in
// order (split at '\n'; a last line without one is a line too) with its
// length in bytes, without the newline, and Count(" " + line + "\n"), or
// -1 for a line longer than maxLine bytes, which is not counted. ok is
// false, and nothing is called, when text is not valid UTF-8: Count maps
// each invalid byte to U+FFFD, which the shared scan does not. Safe for
// concurrent use.
func CountLines(text []byte, maxLine int, line func(length, count int)) (whole int, ok bool) {
	if !utf8.Valid(text) {
		return 0, false
	}
	s := unsafe.String(unsafe.SliceData(text), len(text))
	tab, v := bmpClasses(), theVocab()
	e := encoders.Get().(*encoder)
	defer encoders.Put(e)
	c := lineCounts{tab: tab, v: v, e: e}
	defer c.release()

	next := 0 // where the text's scan resumes
	start, end := nextPiece(tab, s, 0)
	for ls := 0; ls < len(s); {
		le := ls + bytes.IndexByte(text[ls:], '\n')
		if le < ls {
			le = len(s) // the last line, without a newline
		}
		// shared: the line is counted from the text's scan, which needs
		// its newline; at and headN are its copy's first piece, at as a
		// position of the text (p in the copy is ls-1+p in the text).
		shared := le < len(s) && le-ls <= maxLine && le > ls
		at, headN, headWhole := -1, 0, false
		if shared {
			at, headN, headWhole = c.head(s[ls:le], ls)
		}
		// met: the text's scan resumes at at too, with whole at cumAt;
		// tail: the last place it resumes at or before le, cumTail there.
		met, cumAt := next == at && next <= le, whole
		for start < end && end <= le {
			whole += countPiece(v, e, s[start:end])
			if end == at {
				met, cumAt = true, whole
			}
			next = end
			start, end = nextPiece(tab, s, end)
		}
		tail, cumTail := -1, whole
		if next >= ls && next <= le {
			tail = next
		}
		nl, nlEnd, nlN := -1, -1, 0 // the text's piece that holds the newline
		if start < end && start <= le {
			nl, nlEnd, nlN = start, end, countPiece(v, e, s[start:end])
			whole += nlN
			next = end
			start, end = nextPiece(tab, s, end)
		}
		switch {
		case le-ls > maxLine:
			line(le-ls, -1)
		case le == ls && le < len(s):
			line(0, emptyLineTokens())
		case headWhole:
			line(le-ls, headN) // the copy is one piece
		case met:
			n := headN + cumTail - cumAt
			if nl == tail && nlEnd == le+1 {
				n += nlN // the text's newline piece is the copy's
			} else {
				n += c.from(s[:le+1], tail)
			}
			line(le-ls, n)
		default:
			line(le-ls, c.whole(s[ls:le]))
		}
		ls = le + 1
	}
	return whole, true
}

// emptyLineTokens is Count(" \n"), an empty line's count.
var emptyLineTokens = sync.OnceValue(func() int { return Count(" \n") })

// maxKeptLineBytes bounds the copy buffer an encoder keeps between texts.
const maxKeptLineBytes = 64 << 10

// lineCounts counts lines' copies for CountLines with one encoder, whose
// line buffer holds the copy.
type lineCounts struct {
	tab *[1 << 16]uint8
	v   *vocab
	e   *encoder
}

// copyOf is the line's copy as read_file shows it.
func (c *lineCounts) copyOf(line string) string {
	n := len(line) + 2
	if cap(c.e.line) < n {
		c.e.line = make([]byte, n+n/4)
	}
	a := c.e.line[:n]
	a[0], a[n-1] = ' ', '\n'
	copy(a[1:], line)
	return unsafe.String(unsafe.SliceData(a), n)
}

// release drops a large copy buffer rather than keep it in the pool.
func (c *lineCounts) release() {
	if cap(c.e.line) > maxKeptLineBytes {
		c.e.line = nil
	}
}

// head returns the end of the first piece of line's copy, as a position
// of the text (the line starts at ls), and its count; whole says that
// piece is the whole copy. The copy starts with a space, which always
// starts a piece.
func (c *lineCounts) head(line string, ls int) (at, n int, whole bool) {
	a := c.copyOf(line)
	_, end := nextPiece(c.tab, a, 0)
	return ls - 1 + end, countPiece(c.v, c.e, a[:end]), end == len(a)
}

// whole counts the line's copy from its start.
func (c *lineCounts) whole(line string) int {
	return c.from(c.copyOf(line), 0)
}

// from counts the pieces of a from position i on.
func (c *lineCounts) from(a string, i int) int {
	n := 0
	for start, end := nextPiece(c.tab, a, i); start < end; start, end = nextPiece(c.tab, a, end) {
		n += countPiece(c.v, c.e, a[start:end])
	}
	return n
}
