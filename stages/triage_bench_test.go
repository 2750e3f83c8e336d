package stages

import (
	"bytes"
	"context"
	"os"
	"testing"
	"time"

	"github.com/repoprep/repoprep/internal/testkit"
)

// BenchmarkTriage runs triage alone, on one goroutine, over the generated
// tree's records, classified once beforehand (each iteration gets fresh
// copies, heads included, and an empty directory cache): the stage's own
// cost, without reads. Pair it with BenchmarkPlainWalk (also one
// goroutine) from the same run.
func BenchmarkTriage(b *testing.B) {
	benchTriage(b, benchTree(b))
}

// BenchmarkTriageTree is BenchmarkTriage over a real tree named by
// REPOPREP_BENCH_TREE (make bench-triage uses GOROOT/src); skipped without it.
func BenchmarkTriageTree(b *testing.B) {
	dir := os.Getenv("REPOPREP_BENCH_TREE")
	if dir == "" {
		b.Skip("REPOPREP_BENCH_TREE not set")
	}
	benchTriage(b, dir)
}

// BenchmarkScanClassifyTriageTree is BenchmarkScanClassifyTriage over
// REPOPREP_BENCH_TREE.
func BenchmarkScanClassifyTriageTree(b *testing.B) {
	dir := os.Getenv("REPOPREP_BENCH_TREE")
	if dir == "" {
		b.Skip("REPOPREP_BENCH_TREE not set")
	}
	root := openRoot(b, dir)
	rs := defaultRules(b)
	var files int
	c0 := testkit.CPUTime()
	for b.Loop() {
		files = scanClassifyTriage(b, root, rs, 2)
	}
	b.ReportMetric(float64(files)*float64(b.N)/b.Elapsed().Seconds(), "files/s")
	reportCPU(b, files, testkit.CPUTime()-c0)
}

// BenchmarkPlainWalkCPU is BenchmarkPlainWalkTree over the generated tree:
// the stat-walk baseline for BenchmarkTriage, with files per CPU second.
func BenchmarkPlainWalkCPU(b *testing.B) {
	b.Setenv("REPOPREP_BENCH_TREE", benchTree(b))
	BenchmarkPlainWalkTree(b)
}

// BenchmarkPlainWalkTree is the stat-walk baseline over REPOPREP_BENCH_TREE.
func BenchmarkPlainWalkTree(b *testing.B) {
	dir := os.Getenv("REPOPREP_BENCH_TREE")
	if dir == "" {
		b.Skip("REPOPREP_BENCH_TREE not set")
	}
	var files int
	c0 := testkit.CPUTime()
	for b.Loop() {
		files = statWalk(b, dir)
	}
	b.ReportMetric(float64(files)*float64(b.N)/b.Elapsed().Seconds(), "files/s")
	reportCPU(b, files, testkit.CPUTime()-c0)
}

func benchTriage(b *testing.B, dir string) {
	root := openRoot(b, dir)
	rs := defaultRules(b)
	env := &Env{Src: root, Rules: rs}
	recs, _, err := Scan(context.Background(), ScanOptions{Root: root, Rules: rs, Workers: 2})
	if err != nil {
		b.Fatal(err)
	}
	w := &Worker{}
	for _, rec := range recs {
		if err := env.readAndClassify(context.Background(), rec, w); err != nil {
			b.Fatal(err)
		}
		rec.work.head = bytes.Clone(rec.sniffed()) // w's buffer serves the next file
	}
	work := make([]Record, len(recs))
	var cpu time.Duration
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		for i, rec := range recs {
			work[i] = *rec
		}
		env := &Env{Src: root, Rules: rs} // a fresh directory cache each time, as in a run
		c0 := testkit.CPUTime()
		b.StartTimer()
		for i := range work {
			if err := env.Triage(context.Background(), &work[i]); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		cpu += testkit.CPUTime() - c0
		b.StartTimer()
	}
	b.ReportMetric(float64(len(recs))*float64(b.N)/b.Elapsed().Seconds(), "files/s")
	reportCPU(b, len(recs), cpu)
}

// reportCPU adds the files/cpu-s metric for files handled per iteration.
func reportCPU(b *testing.B, files int, cpu time.Duration) {
	if cpu > 0 {
		b.ReportMetric(float64(files)*float64(b.N)/cpu.Seconds(), "files/cpu-s")
	}
}

// BenchmarkScanClassifyTriageCPU is BenchmarkScanClassifyTriageTree over
// the generated tree, with files per CPU second.
func BenchmarkScanClassifyTriageCPU(b *testing.B) {
	b.Setenv("REPOPREP_BENCH_TREE", benchTree(b))
	BenchmarkScanClassifyTriageTree(b)
}
