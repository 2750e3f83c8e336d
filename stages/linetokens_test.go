package stages

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zeebo/blake3"

	"github.com/repoprep/repoprep/internal/lineindex"
)

// lineData is what a LineCounter makes of text: the index's data for it.
func lineData(text string) (data []byte, lines, size int64) {
	var lc lineindex.LineCounter
	lc.Write([]byte(text))
	data, lines, size = lc.Finish()
	return bytes.Clone(data), lines, size
}

// TestLineTokensSpill: the spill gives back a record's data only when it
// was counted from the text files.json records for it (the same BLAKE3,
// size and line count), the last entry of a record spilled twice, and
// nothing for a record never spilled; Close removes it.
func TestLineTokensSpill(t *testing.T) {
	dir := t.TempDir()
	s, err := NewLineTokens(dir, 4)
	if err != nil {
		t.Fatal(err)
	}
	staged := func(path, text string) *Record {
		rec := NewRecord(path, path, int64(len(text)))
		rec.Staged, rec.OutSize, rec.Lines = true, int64(len(text)), strings.Count(text, "\n")
		if text != "" && !strings.HasSuffix(text, "\n") {
			rec.Lines++
		}
		return rec
	}
	spill := func(rec *Record, text string) {
		data, lines, size := lineData(text)
		if err := s.add(rec, blake3.Sum256([]byte(text)), data, lines, size); err != nil {
			t.Fatal(err)
		}
	}
	a := staged("a.go", "package a\n\nfunc A() {}\n")
	b := staged("b/b.txt", "first, then decided again\n")
	empty := staged("c.txt", "")
	never := staged("d.txt", "never spilled\n")
	spill(b, "first, then decided agaiN\n") // the same size and lines: only the hash tells
	spill(a, "package a\n\nfunc A() {}\n")
	spill(empty, "")
	spill(b, "first, then decided again\n")
	redacted := staged("e.env", "KEY=[REDACTED:generic-api-key]\n")
	spill(redacted, "KEY=0123456789abcdef0123\n")

	var buf []byte
	for _, tc := range []struct {
		rec  *Record
		text string // files.json's text for rec
		ok   bool
	}{
		{a, "package a\n\nfunc A() {}\n", true},
		{b, "first, then decided again\n", true},
		{empty, "", true},
		{never, "never spilled\n", false},
		{redacted, "KEY=[REDACTED:generic-api-key]\n", false},
	} {
		t.Run(tc.rec.Path, func(t *testing.T) {
			got, ok, err := s.Read(textOf(tc.rec), blake3.Sum256([]byte(tc.text)), &buf)
			if err != nil {
				t.Fatal(err)
			}
			want, _, _ := lineData(tc.text)
			if ok != tc.ok || ok && !bytes.Equal(got, want) {
				t.Errorf("Read = %x, %v; want %x, %v", got, ok, want, tc.ok)
			}
		})
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("after Close the directory holds %v", left)
	}
}

// TestProcessSpillsLineTokens: Process makes a staged text's line-token
// data beside its count, for a text held in memory and for one streamed
// past readCapBytes, and it is what counting the staged copy gives. A
// text the refresh expects (Memo.Expect, counted last time) is not
// counted, nor is one that is not staged.
func TestProcessSpillsLineTokens(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		expect     bool
		spilled    bool
	}{
		{"a.go", "package a\n\n// A is a.\nfunc A() int { return 1 }\n", false, true},
		{"notes.md", "# 注释\r\n\r\nNo newline at the end", false, true},
		{"streamed.txt", strings.Repeat("a line of a text streamed past the loop's read cap\n", 24_000), false, true},
		{"expected.go", "package e\n", true, false},
		{"b.bin", "\x00\x01\x02binary\x00", false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src, out := t.TempDir(), t.TempDir()
			must(t, os.WriteFile(filepath.Join(src, tc.name), []byte(tc.text), 0o644))
			spill, err := NewLineTokens(t.TempDir(), 1)
			must(t, err)
			defer spill.Close()
			env := &Env{Src: openRoot(t, src), TreeDir: out, Rules: defaultRules(t), MaxTextBytes: 64 << 20, LineTokens: spill}
			rec := NewRecord(tc.name, tc.name, int64(len(tc.text)))
			if tc.expect {
				key := make([]byte, 32)
				rec.Memo.Expect = &Expectation{Key: key, Digest: TextDigest(key, blake3.Sum256([]byte(tc.text))), Tokens: 3}
			}
			if err := env.Process(context.Background(), rec, NewWorkerSet(1).Get(), &Clock{}); err != nil {
				t.Fatal(err)
			}
			if got := len(spill.at); got != map[bool]int{true: 1, false: 0}[tc.spilled] {
				t.Fatalf("%d entries spilled, want spilled %v", got, tc.spilled)
			}
			if !tc.spilled {
				return
			}
			staged, err := os.ReadFile(filepath.Join(out, tc.name))
			must(t, err)
			var buf []byte
			got, ok, err := spill.Read(textOf(rec), blake3.Sum256(staged), &buf)
			if err != nil || !ok {
				t.Fatalf("Read: %v, %v", ok, err)
			}
			if want, _, _ := lineData(string(staged)); !bytes.Equal(got, want) {
				t.Errorf("spilled %d bytes of data, counting the staged copy gives %d", len(got), len(want))
			}
		})
	}
}

// FuzzLineWriter: a streamed text's line data, made from the batches the
// decoder happens to count (LineCounter.CountBatch), is the data of the
// whole text, wherever the batches end.
func FuzzLineWriter(f *testing.F) {
	for _, s := range []string{"", "a\n", "x := 1\n\n\tfoo()\r\n", "注释\n no end", strings.Repeat("ab\n", 50)} {
		f.Add(s, uint16(3))
	}
	f.Fuzz(func(t *testing.T, text string, step uint16) {
		if len(text) > 4<<10 {
			return // the cost of a count grows with the text
		}
		var dst bytes.Buffer
		var lc lineindex.LineCounter
		n := int(step)%17 + 1
		for rest := text; len(rest) > 0; {
			k := min(n, len(rest))
			dst.WriteString(rest[:k])
			lc.CountBatch([]byte(rest[:k]), k == len(rest))
			rest = rest[k:]
		}
		got, lines, size := lc.Finish()
		want, wantLines, wantSize := lineData(text)
		if !bytes.Equal(got, want) || lines != wantLines || size != wantSize || dst.String() != text {
			t.Errorf("in writes of %d: %x, %d lines, %d bytes; want %x, %d, %d", n, got, lines, size, want, wantLines, wantSize)
		}
	})
}

// textOf is rec as the index stage is handed it (pipeline's buildManifest).
func textOf(rec *Record) StagedText { return StagedText{Entry: &rec.Entry, OutSize: rec.OutSize} }
