package tokens

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// linesByCount is CountLines the slow way: each line's copy counted on
// its own.
func linesByCount(text string, maxLine int) (lengths, counts []int) {
	if text == "" {
		return nil, nil
	}
	lines := strings.Split(text, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1] // the text ends in a newline
	}
	for _, l := range lines {
		lengths = append(lengths, len(l))
		if len(l) > maxLine {
			counts = append(counts, -1)
		} else {
			counts = append(counts, Count(" "+l+"\n"))
		}
	}
	return lengths, counts
}

// checkCountLines fails t unless CountLines gives Count(text) and every
// line's count as counting its copy does.
func checkCountLines(t *testing.T, text string, maxLine int) {
	t.Helper()
	var lengths, counts []int
	whole, ok := CountLines([]byte(text), maxLine, func(length, count int) {
		lengths, counts = append(lengths, length), append(counts, count)
	})
	if !ok {
		t.Fatalf("CountLines(%q) refused a valid text", text)
	}
	if want := Count(text); whole != want {
		t.Errorf("CountLines(%q) = %d, Count = %d", text, whole, want)
	}
	wantLengths, wantCounts := linesByCount(text, maxLine)
	if len(lengths) != len(wantLengths) {
		t.Fatalf("CountLines(%q): %d lines, want %d", text, len(lengths), len(wantLengths))
	}
	for i := range lengths {
		if lengths[i] != wantLengths[i] || counts[i] != wantCounts[i] {
			t.Errorf("CountLines(%q): line %d is %d bytes and %d tokens, want %d and %d", text, i+1, lengths[i], counts[i], wantLengths[i], wantCounts[i])
		}
	}
}

// TestCountLinesExact: the shared scan gives the text's count and every
// line's, where the two scans differ at a line's ends: a leading space
// that joins a word, indentation, punctuation that runs on into the next
// line's slashes, runs of empty lines, trailing spaces, CR, NBSP, CJK,
// contractions, digits, a last line without its newline, and lines over
// the limit.
func TestCountLinesExact(t *testing.T) {
	for name, text := range map[string]string{
		"empty":          "",
		"one newline":    "\n",
		"newlines":       "\n\n\n",
		"go":             "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"hi\")\n}\n",
		"comments":       "}\n// Doc says.\n//\n// More.\nfunc F() {}\n/* x */\n",
		"indent":         "\t\tif x {\n\t\t\treturn\n  \t  }\n    y := 1\n",
		"trailing space": "a  \nb \t\n  \n\t\n c\n",
		"cr":             "a\r\nb\rc\n\r\n\r",
		"no final":       "first\nsecond without",
		"punct runs":     "x;\n/\n//\n;;\n/;/\n\n/x\n",
		"prose":          "It's what we'd've done.\nDON'T.\n I'm here\n",
		"digits":         "1234567\n 12\n3\n",
		"unicode":        "注释 comment\n\u00a0nbsp\u00a0\n\u2028line sep\n\u3000全角\nÉté\n",
		"marks":          "e\u0301\n\u0301x\n",
	} {
		t.Run(name, func(t *testing.T) {
			checkCountLines(t, text, 64<<10)
			checkCountLines(t, text, 3) // longer lines are not counted
		})
	}
}

// TestCountLinesGoSource: the same on real source, when a copy of Go's
// tree is at hand ($GOROOT/src's net/http).
func TestCountLinesGoSource(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(os.Getenv("GOROOT"), "src", "net", "http", "*.go"))
	if len(files) == 0 {
		files, _ = filepath.Glob("/usr/local/go/src/net/http/*.go")
	}
	if len(files) == 0 {
		t.Skip("no Go source at hand")
	}
	for _, f := range files[:min(len(files), 40)] {
		text, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		checkCountLines(t, string(text), 64<<10)
	}
}

// FuzzCountLines: CountLines is Count and each line's copy's Count on
// any valid text, and refuses an invalid one.
func FuzzCountLines(f *testing.F) {
	for _, s := range []string{"", "a\n", "}\n//x\n", "\n\n \n", "x  \n\ty", "It's\n'll\n", "注\u00a0\n"} {
		f.Add(s)
	}
	Warm() // before the first input: building the tables takes seconds on a busy machine
	f.Fuzz(func(t *testing.T, text string) {
		if len(text) > 4<<10 {
			return // the slow way counts each line again
		}
		if _, ok := CountLines([]byte(text), 64<<10, func(int, int) {}); !ok {
			if strings.ToValidUTF8(text, "") == text {
				t.Fatalf("CountLines refused valid %q", text)
			}
			return
		}
		checkCountLines(t, text, 64<<10)
		checkCountLines(t, text, 8)
	})
}

// BenchmarkCountLinesShared: a text's count and its lines' in one scan
// (CountLines) against the two apart (Count, then each line's copy), in
// turn within each iteration so the machine's load falls on both alike;
// reports each one's MB/s and the ratio. The text is net/http's Go files
// when a Go tree is at hand.
func BenchmarkCountLinesShared(b *testing.B) {
	files, _ := filepath.Glob("/usr/local/go/src/net/http/*.go")
	if len(files) == 0 {
		b.Skip("no Go source at hand")
	}
	var texts [][]byte
	size := 0
	for _, f := range files {
		text, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		texts = append(texts, text)
		size += len(text)
	}
	Warm()
	var apart, shared time.Duration
	var buf []byte
	for b.Loop() {
		t0 := time.Now()
		for _, text := range texts {
			CountBytes(text)
			for rest := text; len(rest) > 0; {
				i := bytes.IndexByte(rest, '\n')
				if i < 0 {
					i = len(rest) - 1
				}
				buf = append(append(append(buf[:0], ' '), rest[:i]...), '\n')
				CountBytes(buf)
				rest = rest[i+1:]
			}
		}
		t1 := time.Now()
		for _, text := range texts {
			CountLines(text, 64<<10, func(int, int) {})
		}
		apart, shared = apart+t1.Sub(t0), shared+time.Since(t1)
	}
	b.ReportMetric(float64(size)*float64(b.N)/1e6/apart.Seconds(), "MB/s-apart")
	b.ReportMetric(float64(size)*float64(b.N)/1e6/shared.Seconds(), "MB/s-shared")
	b.ReportMetric(shared.Seconds()/apart.Seconds(), "shared/apart")
}
