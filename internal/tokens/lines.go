package tokens

import (
	"bytes"
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
// line's count is the pieces of its copy up to the first position where
// both scans resume (usually after one piece: the leading space joins
// the first word or indentation), the text's pieces from there to the
// last place the text's scan resumes before the piece holding the
// newline, and the pieces of the copy from there to its end. A line
// without a newline (the text's last) or whose scans never meet before
// the newline is counted whole. TestCountLinesExact and FuzzCountLines
// compare it with Count.

// piece is one piece of the text's scan: where it ends (the scan resumes
// there) and its count.
type piece struct{ end, n int }

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
	lc := lineCounts{tab: tab, v: v, e: e}

	var pieces []piece // the text's pieces that start in the current line
	next := 0          // where the text's scan resumes
	start, end := nextPiece(tab, s, 0)
	for ls := 0; ls < len(s); {
		le := ls + bytes.IndexByte(text[ls:], '\n')
		if le < ls {
			le = len(s) // the last line, without a newline
		}
		resumesAtStart := next == ls // a piece of the text ends where the line starts
		pieces = pieces[:0]
		for start < end && start <= le {
			n := countPiece(v, e, s[start:end])
			whole += n
			if le-ls <= maxLine {
				pieces = append(pieces, piece{end, n})
			}
			next = end
			start, end = nextPiece(tab, s, end)
		}
		switch {
		case le-ls > maxLine:
			line(le-ls, -1)
		case le == len(s):
			line(le-ls, lc.whole(s[ls:le]))
		default:
			line(le-ls, lc.line(s[ls:le], ls, resumesAtStart, pieces))
		}
		ls = le + 1
	}
	return whole, true
}

// lineCounts counts lines' copies for CountLines with one encoder.
type lineCounts struct {
	tab *[1 << 16]uint8
	v   *vocab
	e   *encoder
	buf []byte // " " + line + "\n"
}

// copyOf is the line's copy as read_file shows it.
func (c *lineCounts) copyOf(line string) string {
	c.buf = append(append(append(c.buf[:0], ' '), line...), '\n')
	return unsafe.String(unsafe.SliceData(c.buf), len(c.buf))
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

// line counts the copy of line, which starts at ls in the text and ends
// in a newline there, taking what it can from the text's pieces that
// start in it (pieces; resumesAtStart says the text's scan resumes at ls).
// A position p of the text is p-ls+1 in the copy.
func (c *lineCounts) line(line string, ls int, resumesAtStart bool, pieces []piece) int {
	a := c.copyOf(line)
	le := ls + len(line)
	// tail: the last place the text's scan resumes before the piece that
	// holds the newline at le; k pieces end there or before.
	tail, k := -1, 0
	if resumesAtStart {
		tail = ls
	}
	for k < len(pieces) && pieces[k].end <= le {
		tail = pieces[k].end
		k++
	}
	if tail < 0 {
		return c.from(a, 0)
	}
	// head: the copy's pieces up to the first place both scans resume.
	head, j := 0, 0 // j: the text's pieces that end before the copy's scan
	for start, end := nextPiece(c.tab, a, 0); start < end; start, end = nextPiece(c.tab, a, end) {
		head += countPiece(c.v, c.e, a[start:end])
		at := ls - 1 + end // where the copy's scan resumes, in the text
		if at > tail {
			break // the scans do not meet before the newline's piece
		}
		if at == ls && resumesAtStart {
			return head + c.shared(pieces[:k], 0) + c.from(a, tail-ls+1)
		}
		for j < k && pieces[j].end < at {
			j++
		}
		if j < k && pieces[j].end == at {
			return head + c.shared(pieces[:k], j+1) + c.from(a, tail-ls+1)
		}
	}
	return c.from(a, 0)
}

// shared adds up the counts of pieces[i:], the text's pieces the copy
// has too.
func (c *lineCounts) shared(pieces []piece, i int) int {
	n := 0
	for _, p := range pieces[i:] {
		n += p.n
	}
	return n
}
