package textenc

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/repoprep/repoprep/internal/testkit"
)

// stagedTexts returns the texts a run stages from Go's src/: the files
// under $REPOPREP_STAGED_TREE (an OUT/tree, on a tmpfs), or else
// GOROOT/src's files under 1 MiB.
func stagedTexts(b *testing.B) (texts [][]byte, size int) {
	b.Helper()
	root := os.Getenv("REPOPREP_STAGED_TREE")
	if root == "" {
		files, err := gorootFiles()
		if err != nil || len(files) == 0 {
			b.Skipf("GOROOT/src not readable: %v", err)
		}
		for _, f := range files {
			size += len(f)
		}
		return files, size
	}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		text, err := os.ReadFile(path)
		texts, size = append(texts, text), size+len(text)
		return err
	})
	if err != nil || len(texts) == 0 {
		b.Skipf("no staged texts at hand: %v", err)
	}
	return texts, size
}

// BenchmarkNormalizerStaged: a Normalizer over the texts a run stages
// from Go's src/ (already clean UTF-8: the fast path's case), uncounted,
// into a buffer as the per-file loop does, beside a plain copy of the
// same bytes into the same buffer, in turn within each iteration.
// Reports CPU MB/s of each and their ratio.
func BenchmarkNormalizerStaged(b *testing.B) {
	texts, size := stagedTexts(b)
	var n Normalizer
	var out bytes.Buffer
	var norm, cp time.Duration
	for b.Loop() {
		t0 := testkit.CPUTime()
		for _, text := range texts {
			out.Reset()
			if _, err := n.Normalize(bytes.NewReader(text), &out, Options{NoTokens: true}); err != nil && os.Getenv("REPOPREP_STAGED_TREE") != "" {
				b.Fatal(err)
			}
		}
		t1 := testkit.CPUTime()
		for _, text := range texts {
			out.Reset()
			out.ReadFrom(bytes.NewReader(text))
		}
		norm, cp = norm+t1-t0, cp+testkit.CPUTime()-t1
	}
	mb := float64(size) * float64(b.N) / 1e6
	b.ReportMetric(mb/norm.Seconds(), "cpu-MB/s-normalize")
	b.ReportMetric(mb/cp.Seconds(), "cpu-MB/s-copy")
	b.ReportMetric(norm.Seconds()/cp.Seconds(), "normalize/copy")
}
