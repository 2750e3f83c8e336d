package tokens

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/repoprep/repoprep/internal/testkit"
)

// stagedTexts returns the texts a run stages from Go's src/: the files
// under $REPOPREP_STAGED_TREE (an OUT/tree of a run, on a tmpfs), or else
// GOROOT/src's valid UTF-8 files, up to maxBytes in all.
func stagedTexts(b *testing.B, maxBytes int) (texts [][]byte, size int) {
	b.Helper()
	root := os.Getenv("REPOPREP_STAGED_TREE")
	if root == "" {
		root = testkit.GoSrc(b)
	}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !d.Type().IsRegular() || size >= maxBytes {
			return err
		}
		text, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if utf8.Valid(text) && len(text) <= 1<<20 {
			texts, size = append(texts, text), size+len(text)
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	if len(texts) == 0 {
		b.Skip("no staged texts at hand")
	}
	return texts, size
}

// BenchmarkCountLinesFloor: a text's count with its lines' (CountLines,
// what normalize does for linetokens.index) against the text's count alone
// (CountBytes, the floor bench-run compares with), in turn within each
// iteration so the machine's load falls on both alike, over the texts a
// run stages from Go's src/ ($REPOPREP_STAGED_TREE, else GOROOT/src).
// Reports each one's MB/s of CPU and lines/count, the ratio to close.
func BenchmarkCountLinesFloor(b *testing.B) {
	texts, size := stagedTexts(b, 128<<20)
	Warm()
	var count, lines time.Duration
	for b.Loop() {
		t0 := testkit.CPUTime()
		for _, text := range texts {
			CountBytes(text)
		}
		t1 := testkit.CPUTime()
		for _, text := range texts {
			CountLines(text, 64<<10, func(int, int) {})
		}
		count, lines = count+t1-t0, lines+testkit.CPUTime()-t1
	}
	mb := float64(size) * float64(b.N) / 1e6
	b.ReportMetric(mb/count.Seconds(), "cpu-MB/s-count")
	b.ReportMetric(mb/lines.Seconds(), "cpu-MB/s-lines")
	b.ReportMetric(lines.Seconds()/count.Seconds(), "lines/count")
}
