package pipeline

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zeebo/blake3"
	"golang.org/x/sync/errgroup"

	"github.com/repoprep/repoprep/report"
)

// BenchmarkRefreshGoSrc (make bench-refresh) runs, on a copy of Go's src/
// on a tmpfs, in each iteration: a full run, a refresh with nothing
// changed, and a refresh after one file changed, all into one OUT, and
// reports each refresh as a ratio of the full run of the same iteration
// (interleaved, so the machine's load weighs on all three alike). The
// issue's bars: unchanged ≤ 0.15, one file changed ≤ 0.25. Iterations are
// two seconds apart (racyWindow), as runs on a schedule are; a fourth
// run, right after the one-file refresh, shows the price of an edit
// within that window (racy-unchanged: nothing changed, but the edited
// file and the files with findings are read again).
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
	// The memory settings `repoprep run` makes (cmd/repoprep: runMemoryLimit, runGCPercent).
	opts := Options{Root: src, OutDir: filepath.Join(work, "out"), Version: "bench", FingerprintKey: testFingerprintKey,
		MemoryLimit: 120 << 20, GCPercent: 400}
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
	var tFull, tSame, tOne, tRacy time.Duration
	var files int
	var same, one, racy *Result
	for i := 0; b.Loop(); i++ {
		if i > 0 {
			// As on a schedule, no edit lands within racyWindow of a run:
			// the last iteration's edit would be read again as racily
			// clean, and with it every file with findings (the replay
			// needs every other file as it was).
			time.Sleep(racyWindow + 100*time.Millisecond)
		}
		d, res := run(true)
		tFull += d
		files = len(res.Manifest.Files)
		d, res = run(false)
		tSame += d
		same = res
		if rf := res.Report.Refresh; rf.Previous != report.PreviousUsed || rf.Reused != files {
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
		one = res
		if rf := res.Report.Refresh; rf.NotReused[whyChanged] == 0 {
			b.Fatalf("one file changed: %+v", rf)
		}
		// Nothing changed since, but the edit lies within racyWindow of
		// the last run: that file is read again, and so are the files
		// with findings.
		d, res = run(false)
		tRacy += d
		racy = res
		if rf := res.Report.Refresh; rf.NotReused[whyRacy] == 0 {
			b.Fatalf("an edit just before the last run: %+v", rf)
		}
	}
	// Where a refresh's time goes, from its report.json.
	for name, res := range map[string]*Result{"unchanged": same, "one changed": one, "unchanged, racy": racy} {
		var row []string
		for _, st := range res.Report.Stages {
			row = append(row, fmt.Sprintf("%s %.3f", st.Name, st.Seconds))
		}
		b.Logf("%s refresh, %.3f s: %s", name, res.Report.Seconds, strings.Join(row, ", "))
	}
	n := float64(b.N)
	b.ReportMetric(float64(files)*n/tFull.Seconds(), "full-files/s")
	b.ReportMetric(tFull.Seconds()/n, "full-s")
	b.ReportMetric(tSame.Seconds()/tFull.Seconds(), "unchanged/full")
	b.ReportMetric(tOne.Seconds()/tFull.Seconds(), "one-changed/full")
	b.ReportMetric(tRacy.Seconds()/tFull.Seconds(), "racy-unchanged/full")
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
	if err := copyTree(tree, src); err != nil {
		b.Fatal(err)
	}
	opts := Options{Root: src, OutDir: out, Version: "bench", FingerprintKey: testFingerprintKey, Workers: runtime.NumCPU()}
	res, err := Run(b.Context(), opts)
	if err != nil {
		b.Fatal(err)
	}
	key := res.Report.Refresh.Key
	p, why, detail := loadPrior(out, key, newRefreshKeys(testFingerprintKey))
	if p == nil {
		b.Fatalf("%s %s", why, detail)
	}
	defer p.close()
	type job struct {
		from  string
		want  [32]byte
		trust *copyID
	}
	var jobs []job
	var total int64
	for _, en := range p.entries {
		if en.Staged {
			sum, _ := hexSum(en.Hash)
			var trust *copyID
			if se := p.files[en.Path]; se != nil {
				trust = se.Copy
			}
			jobs = append(jobs, job{en.Path, sum, trust})
			total += en.Size
		}
	}
	each := func(b *testing.B, fn func(j job, to string) error) {
		b.SetBytes(total)
		for i := 0; b.Loop(); i++ {
			dst := filepath.Join(work, fmt.Sprintf("new-%d", i))
			p.made = sync.Map{}
			g := errgroupWithLimit(opts.Workers)
			for _, j := range jobs {
				g.Go(func() error { return fn(j, filepath.Join(dst, filepath.FromSlash(j.from))) })
			}
			if err := g.Wait(); err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			os.RemoveAll(dst)
			b.StartTimer()
		}
		b.ReportMetric(float64(len(jobs))*float64(b.N)/b.Elapsed().Seconds(), "files/s")
	}
	place := func(trusted bool) func(j job, to string) error {
		return func(j job, to string) error {
			trust := j.trust
			if !trusted {
				trust = nil
			}
			_, why, err := p.place(b.Context(), j.from, to, j.want, trust)
			if err == nil && why != "" {
				err = fmt.Errorf("%s: %s", j.from, why)
			}
			return err
		}
	}
	b.Run("place", func(b *testing.B) { each(b, place(true)) })
	b.Run("place-hashed", func(b *testing.B) { each(b, place(false)) })
	b.Run("place-copy", func(b *testing.B) {
		cloneFiles = false
		defer func() { cloneFiles = true }()
		each(b, place(false))
	})
	b.Run("read-hash", func(b *testing.B) {
		each(b, func(j job, _ string) error {
			f, err := p.open(j.from)
			if err != nil {
				return err
			}
			defer f.Close()
			bp := copyBufs.Get().(*[]byte)
			defer copyBufs.Put(bp)
			h := blake3.New()
			_, err = io.CopyBuffer(struct{ io.Writer }{h}, struct{ io.Reader }{f}, *bp) // the same reads as place
			return err
		})
	})
	b.Run("hardlink", func(b *testing.B) {
		each(b, func(j job, to string) error {
			if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
				return err
			}
			return os.Link(filepath.Join(out, "tree", j.from), to)
		})
	})
}

func errgroupWithLimit(n int) *errgroup.Group {
	var g errgroup.Group
	g.SetLimit(n)
	return &g
}
