package serve

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"unicode/utf8"
)

// nextCopied is lineReader.next as it was before a whole short line was
// returned from the reader's buffer: every line copied and its characters
// counted. The differential tests hold next to it.
func nextCopied(lr *lineReader) (line []byte, cutChars int, ok bool, err error) {
	lr.buf = lr.buf[:0]
	keepBytes := 4*lr.maxChars + 4
	chars, seen := 0, false
	for {
		chunk, err := lr.br.ReadSlice('\n')
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
	i, n := 0, 0
	for n < lr.maxChars && i < len(lr.buf) {
		_, size := utf8.DecodeRune(lr.buf[i:])
		i += size
		n++
	}
	return lr.buf[:i], chars - n, true, nil
}

// sameLines reads data with next and with nextCopied, each through a
// reader of bufSize bytes, and reports the first difference.
func sameLines(t *testing.T, data string, maxChars, bufSize int) {
	t.Helper()
	fast := &lineReader{br: bufio.NewReaderSize(strings.NewReader(data), bufSize), maxChars: maxChars}
	slow := &lineReader{br: bufio.NewReaderSize(strings.NewReader(data), bufSize), maxChars: maxChars}
	for n := 1; ; n++ {
		got, gotCut, gotOK, gotErr := fast.next()
		want, wantCut, wantOK, wantErr := nextCopied(slow)
		if !bytes.Equal(got, want) || gotCut != wantCut || gotOK != wantOK || (gotErr == nil) != (wantErr == nil) {
			t.Fatalf("line %d of %q (max %d, buffer %d): next = %q, %d, %v, %v; before = %q, %d, %v, %v",
				n, data, maxChars, bufSize, got, gotCut, gotOK, gotErr, want, wantCut, wantOK, wantErr)
		}
		if !gotOK {
			return
		}
	}
}

func TestLineReaderFastPath(t *testing.T) {
	for _, tc := range []struct {
		name     string
		data     string
		maxChars int
	}{
		{"short lines", "a\nbb\n\nccc\n", 2000},
		{"no final newline", "a\nlast", 2000},
		{"empty", "", 2000},
		{"only newlines", "\n\n\n", 3},
		{"exactly max bytes", "abcd\nabcde\n", 4},
		{"cut ascii", "abcdefgh\nab\n", 4},
		{"multibyte under max chars, over max bytes", "ééé\nxy\n", 4},
		{"multibyte cut", "éééééé\n", 4},
		{"line past the buffer", strings.Repeat("x", 40) + "\nshort\n", 2000},
		{"cut line past the buffer", strings.Repeat("é", 40) + "\n" + strings.Repeat("y", 3) + "\n", 5},
		{"invalid utf-8", "\xff\xfe\xfd\xfc\xfb\n\x80\x80\n", 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, size := range []int{16, 17, 64, 64 << 10} {
				sameLines(t, tc.data, tc.maxChars, size)
			}
		})
	}
}

// FuzzLineReader: next gives every line, cut and count as the copying
// reader did, whatever the bytes, the limit and the buffer's size.
func FuzzLineReader(f *testing.F) {
	f.Add("a\nbb\nccc", 2, 16)
	f.Add(strings.Repeat("é", 30)+"\nx\n", 7, 16)
	f.Add("\xff\n\n", 1, 32)
	f.Fuzz(func(t *testing.T, data string, maxChars, bufSize int) {
		if len(data) > 1<<16 {
			return // bound the cost: a few reads of a small buffer
		}
		maxChars = 1 + abs(maxChars)%100
		bufSize = 16 + abs(bufSize)%200
		sameLines(t, data, maxChars, bufSize)
	})
}

func abs(n int) int {
	if n < 0 {
		if n == -n { // the smallest int
			return 0
		}
		return -n
	}
	return n
}
