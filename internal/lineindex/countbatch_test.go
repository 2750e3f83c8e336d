package lineindex

import (
	"bytes"
	"strings"
	"testing"

	"github.com/repoprep/repoprep/internal/tokens"
)

// countInBatches feeds text to a fresh LineCounter in batches ending at
// ends (offsets, ascending), the last one at len(text) with last set, and
// returns the counts' sum and the data.
func countInBatches(text string, ends []int) (n int, data []byte, lines, size int64) {
	var lc LineCounter
	from := 0
	for i, end := range ends {
		n += lc.CountBatch([]byte(text[from:end]), i == len(ends)-1)
		from = end
	}
	data, lines, size = lc.Finish()
	return n, data, lines, size
}

// TestCountBatch: a streamed text's batches, counted with their lines
// in one scan, give each batch's count and the whole text's line data,
// whether a batch ends after a newline (a cut, the sink's usual batch),
// inside a line (a text with no cut for a MiB), or at a last line
// without a newline.
func TestCountBatch(t *testing.T) {
	long := strings.Repeat("y", MaxCountedLineBytes+1)
	for _, tc := range []struct {
		name string
		text string
		ends []int
	}{
		{"at cuts", "package a\n\nfunc A() {\n\treturn\n}\n", []int{10, 11, 22, 32}},
		{"inside lines", "abc def\nghi jkl\nmno\n", []int{3, 12, 16, 20}},
		{"last without newline", "a b\nc d", []int{4, 7}},
		{"one batch, no newline", "x := 1", []int{6}},
		{"long line", "a\n" + long + "\nb\n", []int{2, 2 + len(long) + 1, len(long) + 5}},
		{"empty lines", "\n\n\n", []int{1, 3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n, data, lines, size := countInBatches(tc.text, tc.ends)
			wantN, from := 0, 0
			for _, end := range tc.ends {
				wantN += tokens.Count(tc.text[from:end])
				from = end
			}
			var whole LineCounter
			whole.Write([]byte(tc.text))
			want, wantLines, wantSize := whole.Finish()
			if n != wantN {
				t.Errorf("counts add up to %d, the batches' counts to %d", n, wantN)
			}
			if !bytes.Equal(data, want) || lines != wantLines || size != wantSize {
				t.Errorf("data %x, %d lines, %d bytes; Write gives %x, %d, %d", data, lines, size, want, wantLines, wantSize)
			}
		})
	}
}

// FuzzCountBatch: wherever a text's batches end, CountBatch gives each
// batch's count and the text's line data.
func FuzzCountBatch(f *testing.F) {
	for _, s := range []string{"", "a\n", "x;\n// y\n\n\tz\r\n", "注释\n no end", strings.Repeat("ab\n", 50)} {
		f.Add(s, uint16(3))
	}
	tokens.Warm()
	f.Fuzz(func(t *testing.T, text string, step uint16) {
		if len(text) > 4<<10 || text == "" {
			return // the cost of a count grows with the text
		}
		var ends []int
		for end := 0; end < len(text); {
			end = min(len(text), end+int(step)%23+1)
			if i := strings.IndexByte(text[end-1:], '\n'); step&1 == 0 && i >= 0 {
				end = min(len(text), end+i) // some batches end after a newline
			}
			ends = append(ends, end)
		}
		n, data, lines, size := countInBatches(text, ends)
		wantN, from := 0, 0
		for _, end := range ends {
			wantN += tokens.Count(text[from:end])
			from = end
		}
		var whole LineCounter
		whole.Write([]byte(text))
		want, wantLines, wantSize := whole.Finish()
		if n != wantN || !bytes.Equal(data, want) || lines != wantLines || size != wantSize {
			t.Errorf("batches ending at %v: %d tokens, %x, %d lines, %d bytes; want %d, %x, %d, %d", ends, n, data, lines, size, wantN, want, wantLines, wantSize)
		}
	})
}
