package pipeline

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/repoprep/repoprep/internal/cputime"
	"github.com/repoprep/repoprep/internal/testkit"
	"github.com/repoprep/repoprep/refresh"
	"github.com/repoprep/repoprep/report"
)

// BenchmarkRefreshGoSrc (make bench-refresh) runs, on a copy of Go's src/
// on a tmpfs, in each iteration: a full run, a refresh with nothing
// changed, and a refresh after one file changed, all into one OUT, and
// reports each refresh as a ratio of the full run of the same iteration
// (interleaved, so the machine's load weighs on all three alike). The
// issue's bars: unchanged ≤ 0.15, one file changed ≤ 0.25. Iterations are
// two seconds apart (refresh.RacyWindow), as runs on a schedule are; a fourth
// run, right after the one-file refresh, shows the price of an edit
// within that window (racy-unchanged: nothing changed, but the edited
// file and the files with findings are read again).
// REPOPREP_BENCH_TREE names the tree to copy (default GOROOT/src),
// REPOPREP_BENCH_TMPFS where to copy it (default /dev/shm),
// REPOPREP_BENCH_PROFILE a file for a CPU profile of the one-file
// refreshes alone (every iteration's, in one profile).
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
	if err := testkit.CopyTree(tree, src); err != nil {
		b.Fatal(err)
	}
	time.Sleep(refresh.RacyWindow + 100*time.Millisecond) // files written just now would be read again
	// One file every iteration changes: an edit, then its undo.
	edit := filepath.Join(src, "fmt", "print.go")
	orig, err := os.ReadFile(edit)
	if err != nil {
		b.Fatal(err)
	}
	// The memory settings `repoprep run` makes (cmd/repoprep: runMemoryLimit, runGCPercent).
	opts := Options{Root: src, OutDir: filepath.Join(work, "out"), Version: "bench", FingerprintKey: testFingerprintKey,
		MemoryLimit: 120 << 20, GCPercent: 400}
	var lastTimeline string   // of the last refresh
	var lastCPU time.Duration // the process's CPU time over the last run
	run := func(full bool, before func()) (time.Duration, *Result) {
		o := opts
		o.Full = full
		runtime.GC()
		if before != nil {
			before() // after the collection, so the run starts right after it
		}
		start, cpu := time.Now(), cputime.Process()
		if !full {
			o.Progress = &timeline{start: start}
		}
		res, err := Run(b.Context(), o)
		if err != nil {
			b.Fatal(err)
		}
		took := time.Since(start)
		lastCPU = cputime.Process() - cpu
		if tl, ok := o.Progress.(*timeline); ok {
			tl.marks = append(tl.marks, fmt.Sprintf("returned %.3f", took.Seconds()))
			lastTimeline = strings.Join(tl.marks, ", ")
		}
		return took, res
	}
	profile := newOneProfile(b, os.Getenv("REPOPREP_BENCH_PROFILE"))
	defer profile.stop()
	var tFull, tSame, tOne, tRacy, tWalk time.Duration
	var cFull, cSame, cOne time.Duration // CPU time: under a shared machine's load it moves less than the wall
	var oneTimeline string
	var files int
	var same, one, racy *Result
	for i := 0; b.Loop(); i++ {
		if i > 0 {
			// As on a schedule, no edit lands within refresh.RacyWindow of a run:
			// the last iteration's edit would be read again as racily
			// clean, and with it every file with findings (the replay
			// needs every other file as it was).
			time.Sleep(refresh.RacyWindow + 100*time.Millisecond)
		}
		d, res := run(true, nil)
		tFull += d
		cFull += lastCPU
		runtime.GC()
		tWalk += statWalk(b, src)
		files = len(res.Manifest.Files)
		d, res = run(false, nil)
		tSame += d
		cSame += lastCPU
		same = res
		if rf := res.Report.Refresh; rf.Previous != report.PreviousUsed || rf.Reused != files {
			b.Fatalf("unchanged: %+v", rf)
		}
		text := orig
		if i%2 == 0 {
			text = append(append([]byte{}, orig...), fmt.Sprintf("\n// edit %d\n", i)...)
		}
		// Written just before the run starts: the next run finds it within
		// the racy window of this one (refresh.FineRacyWindow on a tmpfs).
		d, res = run(false, func() {
			if err := os.WriteFile(edit, text, 0o644); err != nil {
				b.Fatal(err)
			}
			profile.start()
		})
		profile.stop()
		tOne += d
		cOne += lastCPU
		one = res
		oneTimeline = lastTimeline
		if rf := res.Report.Refresh; rf.NotReused[report.NotReusedChanged] == 0 {
			b.Fatalf("one file changed: %+v", rf)
		}
		// Nothing changed since, but the edit lies within refresh.RacyWindow of
		// the last run: that file is read again, and so are the files
		// with findings.
		d, res = run(false, nil)
		tRacy += d
		racy = res
		if rf := res.Report.Refresh; rf.NotReused[report.NotReusedRacy] == 0 {
			b.Fatalf("an edit just before the last run: %+v", rf)
		}
	}
	// Where a refresh's time goes, from its report.json: wall and the
	// process's CPU time meanwhile.
	for name, res := range map[string]*Result{"unchanged": same, "one changed": one, "unchanged, racy": racy} {
		var row []string
		for _, st := range res.Report.Stages {
			row = append(row, fmt.Sprintf("%s %.3f (cpu %.3f)", st.Name, st.Seconds, st.CPUSeconds))
		}
		b.Logf("%s refresh, %.3f s: %s", name, res.Report.Seconds, strings.Join(row, ", "))
	}
	b.Logf("one changed refresh, when each stage began (s): %s", oneTimeline)
	n := float64(b.N)
	b.ReportMetric(float64(files)*n/tFull.Seconds(), "full-files/s")
	b.ReportMetric(tFull.Seconds()/n, "full-s")
	b.ReportMetric(tSame.Seconds()/tFull.Seconds(), "unchanged/full")
	b.ReportMetric(tOne.Seconds()/tFull.Seconds(), "one-changed/full")
	b.ReportMetric(tRacy.Seconds()/tFull.Seconds(), "racy-unchanged/full")
	b.ReportMetric(cSame.Seconds()/cFull.Seconds(), "unchanged-cpu/full-cpu")
	b.ReportMetric(cOne.Seconds()/cFull.Seconds(), "one-changed-cpu/full-cpu")
	b.ReportMetric(tWalk.Seconds()/tFull.Seconds(), "statwalk/full")
	b.ReportMetric(tSame.Seconds()/tWalk.Seconds(), "unchanged/statwalk")
}

// statWalk times a plain walk of root that lstats every entry: the floor
// of any scan that tells an unchanged tree, which an unchanged refresh is
// measured against.
func statWalk(b *testing.B, root string) time.Duration {
	start := time.Now()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		_, err = d.Info()
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	return time.Since(start)
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// oneProfile takes CPU profiles of chosen stretches of a benchmark:
// pprof profiles one stretch at a time, so each goes to its own file,
// path.1, path.2... (`go tool pprof` merges the files it is given). An
// empty path profiles nothing.
type oneProfile struct {
	b    *testing.B
	path string
	n    int
	f    *os.File
}

func newOneProfile(b *testing.B, path string) *oneProfile { return &oneProfile{b: b, path: path} }

func (p *oneProfile) start() {
	if p.path == "" {
		return
	}
	p.n++
	f, err := os.Create(fmt.Sprintf("%s.%d", p.path, p.n))
	if err != nil {
		p.b.Fatal(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		p.b.Fatal(err)
	}
	p.f = f
}

func (p *oneProfile) stop() {
	if p.f == nil {
		return
	}
	pprof.StopCPUProfile()
	if err := p.f.Close(); err != nil {
		p.b.Fatal(err)
	}
	p.f = nil
}

// timeline is a Reporter that notes when each stage begins, in seconds
// from start, and when the run's build ends (Done, before publication).
type timeline struct {
	start time.Time
	mu    sync.Mutex
	marks []string
}

func (t *timeline) Stage(name string, _ int) { t.mark(name) }
func (t *timeline) Add(int)                  {}
func (t *timeline) Done()                    { t.mark("built") }

func (t *timeline) mark(name string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.marks = append(t.marks, fmt.Sprintf("%s %.3f", name, time.Since(t.start).Seconds()))
}
