package serve

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"strconv"
	"sync"
	"unicode/utf8"
)

// lineReader streams a file line by line, keeping at most maxChars
// characters of each line, so a 100 MB single-line file costs no more memory
// than a short one. Lines end at '\n' (the tree is normalized to LF); a last
// line without '\n' still counts; an empty file has no lines.
type lineReader struct {
	br       *bufio.Reader
	maxChars int
	buf      []byte
}

func newLineReader(r io.Reader, maxChars int) *lineReader {
	return &lineReader{br: bufio.NewReaderSize(r, 64<<10), maxChars: maxChars}
}

// lineReaders keeps the 64 KiB buffers of finished reads: a read of a
// 500-line head allocated one per call, the larger part of its garbage.
var lineReaders = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 64<<10) }}

// pooledLineReader is newLineReader with a buffer from lineReaders; call
// release when done with it.
func pooledLineReader(r io.Reader, maxChars int) *lineReader {
	br := lineReaders.Get().(*bufio.Reader)
	br.Reset(r)
	return &lineReader{br: br, maxChars: maxChars}
}

// reset makes lr read r from its start, keeping its buffers.
func (lr *lineReader) reset(r io.Reader) { lr.br.Reset(r) }

// release returns lr's buffer to the pool; lr is not used again.
func (lr *lineReader) release() {
	lr.br.Reset(nil)
	lineReaders.Put(lr.br)
	lr.br = nil
}

// next returns the next line without its '\n', cut to maxChars characters,
// and how many characters were cut off. ok is false at the end of the file.
// The line is valid until the next call.
func (lr *lineReader) next() (line []byte, cutChars int, ok bool, err error) {
	chunk, err := lr.br.ReadSlice('\n')
	if err == nil && len(chunk)-1 <= lr.maxChars {
		// The common line: whole in the buffer and no more bytes, so no
		// more characters, than may be shown. Neither copied nor counted.
		return chunk[:len(chunk)-1], 0, true, nil
	}
	lr.buf = lr.buf[:0]
	keepBytes := 4*lr.maxChars + 4 // enough bytes for maxChars characters of any width
	chars, seen := 0, false
	for first := true; ; first = false {
		if !first {
			chunk, err = lr.br.ReadSlice('\n')
		}
		if len(chunk) > 0 {
			seen = true
		}
		if err == nil {
			chunk = chunk[:len(chunk)-1]
		}
		chars += countRunes(chunk)
		if room := keepBytes - len(lr.buf); room > 0 {
			lr.buf = append(lr.buf, chunk[:min(room, len(chunk))]...)
		}
		switch {
		case err == nil:
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			if !seen {
				return nil, 0, false, nil
			}
		default:
			return nil, 0, false, err
		}
		break
	}
	if chars <= lr.maxChars {
		return lr.buf, 0, true, nil
	}
	// Cut at a character boundary after maxChars characters.
	i, n := 0, 0
	for n < lr.maxChars && i < len(lr.buf) {
		_, size := utf8.DecodeRune(lr.buf[i:])
		i += size
		n++
	}
	return lr.buf[:i], chars - n, true, nil
}

// countRunes counts UTF-8 leading bytes, which stays exact when a character
// is split across two reads.
func countRunes(b []byte) int {
	n := 0
	for _, c := range b {
		if c&0xC0 != 0x80 {
			n++
		}
	}
	return n
}

// skip passes over one line; ok is false at the end of the file.
func (lr *lineReader) skip() (ok bool, err error) {
	seen := false
	for {
		chunk, err := lr.br.ReadSlice('\n')
		if len(chunk) > 0 {
			seen = true
		}
		switch {
		case err == nil:
			return true, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			return seen, nil
		default:
			return false, err
		}
	}
}

// countRest counts the lines left, checking ctx between reads so a huge file
// cannot outlive the request.
func (lr *lineReader) countRest(ctx context.Context) (int, error) {
	n, last := 0, byte('\n')
	for {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		if lr.br.Buffered() == 0 { // fill the reader's buffer: one read
			if _, err := lr.br.Peek(1); errors.Is(err, io.EOF) {
				if last != '\n' {
					n++ // a last line without '\n'
				}
				return n, nil
			} else if err != nil {
				return 0, err
			}
		}
		buf, _ := lr.br.Peek(lr.br.Buffered())
		n += bytes.Count(buf, []byte{'\n'})
		last = buf[len(buf)-1]
		lr.br.Discard(len(buf))
	}
}

// appendNumbered appends one numbered line as "  10 | text\n", with the
// number right-aligned to width and a marker when the line was cut.
func appendNumbered(dst []byte, num, width int, text []byte, cutChars int) []byte {
	var nb [20]byte
	digits := strconv.AppendInt(nb[:0], int64(num), 10)
	for i := len(digits); i < width; i++ {
		dst = append(dst, ' ')
	}
	dst = append(dst, digits...)
	dst = append(dst, " | "...)
	dst = append(dst, text...)
	if cutChars > 0 {
		dst = append(dst, " […line cut: "...)
		dst = strconv.AppendInt(dst, int64(cutChars), 10)
		dst = append(dst, " more characters]"...)
	}
	return append(dst, '\n')
}

// numberWidth is the width of line numbers: at least 4, as in "  10 | ".
func numberWidth(maxLine int) int {
	return max(4, len(strconv.Itoa(maxLine)))
}

// fitLines reports how many whole lines of text fit in room tokens and what
// they cost; ends[i] is the offset just past line i. It counts the batch
// once and, only when that is too much, binary-searches the longest prefix.
func fitLines(c *counter, text []byte, ends []int, room int) (k, cost int) {
	if len(ends) == 0 {
		return 0, 0
	}
	if n := c.Count(string(text[:ends[len(ends)-1]])); n <= room {
		return len(ends), n
	}
	lo, hi := 0, len(ends)-1 // lo lines are known to fit, hi+1 known not to
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if c.Count(string(text[:ends[mid-1]])) <= room {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	if lo > 0 {
		cost = c.Count(string(text[:ends[lo-1]]))
	}
	return lo, cost
}
