//go:build linux

package pipeline

import (
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/repoprep/repoprep/internal/testkit"
)

// scaleCopies are the trees BenchmarkScale runs on: Go's src/ once, three
// and six times (68,868 files, 905 MB at six).
var scaleCopies = []int{1, 3, 6}

// BenchmarkScale is `make bench-scale`: how the repoprep binary's peak
// memory grows with the tree. It builds, on a tmpfs, Go's src/
// (REPOPREP_BENCH_TREE, else GOROOT/src) copied six times, every .go
// file of copy k > 0 made unique by a last line "// copy k" (so dedup
// leaves them, as in a monorepo), and runs the command, built once with
// the Makefile's flags, as a child process (so this benchmark's own heap
// does not count) on the first copy, three and all six: a full run each,
// its peak RSS from wait4 (Linux: ru_maxrss), wall time and files/s, and
// the KB per file the peak grew by beyond the 1× tree.
// REPOPREP_BENCH_SCALE_BASE names another binary run beside it, each
// size in turn (make bench-scale BASE=HEAD: git HEAD's build), so both
// meet the same load; REPOPREP_BENCH_COUNT repeats each size (1).
// Skipped unless REPOPREP_BENCH_SCALE=1 or -bench names it.
func BenchmarkScale(b *testing.B) {
	if os.Getenv("REPOPREP_BENCH_SCALE") == "" && !strings.Contains(benchFlag(), "Scale") {
		b.Skip("set REPOPREP_BENCH_SCALE=1 or -bench Scale (make bench-scale): builds 905 MB on /dev/shm")
	}
	count := 1
	if n, err := strconv.Atoi(os.Getenv("REPOPREP_BENCH_COUNT")); err == nil && n > 0 {
		count = n
	}
	dir, err := os.MkdirTemp("/dev/shm", "repoprep-scale-")
	if err != nil {
		b.Skipf("no tmpfs at /dev/shm: %v", err)
	}
	b.Cleanup(func() { os.RemoveAll(dir) })
	bins := []scaleBinary{{name: "this", path: filepath.Join(dir, "repoprep")}}
	build := exec.Command("go", "build", "-trimpath", "-buildvcs=false", "-ldflags", "-s -w -buildid=", "-o", bins[0].path, "../cmd/repoprep")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	if base := os.Getenv("REPOPREP_BENCH_SCALE_BASE"); base != "" {
		bins = append(bins, scaleBinary{name: "base", path: base})
	}
	src := os.Getenv("REPOPREP_BENCH_TREE")
	if src == "" {
		src = testkit.GoSrc(b)
	}
	roots, err := scaleTrees(filepath.Join(dir, "trees"), src, scaleCopies)
	if err != nil {
		b.Fatal(err)
	}
	// One process of each binary writes the tokenizer's tables to the
	// cache (tokens.UseCache) before anything is measured: every
	// measured run starts as a user's second run does.
	cache := filepath.Join(dir, "tokens-cache")
	warm := filepath.Join(dir, "warm")
	if err := os.Mkdir(warm, 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(warm, "warm.txt"), []byte("warm\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	for _, bin := range bins {
		if _, err := runScale(bin.path, cache, warm, filepath.Join(dir, "out")); err != nil {
			b.Fatal(err)
		}
	}

	results := make(map[string][]scaleRun) // by binary: one per size, the run of lowest peak of count
	for b.Loop() {
		for i, copies := range scaleCopies {
			for _, bin := range bins {
				var best scaleRun
				for range count {
					r, err := runScale(bin.path, cache, roots[i].path, filepath.Join(dir, "out"))
					if err != nil {
						b.Fatal(err)
					}
					if best.rssKB == 0 || r.rssKB < best.rssKB {
						best = r
					}
				}
				best.copies, best.files, best.bytes = copies, roots[i].files, roots[i].bytes
				results[bin.name] = append(results[bin.name], best)
			}
		}
	}
	for _, bin := range bins {
		rs := results[bin.name]
		b.Logf("%s (%s):", bin.name, bin.path)
		for _, r := range rs {
			perFile := ""
			if r.copies > 1 {
				perFile = fmt.Sprintf(", %.2f KB/file beyond 1×", float64(r.rssKB-rs[0].rssKB)/float64(r.files-rs[0].files))
			}
			b.Logf("  %d× %6d files %4d MB: %6.1f s, %5.0f files/s, peak RSS %4d MB%s",
				r.copies, r.files, r.bytes>>20, r.wall.Seconds(), float64(r.files)/r.wall.Seconds(), r.rssKB>>10, perFile)
			b.ReportMetric(float64(r.rssKB>>10), fmt.Sprintf("MB-peak-%dx-%s", r.copies, bin.name))
		}
	}
	if base := results["base"]; base != nil {
		for i, r := range results["this"] {
			b.Logf("  %d×: peak RSS %.3f of base's, wall %.2f of base's", r.copies, float64(r.rssKB)/float64(base[i].rssKB), r.wall.Seconds()/base[i].wall.Seconds())
		}
	}
}

// benchFlag is the -test.bench pattern ("" when none).
func benchFlag() string {
	if f := flag.Lookup("test.bench"); f != nil {
		return f.Value.String()
	}
	return ""
}

// scaleBinary is one repoprep binary BenchmarkScale runs.
type scaleBinary struct{ name, path string }

// scaleRun is one measured run.
type scaleRun struct {
	copies, files int
	bytes         int64
	wall          time.Duration
	rssKB         int64
}

// scaleRoot is one tree of BenchmarkScale: a root holding copies c0..cN-1.
type scaleRoot struct {
	path  string
	files int
	bytes int64
}

// runScale runs `repoprep run --full` on root into a fresh out as a child
// process and returns its wall time and peak RSS. Exit code 3 (secrets
// found: Go's src/ has test keys) is a finished run.
func runScale(bin, cache, root, out string) (scaleRun, error) {
	os.RemoveAll(out)
	cmd := exec.Command(bin, "run", "-q", "--progress", "never", "--full", "-o", out, root)
	cmd.Env = append(os.Environ(), "REPOPREP_TOKENS_CACHE="+cache)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	begin := time.Now()
	err := cmd.Run()
	wall := time.Since(begin)
	if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == exitSecretsFound {
		err = nil
	}
	if err != nil {
		return scaleRun{}, fmt.Errorf("%s run %s: %v\n%s", bin, root, err, stderr.String())
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		return scaleRun{}, fmt.Errorf("no rusage for %s", bin)
	}
	os.RemoveAll(out)
	return scaleRun{wall: wall, rssKB: ru.Maxrss}, nil // kilobytes on Linux
}

// exitSecretsFound is the command's exit code when a run found secrets
// (docs/cli.md, exit codes).
const exitSecretsFound = 3

// scaleTrees copies src to dir/c0..c(N-1) for the largest of copies, a
// "// copy k" line appended to every .go file of copy k > 0, and returns,
// for each count in copies, a root holding the first that many (hard links
// to the copies: each root holds every file once).
func scaleTrees(dir, src string, copies []int) ([]scaleRoot, error) {
	most := copies[len(copies)-1]
	for k := range most {
		dst := filepath.Join(dir, "all", fmt.Sprintf("c%d", k))
		if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
			return nil, fmt.Errorf("copy %s: %w", src, err)
		}
		if k == 0 {
			continue
		}
		mark := []byte(fmt.Sprintf("\n// copy %d\n", k))
		err := filepath.WalkDir(dst, func(p string, d fs.DirEntry, err error) error {
			if err != nil || !d.Type().IsRegular() || !strings.HasSuffix(p, ".go") {
				return err
			}
			f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				return err
			}
			_, err = f.Write(mark)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			return err
		})
		if err != nil {
			return nil, err
		}
	}
	var roots []scaleRoot
	for _, n := range copies {
		root := scaleRoot{path: filepath.Join(dir, fmt.Sprintf("x%d", n))}
		for k := range n {
			from := filepath.Join(dir, "all", fmt.Sprintf("c%d", k))
			to := filepath.Join(root.path, fmt.Sprintf("c%d", k))
			err := filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
				if err != nil {
					return err
				}
				rel, _ := filepath.Rel(from, p)
				target := filepath.Join(to, rel)
				switch {
				case d.IsDir():
					return os.MkdirAll(target, 0o755)
				case d.Type().IsRegular():
					info, err := d.Info()
					if err != nil {
						return err
					}
					root.files++
					root.bytes += info.Size()
					return os.Link(p, target)
				}
				return nil // os.CopyFS copies regular files and directories only
			})
			if err != nil {
				return nil, err
			}
		}
		roots = append(roots, root)
	}
	return roots, nil
}
