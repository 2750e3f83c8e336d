package refresh_test

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/zeebo/blake3"
	"golang.org/x/sync/errgroup"

	"github.com/repoprep/repoprep/internal/dirfd"
	"github.com/repoprep/repoprep/internal/testkit"
	"github.com/repoprep/repoprep/pipeline"
	"github.com/repoprep/repoprep/refresh"
	"github.com/repoprep/repoprep/snapshot"
)

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// BenchmarkPlaceGoSrc measures what a refresh pays to put the previous
// snapshot's staged files into the new tree (make bench-refresh; set
// REPOPREP_BENCH_TMPFS to a reflink filesystem, XFS or btrfs, to see
// FICLONE): place as a refresh does (a reflink where the filesystem has
// them, else a copy: in the kernel for copies whose identity the state
// vouches for, else read and hashed), place hashing every copy, place
// with hashed copies only, and two baselines: reading and hashing alone,
// and hard links (which a refresh must not use: see place).
func BenchmarkPlaceGoSrc(b *testing.B) {
	tree := os.Getenv("REPOPREP_BENCH_TREE")
	if tree == "" {
		b.Skip("set REPOPREP_BENCH_TREE (make bench-refresh)")
	}
	work, err := os.MkdirTemp(cmpOr(os.Getenv("REPOPREP_BENCH_TMPFS"), "/dev/shm"), "repoprep-bench-place-")
	if err != nil {
		b.Fatal(err)
	}
	defer os.RemoveAll(work)
	src, out := filepath.Join(work, "src"), filepath.Join(work, "out")
	if err := testkit.CopyTree(tree, src); err != nil {
		b.Fatal(err)
	}
	key := []byte("refresh-bench-key-0123456789abcdef")
	opts := pipeline.Options{Root: src, OutDir: out, Version: "bench", FingerprintKey: key, Workers: runtime.NumCPU()}
	res, err := pipeline.Run(b.Context(), opts)
	if err != nil {
		b.Fatal(err)
	}
	p, why, detail := refresh.Load(out, res.Report.Refresh.Key, refresh.NewKeys(key))
	if p == nil {
		b.Fatalf("%s %s", why, detail)
	}
	defer p.Close()
	jobs := p.PlaceJobs()
	var total int64
	for _, j := range jobs {
		total += j.Size
	}
	each := func(b *testing.B, fn func(j refresh.PlaceJob, dst *dirfd.Out, to string) error) {
		b.SetBytes(total)
		for i := 0; b.Loop(); i++ {
			dst := filepath.Join(work, fmt.Sprintf("new-%d", i))
			if err := os.Mkdir(dst, 0o755); err != nil {
				b.Fatal(err)
			}
			tree, err := dirfd.OpenOut(dst) // a new tree, as each run's
			if err != nil {
				b.Fatal(err)
			}
			var g errgroup.Group
			g.SetLimit(opts.Workers)
			for _, j := range jobs {
				g.Go(func() error { return fn(j, tree, filepath.Join(dst, filepath.FromSlash(j.From))) })
			}
			if err := g.Wait(); err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			tree.Close()
			os.RemoveAll(dst)
			b.StartTimer()
		}
		b.ReportMetric(float64(len(jobs))*float64(b.N)/b.Elapsed().Seconds(), "files/s")
	}
	place := func(trusted bool) func(j refresh.PlaceJob, dst *dirfd.Out, to string) error {
		return func(j refresh.PlaceJob, dst *dirfd.Out, _ string) error {
			why, err := p.Place(b.Context(), j, dst, trusted)
			if err == nil && why != "" {
				err = fmt.Errorf("%s: %s", j.From, why)
			}
			return err
		}
	}
	b.Run("place", func(b *testing.B) { each(b, place(true)) })
	b.Run("place-hashed", func(b *testing.B) { each(b, place(false)) })
	b.Run("place-copy", func(b *testing.B) {
		refresh.SetCloneFiles(false)
		defer refresh.SetCloneFiles(true)
		each(b, place(false))
	})
	b.Run("read-hash", func(b *testing.B) {
		bufs := sync.Pool{New: func() any { b := make([]byte, 256<<10); return &b }} // place's buffers
		each(b, func(j refresh.PlaceJob, _ *dirfd.Out, _ string) error {
			f, err := p.OpenCopy(j.From)
			if err != nil {
				return err
			}
			defer f.Close()
			bp := bufs.Get().(*[]byte)
			defer bufs.Put(bp)
			h := blake3.New()
			_, err = io.CopyBuffer(struct{ io.Writer }{h}, struct{ io.Reader }{f}, *bp) // the same reads as place
			return err
		})
	})
	b.Run("hardlink", func(b *testing.B) {
		each(b, func(j refresh.PlaceJob, _ *dirfd.Out, to string) error {
			if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
				return err
			}
			return os.Link(filepath.Join(out, snapshot.TreeDir, j.From), to)
		})
	})
}
