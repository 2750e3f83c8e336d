package lineindex

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/zeebo/blake3"

	"github.com/repoprep/repoprep/internal/tokens"
)

// countsOf is what a LineCounter must record for text, the slow way.
func countsOf(text string) (lengths []int64, counts []int) {
	if text == "" {
		return nil, nil
	}
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	for _, l := range lines {
		lengths = append(lengths, int64(len(l)))
		c := -1
		if len(l) <= MaxCountedLineBytes {
			c = tokens.Count(" " + l + "\n")
		}
		counts = append(counts, c)
	}
	return lengths, counts
}

func TestLineCounter(t *testing.T) {
	tests := map[string]string{
		"empty":           "",
		"one line":        "package main\n",
		"no final LF":     "a\nb",
		"blank lines":     "\n\n\n",
		"code":            "func f() {\n\treturn 1 // one\n}\n",
		"CJK":             "中文文本，用于测试。\n第二行\n",
		"carriage return": "a\r\nb\r\n",
		"long line":       "x\n" + strings.Repeat("y", MaxCountedLineBytes+1) + "\nz\n",
		"longest counted": strings.Repeat("w ", MaxCountedLineBytes/2) + "\n",
	}
	for name, text := range tests {
		t.Run(name, func(t *testing.T) {
			wantLen, wantCount := countsOf(text)
			for _, step := range []int{1, 3, 4096, len(text) + 1} {
				var lc LineCounter
				for i := 0; i < len(text); i += step {
					lc.Write([]byte(text[i:min(i+step, len(text))]))
				}
				data, lines, size := lc.Finish()
				if lines != int64(len(wantLen)) || size != int64(len(text)) {
					t.Fatalf("step %d: %d lines of %d bytes, want %d of %d", step, lines, size, len(wantLen), len(text))
				}
				c := NewCounts(data)
				for i := range wantLen {
					length, count, ok := c.Next()
					if !ok || length != wantLen[i] || count != wantCount[i] {
						t.Fatalf("step %d, line %d: %d bytes %d tokens (%v), want %d and %d", step, i+1, length, count, ok, wantLen[i], wantCount[i])
					}
				}
				if _, _, ok := c.Next(); ok || c.Err() {
					t.Fatalf("step %d: more data after the last line, or damage", step)
				}
				if err := CheckCounts(data, lines, size); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// buildTokens writes a token index of texts under paths p0, p1, ...
func buildTokens(t testing.TB, texts []string) ([]byte, [32]byte) {
	t.Helper()
	var contents [32]byte
	copy(contents[:], "the staged files' digest........")
	var buf bytes.Buffer
	tw := NewTokenWriter(&buf, contents)
	for i, text := range texts {
		var lc LineCounter
		lc.Write([]byte(text))
		data, lines, size := lc.Finish()
		if err := tw.Add(fmt.Sprintf("p%d", i), blake3.Sum256([]byte(text)), size, lines, data); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), contents
}

func TestTokenIndexRoundTrip(t *testing.T) {
	texts := []string{"a\nb\n", "", "one line without LF", strings.Repeat("line\n", 1000)}
	data, contents := buildTokens(t, texts)
	ix, err := OpenTokens(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	if ix.Files() != len(texts) || ix.Contents() != contents {
		t.Fatalf("%d files, contents %x", ix.Files(), ix.Contents())
	}
	for i, text := range texts {
		r, err := ix.Record(i)
		if err != nil {
			t.Fatal(err)
		}
		if r.Hash != blake3.Sum256([]byte(text)) || r.Size != int64(len(text)) {
			t.Fatalf("file %d: record %+v", i, r)
		}
		got, err := ix.Data(fmt.Sprintf("p%d", i), r, nil)
		if err != nil {
			t.Fatal(err)
		}
		var lc LineCounter
		lc.Write([]byte(text))
		if want, _, _ := lc.Finish(); !bytes.Equal(got, want) {
			t.Fatalf("file %d: data differs", i)
		}
		// Another path's sum: the record is refused.
		if _, err := ix.Data("other", r, nil); !errors.Is(err, ErrTokenSum) {
			t.Errorf("file %d read as another path: %v, want ErrTokenSum", i, err)
		}
	}
	if _, err := ix.Record(len(texts)); err == nil {
		t.Error("a record past the directory was read")
	}
}

func TestCheckCountsRefuses(t *testing.T) {
	var lc LineCounter
	lc.Write([]byte("ab\ncd\n"))
	data, lines, size := lc.Finish()
	for _, tt := range []struct {
		name        string
		data        []byte
		lines, size int64
	}{
		{"a line more", data, lines + 1, size},
		{"a line less", data, lines - 1, size},
		{"longer text", data, lines, size + 2},
		{"shorter text", data, lines, size - 2},
		{"truncated", data[:len(data)-1], lines, size},
		{"empty text with lines", data, lines, 0},
		{"a varint that never ends", []byte{0x80, 0x80, 0x80}, 1, 3},
	} {
		if err := CheckCounts(tt.data, tt.lines, tt.size); err == nil {
			t.Errorf("%s: accepted", tt.name)
		}
	}
}

// TestDataChecksEachSumOnce: Data remembers the sums whose counts passed
// CheckCounts and skips the decode for them, which must change no answer:
// a file read again comes back the same, counts that do not check are
// refused at every read even under a sum that matches them (a writer
// with the format), and the memory stays within the index's files.
func TestDataChecksEachSumOnce(t *testing.T) {
	var contents [32]byte
	var buf bytes.Buffer
	tw := NewTokenWriter(&buf, contents)
	var lc LineCounter
	lc.Write([]byte("a\nbb\n"))
	good, lines, size := lc.Finish()
	if err := tw.Add("good", blake3.Sum256([]byte("a\nbb\n")), size, lines, good); err != nil {
		t.Fatal(err)
	}
	// Two lines' counts for a text of one line: sum and all, as a
	// writer of the format would make them.
	if err := tw.Add("bad", blake3.Sum256([]byte("a\n")), 2, 1, good); err != nil {
		t.Fatal(err)
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	ix, err := OpenTokens(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	rGood, err := ix.Record(0)
	if err != nil {
		t.Fatal(err)
	}
	rBad, err := ix.Record(1)
	if err != nil {
		t.Fatal(err)
	}
	for read := range 3 {
		got, err := ix.Data("good", rGood, nil)
		if err != nil || !bytes.Equal(got, good) {
			t.Fatalf("read %d of good: %v", read, err)
		}
		if _, err := ix.Data("bad", rBad, nil); !errors.Is(err, ErrTokenIndex) {
			t.Fatalf("read %d of bad: %v, want ErrTokenIndex", read, err)
		}
		// The good record's sum, the bad record's lines: the sum no
		// longer matches, whatever was remembered.
		mixed := rGood
		mixed.Lines = 1
		if _, err := ix.Data("good", mixed, nil); !errors.Is(err, ErrTokenSum) {
			t.Fatalf("read %d of good with another line count: %v, want ErrTokenSum", read, err)
		}
	}
	n := 0
	ix.checked.Range(func(any, any) bool { n++; return true })
	if n != 1 || ix.nchecked.Load() != 1 {
		t.Errorf("%d sums remembered (%d checks passed), want the good one, checked once", n, ix.nchecked.Load())
	}
}

// FuzzTokenIndex: whatever the bytes, OpenTokens, Record and Data return
// an error or data that passes its checks, never panic, and never read
// more than the file holds; a valid index's data comes back whole.
func FuzzTokenIndex(f *testing.F) {
	valid, _ := buildTokens(f, []string{"a\nb\n", "", "x"})
	f.Add(valid)
	f.Add(valid[:len(valid)-3])
	f.Add([]byte(tokenMagic + tokenMagic))
	f.Add(append([]byte(tokenMagic), make([]byte, TokenFooterSize)...))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<20 {
			return
		}
		ix, err := OpenTokens(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			return
		}
		if ix.Files() > len(data)/TokenRecordSize {
			t.Fatalf("%d files in %d bytes", ix.Files(), len(data))
		}
		for i := range min(ix.Files(), 64) {
			r, err := ix.Record(i)
			if err != nil {
				continue
			}
			if r.Off+r.N > int64(len(data)) {
				t.Fatalf("record %d reaches past the file: %+v", i, r)
			}
			got, err := ix.Data(fmt.Sprintf("p%d", i), r, nil)
			if err != nil {
				continue
			}
			if CheckCounts(got, r.Lines, r.Size) != nil {
				t.Fatalf("record %d: Data returned counts that do not check", i)
			}
		}
	})
}

// FuzzCounts: decoding any bytes ends, and what CheckCounts accepts adds
// up to the size it was given.
func FuzzCounts(f *testing.F) {
	var lc LineCounter
	lc.Write([]byte("a\nbb\n\nccc"))
	data, _, _ := lc.Finish()
	f.Add(data, int64(4), int64(9))
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0x00}, int64(1), int64(0))
	f.Fuzz(func(t *testing.T, data []byte, lines, size int64) {
		c := NewCounts(data)
		n := 0
		var total int64
		for {
			length, count, ok := c.Next()
			if !ok {
				break
			}
			if length < 0 || count < -1 {
				t.Fatalf("line %d: %d bytes, %d tokens", n, length, count)
			}
			n++
			total += length + 1
		}
		if n > len(data)/2 {
			t.Fatalf("%d lines from %d bytes", n, len(data))
		}
		if CheckCounts(data, lines, size) == nil && (int64(n) != lines || (total != size && total != size+1) || c.Err()) {
			t.Fatalf("accepted %d lines of %d bytes as %d of %d", n, total, lines, size)
		}
	})
}
