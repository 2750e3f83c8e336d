package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkShapes runs the repoprep binary over trees of hostile shapes,
// each beside find(1) walking the same tree in the same run, and reports
// wall time, the ratio to find and the peak RSS of both. The trees are
// built on /dev/shm where it exists, so both measure work, not the disk.
// It takes minutes: `make bench-shapes` runs it (REPOPREP_BENCH_SHAPES=1).
//
//	deep:  10,000 nested directories, a file every 100 levels
//	wide:  100,000 small text files in one directory
//	empty: 200,000 empty files in 200 directories
func BenchmarkShapes(b *testing.B) {
	if os.Getenv("REPOPREP_BENCH_SHAPES") == "" {
		b.Skip("set REPOPREP_BENCH_SHAPES=1 (make bench-shapes): builds 300,000 files")
	}
	find, err := exec.LookPath("find")
	if err != nil {
		b.Skip("no find(1) to compare with")
	}
	base, err := os.MkdirTemp("/dev/shm", "repoprep-shapes-")
	if err != nil {
		base = b.TempDir()
	} else {
		b.Cleanup(func() { os.RemoveAll(base) })
	}
	bin := filepath.Join(base, "repoprep")
	goTool, err := exec.LookPath("go")
	if err != nil {
		b.Skip("no go command to build the binary with")
	}
	build := exec.Command(goTool, "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	shapes := []struct {
		name string
		make func(b *testing.B, dir string)
	}{
		{"deep-10k-levels", func(b *testing.B, dir string) { mkdeep(b, dir, 10000, 100) }},
		{"wide-100k-in-one-dir", func(b *testing.B, dir string) {
			for i := range 100000 {
				if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%06d.txt", i)), []byte(fmt.Sprintf("line %d\n", i)), 0o644); err != nil {
					b.Fatal(err)
				}
			}
		}},
		{"empty-200k", func(b *testing.B, dir string) {
			for d := range 200 {
				sub := filepath.Join(dir, fmt.Sprintf("d%03d", d))
				if err := os.Mkdir(sub, 0o755); err != nil {
					b.Fatal(err)
				}
				for i := range 1000 {
					if err := os.WriteFile(filepath.Join(sub, fmt.Sprintf("f%04d", i)), nil, 0o644); err != nil {
						b.Fatal(err)
					}
				}
			}
		}},
	}
	for _, sh := range shapes {
		b.Run(sh.name, func(b *testing.B) {
			src := filepath.Join(base, sh.name)
			if err := os.Mkdir(src, 0o755); err != nil {
				b.Fatal(err)
			}
			sh.make(b, src)
			out := filepath.Join(base, sh.name+"-out")
			var runWall, findWall time.Duration
			var runRSS, findRSS int64
			b.ResetTimer()
			for b.Loop() {
				w, rss := measure(b, bin, "run", "-q", "-o", out, src)
				runWall += w
				runRSS = max(runRSS, rss)
				w, rss = measure(b, find, src)
				findWall += w
				findRSS = max(findRSS, rss)
			}
			n := float64(b.N)
			b.ReportMetric(runWall.Seconds()/n, "run-s")
			b.ReportMetric(findWall.Seconds()/n, "find-s")
			b.ReportMetric(runWall.Seconds()/findWall.Seconds(), "x-find")
			b.ReportMetric(float64(runRSS)/1024, "run-peak-MB")
			b.ReportMetric(float64(findRSS)/1024, "find-peak-MB")
		})
	}
}

// measure runs a command to completion, its output discarded, and returns
// its wall time and peak RSS in KiB. The RSS is GNU time's report: a
// child's own rusage would start from this test process's, which the
// kernel carries across the child's exec.
func measure(b *testing.B, name string, args ...string) (time.Duration, int64) {
	gnuTime, err := exec.LookPath("/usr/bin/time")
	if err != nil {
		b.Skip("needs GNU time (/usr/bin/time) for the peak RSS")
	}
	report := filepath.Join(b.TempDir(), "rss")
	cmd := exec.Command(gnuTime, append([]string{"-f", "%M", "-o", report, name}, args...)...)
	start := time.Now()
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("%s: %v\n%.2000s", name, err, out)
	}
	wall := time.Since(start)
	data, err := os.ReadFile(report)
	if err != nil {
		b.Fatal(err)
	}
	var rss int64
	if _, err := fmt.Sscan(string(data), &rss); err != nil {
		b.Fatalf("time -f %%M wrote %q", data)
	}
	return wall, rss
}

// mkdeep makes levels nested directories "d" under dir, one level at a
// time through an os.Root on the level above (the whole path is far over
// PATH_MAX), with a small file every fileEvery levels.
func mkdeep(b *testing.B, dir string, levels, fileEvery int) {
	r, err := os.OpenRoot(dir)
	if err != nil {
		b.Fatal(err)
	}
	for i := range levels {
		if err := r.Mkdir("d", 0o755); err != nil {
			b.Fatal(err)
		}
		next, err := r.OpenRoot("d")
		if err != nil {
			b.Fatal(err)
		}
		r.Close()
		r = next
		if (i+1)%fileEvery == 0 {
			if err := r.WriteFile("f.txt", fmt.Appendf(nil, "level %d\n", i+1), 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	r.Close()
}
