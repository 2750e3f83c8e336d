package pipeline

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// BenchmarkRefreshGoSrc (make bench-refresh) runs, on a copy of Go's src/
// on a tmpfs, in each iteration: a full run, a refresh with nothing
// changed, and a refresh after one file changed, all into one OUT, and
// reports each refresh as a ratio of the full run of the same iteration
// (interleaved, so the machine's load weighs on all three alike). The
// issue's bars: unchanged ≤ 0.15, one file changed ≤ 0.25.
// REPOPREP_BENCH_TREE names the tree to copy (default GOROOT/src),
// REPOPREP_BENCH_TMPFS where to copy it (default /dev/shm).
func BenchmarkRefreshGoSrc(b *testing.B) {
	tree := os.Getenv("REPOPREP_BENCH_TREE")
	if tree == "" {
		b.Skip("set REPOPREP_BENCH_TREE (make bench-refresh)")
	}
	tmpfs := cmpOr(os.Getenv("REPOPREP_BENCH_TMPFS"), "/dev/shm")
	work, err := os.MkdirTemp(tmpfs, "repoprep-bench-refresh-")
	if err != nil {
		b.Fatal(err)
	}
	defer os.RemoveAll(work)
	src := filepath.Join(work, "src")
	if err := copyTree(tree, src); err != nil {
		b.Fatal(err)
	}
	time.Sleep(racyWindow + 100*time.Millisecond) // files written just now would be read again
	// One file every iteration changes: an edit, then its undo.
	edit := filepath.Join(src, "fmt", "print.go")
	orig, err := os.ReadFile(edit)
	if err != nil {
		b.Fatal(err)
	}
	opts := Options{Root: src, OutDir: filepath.Join(work, "out"), Version: "bench", FingerprintKey: testFingerprintKey}
	run := func(full bool) (time.Duration, *Result) {
		o := opts
		o.Full = full
		runtime.GC()
		start := time.Now()
		res, err := Run(b.Context(), o)
		if err != nil {
			b.Fatal(err)
		}
		return time.Since(start), res
	}
	var tFull, tSame, tOne time.Duration
	var files int
	for i := 0; b.Loop(); i++ {
		d, res := run(true)
		tFull += d
		files = len(res.Manifest.Files)
		d, res = run(false)
		tSame += d
		if rf := res.Report.Refresh; rf.Previous != previousUsed {
			b.Fatalf("unchanged: %+v", rf)
		}
		text := orig
		if i%2 == 0 {
			text = append(append([]byte{}, orig...), fmt.Sprintf("\n// edit %d\n", i)...)
		}
		if err := os.WriteFile(edit, text, 0o644); err != nil {
			b.Fatal(err)
		}
		d, res = run(false)
		tOne += d
		if rf := res.Report.Refresh; rf.NotReused[whyChanged] == 0 {
			b.Fatalf("one file changed: %+v", rf)
		}
	}
	n := float64(b.N)
	b.ReportMetric(float64(files)*n/tFull.Seconds(), "full-files/s")
	b.ReportMetric(tFull.Seconds()/n, "full-s")
	b.ReportMetric(tSame.Seconds()/tFull.Seconds(), "unchanged/full")
	b.ReportMetric(tOne.Seconds()/tFull.Seconds(), "one-changed/full")
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// copyTree copies the regular files and directories below from to to
// (symlinks as symlinks).
func copyTree(from, to string) error {
	return filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		dst := filepath.Join(to, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(dst, 0o755)
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(target, dst)
		case !d.Type().IsRegular():
			return nil
		}
		in, err := os.Open(p)
		if err != nil {
			return err
		}
		defer in.Close()
		out, err := os.Create(dst)
		if err != nil {
			return err
		}
		if _, err := io.Copy(out, in); err != nil {
			out.Close()
			return err
		}
		return out.Close()
	})
}
