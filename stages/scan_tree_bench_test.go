package stages

import (
	"context"
	"os"
	"testing"

	"github.com/repoprep/repoprep/internal/testkit"
)

// BenchmarkScanTree is the scan alone (two workers, as a run on two
// cores) over REPOPREP_BENCH_TREE: pair it with BenchmarkPlainWalkTree
// from the same run for the scan's gap to a plain stat walk, which is
// what an unchanged refresh costs beyond its floor.
func BenchmarkScanTree(b *testing.B) {
	dir := os.Getenv("REPOPREP_BENCH_TREE")
	if dir == "" {
		b.Skip("REPOPREP_BENCH_TREE not set")
	}
	root := openRoot(b, dir)
	rs := defaultRules(b)
	var files int
	c0 := testkit.CPUTime()
	for b.Loop() {
		recs, _, err := Scan(context.Background(), ScanOptions{Root: root, Rules: rs, Workers: 2})
		if err != nil {
			b.Fatal(err)
		}
		files = len(recs)
	}
	b.ReportMetric(float64(files)*float64(b.N)/b.Elapsed().Seconds(), "files/s")
	reportCPU(b, files, testkit.CPUTime()-c0)
}
