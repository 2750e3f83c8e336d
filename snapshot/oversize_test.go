package snapshot

import (
	"bytes"
	"encoding/json"
	"io"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"unicode/utf8"
)

func TestPreviewHead(t *testing.T) {
	long := "a" + strings.Repeat("é", 1500) // 3001 bytes; byte 2000 falls inside an é
	tests := []struct {
		name  string
		in    string
		lines int
		want  string
	}{
		{"fewer lines than asked", "a\nb\n", 5, "a\nb\n"},
		{"cut at the line count", "a\nb\nc\n", 2, "a\nb\n"},
		{"no final newline", "a\nb", 5, "a\nb"},
		{"empty", "", 3, ""},
		{"zero lines", "a\n", 0, ""},
		{"long line cut on a rune", long + "\nnext\n", 2, "a" + strings.Repeat("é", 999) + previewCutMarker + "\nnext\n"},
		{"long last line without newline", strings.Repeat("x", 70_000), 2, strings.Repeat("x", maxPreviewLineBytes) + previewCutMarker},
		{"a line of exactly the limit is whole", strings.Repeat("w", maxPreviewLineBytes) + "\nv\n", 2, strings.Repeat("w", maxPreviewLineBytes) + "\nv\n"},
		{"one byte over the limit is cut", strings.Repeat("w", maxPreviewLineBytes+1) + "\nv\n", 2, strings.Repeat("w", maxPreviewLineBytes) + previewCutMarker + "\nv\n"},
		{"line longer than the read buffer", strings.Repeat("y", 40_000) + "\nz\n", 2, strings.Repeat("y", maxPreviewLineBytes) + previewCutMarker + "\nz\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := previewHead(strings.NewReader(tt.in), tt.lines)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("previewHead = %q (%d bytes), want %q (%d bytes)", trimForLog(got), len(got), trimForLog(tt.want), len(tt.want))
			}
			if !utf8.ValidString(got) {
				t.Error("preview is not valid UTF-8")
			}
		})
	}
}

func trimForLog(s string) string {
	if len(s) > 80 {
		return s[:40] + "…" + s[len(s)-40:]
	}
	return s
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

// A preview of a huge file reads about as far as its last line, not the file.
func TestPreviewHeadIsBounded(t *testing.T) {
	r := &countingReader{r: strings.NewReader(strings.Repeat("0123456789\n", 10<<20))}
	if _, err := previewHead(r, 100); err != nil {
		t.Fatal(err)
	}
	if r.n > 64<<10 {
		t.Errorf("read %d bytes for a 100-line preview", r.n)
	}
}

func TestWriteOversize(t *testing.T) {
	tree := fstest.MapFS{
		"big.log":       {Data: []byte("one\ntwo\nthree\nfour\n")},
		"small.txt":     {Data: []byte("hi\n")},
		"data/huge.csv": {Data: []byte("a,b\n1,2\n")},
	}
	m := newManifest([]Entry{
		{Path: "big.log", Size: 3 << 20, Lines: 4, Encoding: "gb18030", Staged: true, Oversize: true},
		{Path: "small.txt", Size: 3, Lines: 1, Encoding: "utf-8", Staged: true},
		{Path: "data/huge.csv", Size: 9 << 20, Lines: 2, Encoding: "utf-8", Staged: true, Oversize: true},
		{Path: "data/huge-copy.csv", Size: 9 << 20, Lines: 2, Encoding: "utf-8", Oversize: true, DuplicateOf: "data/huge.csv"},
	}, nil)
	var b bytes.Buffer
	if err := WriteOversize(&b, m, tree, 2); err != nil {
		t.Fatal(err)
	}
	want := `{
  "schema": "repoprep.oversize/v1",
  "files": [
    {
      "path": "big.log",
      "size": 3145728,
      "lines": 4,
      "encoding": "gb18030",
      "preview": "one\ntwo\n"
    },
    {
      "path": "data/huge.csv",
      "size": 9437184,
      "lines": 2,
      "encoding": "utf-8",
      "preview": "a,b\n1,2\n"
    }
  ]
}
`
	if b.String() != want {
		t.Errorf("oversize.json =\n%s\nwant\n%s", b.String(), want)
	}
	var idx OversizeIndex
	if err := json.Unmarshal(b.Bytes(), &idx); err != nil {
		t.Fatal(err)
	}
}

func TestWriteOversizeEmpty(t *testing.T) {
	var b bytes.Buffer
	if err := WriteOversize(&b, newManifest(nil, nil), fstest.MapFS{}, 10); err != nil {
		t.Fatal(err)
	}
	if want := "{\n  \"schema\": \"repoprep.oversize/v1\",\n  \"files\": []\n}\n"; b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}

func TestWriteOversizeMissingFile(t *testing.T) {
	m := newManifest([]Entry{{Path: "gone.txt", Staged: true, Oversize: true}}, nil)
	err := WriteOversize(io.Discard, m, fstest.MapFS{}, 10)
	if err == nil || !strings.Contains(err.Error(), "gone.txt") {
		t.Errorf("err = %v, want one naming gone.txt", err)
	}
}

// FuzzPreviewHead: a preview never holds more lines than asked, keeps
// valid UTF-8 valid, and never grows a line past the cut.
func FuzzPreviewHead(f *testing.F) {
	for _, s := range []string{"", "a\nb\n", strings.Repeat("é", 1200), "x\r\ny", "\n\n\n"} {
		f.Add(s, 2)
	}
	f.Fuzz(func(t *testing.T, in string, lines int) {
		lines %= 50
		got, err := previewHead(strings.NewReader(in), lines)
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(got, "\n"); n > max(lines, 0) {
			t.Errorf("%d lines for a %d-line preview", n, lines)
		}
		if utf8.ValidString(in) && !utf8.ValidString(got) {
			t.Errorf("preview of valid UTF-8 is invalid: %q", got)
		}
		for _, line := range strings.Split(got, "\n") {
			if len(line) > maxPreviewLineBytes+len(previewCutMarker) {
				t.Errorf("line of %d bytes", len(line))
			}
		}
	})
}

// newManifest is files.json holding files (sorted here) and pruned.
func newManifest(files []Entry, pruned []Pruned) *Manifest {
	slices.SortFunc(files, func(a, b Entry) int { return strings.Compare(a.Path, b.Path) })
	return &Manifest{Schema: FilesSchema, Files: files, Pruned: pruned}
}
