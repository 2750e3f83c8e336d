package lineindex

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// lineStarts is the byte offset of every line's start, computed the slow way.
func lineStarts(s string) []int64 {
	if s == "" {
		return nil
	}
	starts := []int64{0}
	for i := 0; i < len(s)-1; i++ {
		if s[i] == '\n' {
			starts = append(starts, int64(i+1))
		}
	}
	return starts
}

func TestScanMarksLineStarts(t *testing.T) {
	var long strings.Builder
	for i := 0; long.Len() < 5*Every; i++ {
		long.WriteString(strings.Repeat("x", i%300) + "\n")
	}
	tests := map[string]string{
		"empty":              "",
		"one line, no LF":    "abc",
		"one line":           "abc\n",
		"many short lines":   long.String(),
		"no final LF":        long.String() + "tail",
		"one huge line":      strings.Repeat("y", 3*Every) + "\nafter\n",
		"huge lines between": strings.Repeat("z", Every+5) + "\n" + strings.Repeat("w", 2*Every) + "\nend",
		"blank lines":        strings.Repeat("\n", 3*Every),
	}
	for name, content := range tests {
		t.Run(name, func(t *testing.T) {
			// One byte at a time too: marks must not depend on read sizes.
			{
				for _, reader := range []io.Reader{strings.NewReader(content), iotest.OneByteReader(strings.NewReader(content))} {
					f, err := Scan(context.Background(), reader)
					if err != nil {
						t.Fatal(err)
					}
					starts := lineStarts(content)
					if f.Lines != len(starts) || f.Size != int64(len(content)) {
						t.Fatalf("lines %d size %d, want %d and %d", f.Lines, f.Size, len(starts), len(content))
					}
					for i, m := range f.Marks {
						if m[0] < 1 || int(m[0]) > len(starts) || starts[m[0]-1] != m[1] {
							t.Fatalf("mark %d = %v: line %d does not start at byte %d", i, m, m[0], m[1])
						}
						if i > 0 && m[1]-f.Marks[i-1][1] < Every {
							t.Fatalf("marks %v and %v closer than %d bytes", f.Marks[i-1], m, Every)
						}
					}
					// Every line start lies within Every bytes (or one line) of a mark.
					for line := 1; line <= len(starts); line++ {
						at, off := f.Seek(line)
						if at > line || starts[at-1] != off {
							t.Fatalf("Seek(%d) = line %d at %d", line, at, off)
						}
						if gap := starts[line-1] - off; gap > Every && line-at > 1 {
							t.Fatalf("Seek(%d) lands %d bytes and %d lines before it", line, gap, line-at)
						}
					}
					var buf bytes.Buffer
					ix := Index{Files: []File{f}}
					if err := ix.Encode(&buf); err != nil {
						t.Fatal(err)
					}
					if _, err := Parse(buf.Bytes()); err != nil {
						t.Fatalf("Parse of Encode: %v", err)
					}
				}
			}
		})
	}
}

func TestParseRefusesBadMarks(t *testing.T) {
	for name, doc := range map[string]string{
		"schema":       `{"schema":"x","every":65536,"files":[]}`,
		"unknown key":  `{"schema":"repoprep.lines/v1","every":65536,"files":[],"extra":1}`,
		"first mark":   `{"schema":"repoprep.lines/v1","every":65536,"files":[{"path":"a","size":10,"lines":3,"marks":[[2,4]]}]}`,
		"backwards":    `{"schema":"repoprep.lines/v1","every":65536,"files":[{"path":"a","size":10,"lines":3,"marks":[[1,0],[3,5],[2,7]]}]}`,
		"past the end": `{"schema":"repoprep.lines/v1","every":65536,"files":[{"path":"a","size":10,"lines":3,"marks":[[1,0],[3,10]]}]}`,
		"dense":        `{"schema":"repoprep.lines/v1","every":65536,"files":[{"path":"a","size":10,"lines":9,"marks":[[1,0],[9,3]]}]}`,
		"no marks":     `{"schema":"repoprep.lines/v1","every":65536,"files":[{"path":"a","size":10,"lines":3,"marks":[]}]}`,
	} {
		if _, err := Parse([]byte(doc)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"schema":"repoprep.lines/v1","every":65536,"files":[{"path":"a","size":10,"lines":3,"marks":[[1,0],[2,4]]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		ix, err := Parse(data)
		if err != nil {
			return
		}
		for _, file := range ix.Files {
			for _, line := range []int{1, 2, file.Lines, file.Lines + 5} {
				at, off := file.Seek(line)
				if off < 0 || (file.Size > 0 && off >= file.Size) || at < 1 {
					t.Fatalf("Seek(%d) = %d, %d on a parsed index", line, at, off)
				}
			}
		}
	})
}
