//go:build unix

package stages

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// BenchmarkDeepChain runs the scan, the per-file loop and the pruning of
// empty directories (what a run does to the tree before its cross-file
// steps) over 2,000 files two ways: a chain of 2,000 nested directories
// holding one file each (the deepest path 4,000 bytes long), and the same
// number of files in one directory. Each file's directory is read, and
// its copy made and created, relative to a held descriptor, so the chain
// costs about what the flat directory does; by whole paths it cost the
// kernel a walk of every ancestor for each file (make bench; the README's
// Performance section has the figures).
func BenchmarkDeepChain(b *testing.B) {
	const files = 2000
	for _, shape := range []string{"flat", "deep"} {
		b.Run(shape, func(b *testing.B) {
			src := memDir(b)
			if shape == "deep" {
				mkdeep(b, src, files-1, 1) // a file at each level and one at the bottom
			} else {
				tree := map[string]string{}
				for i := range files {
					tree[fmt.Sprintf("f%04d.txt", i)] = fmt.Sprintf("level %d\n", i)
				}
				writeTree(b, src, tree)
			}
			root := openRoot(b, src)
			rs := defaultRules(b)
			work := memDir(b)
			b.ResetTimer()
			cpu := cpuTime(b)
			for i := 0; b.Loop(); i++ {
				out := filepath.Join(work, fmt.Sprint(i))
				must(b, os.Mkdir(out, 0o755))
				n := runLoop(b, &Env{Src: root, TreeDir: out, Rules: rs, MaxTextBytes: 1 << 20}, 2)
				if n != files {
					b.Fatalf("%d records, want %d", n, files)
				}
				b.StopTimer()
				cpu -= cpuTime(b) // the removal is not the run's
				must(b, os.RemoveAll(out))
				cpu += cpuTime(b)
				b.StartTimer()
			}
			// CPU time is the steadier figure on a shared machine, where
			// the wall time moves with what else runs.
			b.ReportMetric((cpuTime(b)-cpu).Seconds()/float64(b.N), "cpu-s/op")
			b.ReportMetric(files*float64(b.N)/b.Elapsed().Seconds(), "files/s")
		})
	}
}

// cpuTime is the CPU time (user and system) this process has used.
func cpuTime(t testing.TB) time.Duration {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
