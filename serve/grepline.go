package serve

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"regexp"
	"strconv"
	"sync/atomic"
	"unicode/utf8"
)

// scannedLine is one line as search sees it: matched against the whole
// line, shown cut to maxChars characters.
type scannedLine struct {
	text    string
	matched bool
}

// lineScanner reads a file line by line for search. A line up to the
// buffer's size is matched in memory; a longer one is matched as it streams
// through, so a 100 MB single-line file costs a buffer, and is cut short by
// the context every few thousand characters: RE2 runs in linear time, but
// (line bytes × program size) can still be minutes, and a call must end by
// its deadline.
type lineScanner struct {
	ctx      context.Context
	stop     *atomic.Bool // set when ctx is done: checked on every line, at the cost of a load
	br       *bufio.Reader
	re       *regexp.Regexp
	maxChars int
}

// stopFlag returns a flag set once ctx is done, and a function to release
// the callback that sets it.
func stopFlag(ctx context.Context) (*atomic.Bool, func() bool) {
	var stop atomic.Bool
	return &stop, context.AfterFunc(ctx, func() { stop.Store(true) })
}

// A line is matched in memory up to scanBufBytes: at maxRegexpInsts that is
// tens of milliseconds between checks of the stop flag at worst.
const scanBufBytes = 16 << 10

func newLineScanner(ctx context.Context, stop *atomic.Bool, r io.Reader, re *regexp.Regexp, maxChars int) *lineScanner {
	size := max(scanBufBytes, 4*maxChars+8) // the shown part of a long line always fits
	return &lineScanner{ctx: ctx, stop: stop, br: bufio.NewReaderSize(r, size), re: re, maxChars: maxChars}
}

// next returns the next line; ok is false at the end of the file.
func (ls *lineScanner) next() (line scannedLine, ok bool, err error) {
	if ls.stop.Load() {
		return scannedLine{}, false, ls.ctx.Err()
	}
	chunk, err := ls.br.ReadSlice('\n')
	switch {
	case err == nil:
		return ls.short(chunk[:len(chunk)-1]), true, nil
	case errors.Is(err, io.EOF):
		if len(chunk) == 0 {
			return scannedLine{}, false, nil
		}
		return ls.short(chunk), true, nil
	case errors.Is(err, bufio.ErrBufferFull):
		return ls.long(chunk)
	}
	return scannedLine{}, false, err
}

// short matches a line held in memory.
func (ls *lineScanner) short(line []byte) scannedLine {
	matched := ls.re.Match(line)
	chars := countRunes(line)
	if chars <= ls.maxChars {
		return scannedLine{text: string(line), matched: matched}
	}
	if matched {
		// Show the part of the line where the match is, not just its head.
		loc := ls.re.FindIndex(line)
		at := countRunes(line[:loc[0]])
		if skip := max(0, at-100); skip > 0 && at+min(countRunes(line[loc[0]:loc[1]]), 100) > ls.maxChars {
			start := byteOfChar(line, skip)
			shown := cutChars(line[start:], ls.maxChars)
			rest := chars - skip - countRunes(shown)
			return scannedLine{text: "[…" + strconv.Itoa(skip) + " characters] " + string(shown) + cutMarker(rest, ""), matched: true}
		}
	}
	shown := cutChars(line, ls.maxChars)
	return scannedLine{text: string(shown) + cutMarker(chars-countRunes(shown), ""), matched: matched}
}

// long matches a line longer than the buffer while reading the rest of it.
func (ls *lineScanner) long(first []byte) (scannedLine, bool, error) {
	head := bytes.Clone(first)
	rr := &lineRunes{stop: ls.stop, br: ls.br, head: head}
	loc := ls.re.FindReaderIndex(rr)
	if rr.cancelled {
		return scannedLine{}, false, ls.ctx.Err()
	}
	if err := rr.drain(); err != nil {
		return scannedLine{}, false, err
	}
	if rr.cancelled {
		return scannedLine{}, false, ls.ctx.Err()
	}
	shown := cutChars(head, ls.maxChars)
	note := ""
	if loc != nil && loc[0] >= len(shown) {
		note = "; match at byte " + strconv.Itoa(loc[0])
	}
	rest := countRunes(head) + rr.restChars - countRunes(shown)
	return scannedLine{text: string(shown) + cutMarker(rest, note), matched: loc != nil}, true, nil
}

func cutMarker(chars int, note string) string {
	return " […line cut: " + strconv.Itoa(chars) + " more characters" + note + "]"
}

// cutChars is the first n characters of b.
func cutChars(b []byte, n int) []byte {
	return b[:byteOfChar(b, n)]
}

// byteOfChar is the offset of character n in b (len(b) past the end).
func byteOfChar(b []byte, n int) int {
	i := 0
	for ; n > 0 && i < len(b); n-- {
		_, size := utf8.DecodeRune(b[i:])
		i += size
	}
	return i
}

// lineRunes feeds one long line to the matcher: the buffered head, then the
// rest from the reader up to (and consuming) the '\n'. It checks the stop
// flag every few hundred characters and ends the line early once it is set.
type lineRunes struct {
	stop      *atomic.Bool
	br        *bufio.Reader
	head      []byte
	pos       int
	n         int
	restChars int // characters read past head
	ended     bool
	cancelled bool
}

func (r *lineRunes) ReadRune() (rune, int, error) {
	if r.ended {
		return 0, 0, io.EOF
	}
	if r.n++; r.n%256 == 0 && r.stop.Load() {
		r.cancelled, r.ended = true, true
		return 0, 0, io.EOF
	}
	if r.pos < len(r.head) {
		rest := r.head[r.pos:]
		if utf8.FullRune(rest) {
			c, size := utf8.DecodeRune(rest)
			r.pos += size
			return c, size, nil
		}
		// A character split between the head and the reader.
		more, _ := r.br.Peek(utf8.UTFMax - len(rest))
		c, size := utf8.DecodeRune(append(bytes.Clone(rest), more...))
		if size <= len(rest) {
			r.pos += size
			return c, size, nil
		}
		r.pos = len(r.head)
		r.br.Discard(size - len(rest)) // continuation bytes: no new character
		return c, size, nil
	}
	c, size, err := r.br.ReadRune()
	if err != nil || c == '\n' {
		r.ended = true
		return 0, 0, io.EOF
	}
	r.restChars++
	return c, size, nil
}

// drain consumes what is left of the line after the matcher stopped,
// counting its characters.
func (r *lineRunes) drain() error {
	if r.ended {
		return nil
	}
	for {
		if r.stop.Load() {
			r.cancelled = true
			return nil
		}
		chunk, err := r.br.ReadSlice('\n')
		switch {
		case err == nil:
			r.restChars += countRunes(chunk[:len(chunk)-1])
			return nil
		case errors.Is(err, bufio.ErrBufferFull):
			r.restChars += countRunes(chunk)
		case errors.Is(err, io.EOF):
			r.restChars += countRunes(chunk)
			return nil
		default:
			return err
		}
	}
}
