package lineindex

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
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

// encoded is lines.json holding files, each with its sum, as Encode
// writes it.
func encoded(t testing.TB, files ...File) []byte {
	t.Helper()
	var buf bytes.Buffer
	ix := Index{Files: files}
	if err := ix.Encode(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestParseRefusesBadMarks(t *testing.T) {
	file := func(size int64, lines int, marks ...[2]int64) File {
		return File{Path: "a", Hash: "blake3:00", Size: size, Lines: lines, Marks: marks}
	}
	for name, doc := range map[string][]byte{
		"schema":       []byte(`{"schema":"x","every":65536,"files":[]}`),
		"v1":           []byte(`{"schema":"repoprep.lines/v1","every":65536,"files":[]}`),
		"unknown key":  []byte(`{"schema":"repoprep.lines/v2","every":65536,"files":[],"extra":1}`),
		"every":        []byte(`{"schema":"repoprep.lines/v2","every":4096,"files":[]}`),
		"trailing":     append(encoded(t), "{}"...),
		"first mark":   encoded(t, file(10, 3, [2]int64{2, 4})),
		"backwards":    encoded(t, file(10, 3, [2]int64{1, 0}, [2]int64{3, 5}, [2]int64{2, 7})),
		"past the end": encoded(t, file(10, 3, [2]int64{1, 0}, [2]int64{3, 10})),
		"dense":        encoded(t, file(10, 9, [2]int64{1, 0}, [2]int64{9, 3})),
		"no marks":     encoded(t, file(10, 3)),
		"negative":     encoded(t, file(-1, 3)),
	} {
		if _, err := Parse(doc); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := Parse(encoded(t, file(10, 3, [2]int64{1, 0}, [2]int64{3, 5}))); err != nil {
		t.Errorf("a good file: %v", err)
	}
}

// TestParseRefusesEditedMarks: marks shifted by ten lines (still in order
// and in range, the size unchanged), a mark moved, another hash, size or
// line count: each is refused by its sum, so a server never labels one
// line with another's number.
func TestParseRefusesEditedMarks(t *testing.T) {
	var text strings.Builder
	for i := 1; text.Len() < 6*Every; i++ {
		fmt.Fprintf(&text, "line %d\n", i)
	}
	f, err := Scan(context.Background(), strings.NewReader(text.String()))
	if err != nil {
		t.Fatal(err)
	}
	f.Path, f.Hash = "big.txt", "blake3:"+strings.Repeat("ab", 32)
	good := encoded(t, f)
	if _, err := Parse(good); err != nil {
		t.Fatal(err)
	}
	var ix Index
	if err := json.Unmarshal(good, &ix); err != nil {
		t.Fatal(err)
	}
	for name, edit := range map[string]func(f *File){
		"marks shifted by 10 lines": func(f *File) {
			for i := 1; i < len(f.Marks); i++ {
				f.Marks[i][0] += 10
			}
		},
		"a mark moved":     func(f *File) { f.Marks[2][1] += 7 },
		"another hash":     func(f *File) { f.Hash = "blake3:" + strings.Repeat("cd", 32) },
		"another size":     func(f *File) { f.Size++ },
		"another count":    func(f *File) { f.Lines++ },
		"another path":     func(f *File) { f.Path = "other.txt" },
		"a mark left out":  func(f *File) { f.Marks = f.Marks[:len(f.Marks)-1] },
		"no sum":           func(f *File) { f.Sum = "" },
		"sum of another":   func(f *File) { f.Sum = "blake3:" + strings.Repeat("0", 64) },
		"sum in uppercase": func(f *File) { f.Sum = strings.ToUpper(f.Sum) },
	} {
		c := File{Path: ix.Files[0].Path, Hash: ix.Files[0].Hash, Size: ix.Files[0].Size, Lines: ix.Files[0].Lines,
			Marks: slices.Clone(ix.Files[0].Marks), Sum: ix.Files[0].Sum}
		edit(&c)
		doc, err := json.Marshal(Index{Schema: Schema, Every: Every, Files: []File{c}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Parse(doc); !errors.Is(err, ErrSum) {
			t.Errorf("%s: Parse = %v, want ErrSum", name, err)
		}
	}
}

// TestMarkerPieces: the marks do not depend on how the bytes are cut.
func TestMarkerPieces(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for round := range 40 {
		var b strings.Builder
		for b.Len() < rng.IntN(4*Every) {
			b.WriteString(strings.Repeat("x", rng.IntN(rng.IntN(3*Every)+1)))
			b.WriteString(strings.Repeat("\n", 1+rng.IntN(3)))
		}
		text := b.String()
		if rng.IntN(2) == 0 {
			text += "tail"
		}
		checkPieces(t, fmt.Sprintf("round %d", round), text, rng)
	}
}

func checkPieces(t *testing.T, name, text string, rng *rand.Rand) {
	t.Helper()
	want, err := Scan(context.Background(), strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	var mk Marker
	for rest := text; len(rest) > 0; {
		n := min(len(rest), 1+rng.IntN(2*Every))
		if rng.IntN(4) == 0 {
			mk.Write(nil)
		}
		mk.Write([]byte(rest[:n]))
		rest = rest[n:]
	}
	got := mk.File()
	if got.Size != want.Size || got.Lines != want.Lines || !slices.Equal(got.Marks, want.Marks) {
		t.Fatalf("%s: in pieces %d bytes, %d lines, marks %v; whole %d, %d, %v", name, got.Size, got.Lines, got.Marks, want.Size, want.Lines, want.Marks)
	}
}

// FuzzMarker: any bytes, cut anywhere, give Scan's marks, and every mark
// is a line start (verify compares them with lines.json).
func FuzzMarker(f *testing.F) {
	f.Add([]byte("a\nb\n\nc"), uint64(1))
	f.Add([]byte(strings.Repeat("\n", 3*Every)), uint64(7))
	f.Fuzz(func(t *testing.T, data []byte, seed uint64) {
		checkPieces(t, "fuzz", string(data), rand.New(rand.NewPCG(seed, 1)))
		mk := Marker{}
		mk.Write(data)
		starts := lineStarts(string(data))
		for _, m := range mk.File().Marks {
			if m[0] < 1 || int(m[0]) > len(starts) || starts[m[0]-1] != m[1] {
				t.Fatalf("mark %v is not a line start", m)
			}
		}
	})
}

// FuzzParse: no input makes Parse panic; a parsed index seeks within each
// file, and encodes to a document that parses to the same marks.
func FuzzParse(f *testing.F) {
	f.Add(encoded(f, File{Path: "a", Hash: "blake3:00", Size: 10, Lines: 3, Marks: [][2]int64{{1, 0}, {2, 4}}}))
	f.Add([]byte(`{"schema":"repoprep.lines/v2","every":65536,"files":[{"path":"a","hash":"","size":10,"lines":3,"marks":[[1,0],[2,4]],"sum":""}]}`))
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
		again, err := Parse(encoded(t, ix.Files...))
		if err != nil || !slices.EqualFunc(again.Files, ix.Files, func(a, b File) bool {
			return a.Path == b.Path && a.Sum == b.Sum && slices.Equal(a.Marks, b.Marks)
		}) {
			t.Fatalf("re-encoded: %v", err)
		}
	})
}
