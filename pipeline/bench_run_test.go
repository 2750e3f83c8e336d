package pipeline

import (
	"context"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/zeebo/blake3"

	"github.com/repoprep/repoprep/internal/testkit"
)

// benchTree is the tree BenchmarkRun reads: REPOPREP_BENCH_TREE, or a copy
// of two packages of GOROOT/src (net and encoding: Go, test data and a few
// binaries), and its size in bytes.
func benchTree(b *testing.B) (string, int64) {
	b.Helper()
	root := os.Getenv("REPOPREP_BENCH_TREE")
	if root == "" {
		root = b.TempDir()
		src := testkit.GoSrc(b)
		for _, pkg := range []string{"net", "encoding"} {
			if err := os.CopyFS(filepath.Join(root, pkg), os.DirFS(filepath.Join(src, pkg))); err != nil {
				b.Skipf("no GOROOT/src to read: %v", err)
			}
		}
	}
	var size int64
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				size += info.Size()
			}
		}
		return nil
	})
	return root, size
}

// BenchmarkRun is a whole run over a generated tree beside a plain copy of
// the same files (read each, hash it, write it: what a run does at the
// least) in the same run.
// Besides MB/s of input it reports the bytes allocated per input byte
// (alloc-B/B), which the loop's per-worker buffers keep down.
func BenchmarkRun(b *testing.B) {
	src, size := benchTree(b)
	for _, c := range []struct{ name string }{{"run"}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(size)
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			for b.Loop() {
				out := filepath.Join(b.TempDir(), "out")
				opts := Options{Root: src, OutDir: out, Workers: 2, Version: "bench"}
				if _, err := Run(context.Background(), opts); err != nil {
					b.Fatal(err)
				}
			}
			runtime.ReadMemStats(&after)
			b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(size)/float64(b.N), "alloc-B/B")
		})
	}
	b.Run("plain-copy", func(b *testing.B) {
		b.SetBytes(size)
		buf := make([]byte, 1<<20)
		for b.Loop() {
			out := b.TempDir()
			err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
				if err != nil || !d.Type().IsRegular() {
					return err
				}
				rel, _ := filepath.Rel(src, p)
				dst := filepath.Join(out, rel)
				if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
					return err
				}
				in, err := os.Open(p)
				if err != nil {
					return err
				}
				defer in.Close()
				w, err := os.Create(dst)
				if err != nil {
					return err
				}
				h := blake3.New()
				if _, err := io.CopyBuffer(io.MultiWriter(w, h), in, buf); err != nil {
					w.Close()
					return err
				}
				h.Sum(nil)
				return w.Close()
			})
			if err != nil {
				b.Fatal(err)
			}
		}
	})
}
