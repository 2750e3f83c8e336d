package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/repoprep/repoprep/internal/lineindex"
	"github.com/repoprep/repoprep/internal/secrets"
	"github.com/repoprep/repoprep/internal/testkit"
	"github.com/repoprep/repoprep/internal/tokens"
	"github.com/repoprep/repoprep/internal/trigram"
	"github.com/repoprep/repoprep/rules"
	"github.com/zeebo/blake3"
)

// TestBenchRun measures `repoprep run` on a real tree beside `cp -a` of the
// same tree, both on a tmpfs (/dev/shm) so that they measure work, not the
// disk: REPOPREP_BENCH_RUN=DIR (make bench-run, GOROOT/src by default).
// The tree is copied to the tmpfs once; each of REPOPREP_BENCH_COUNT runs
// (5) is a pair, cp -a then repoprep, so load on a shared machine hits
// both alike, and the figure is the median of the pairs' ratios. It prints
// each pair, the median, the peak RSS, and report.json's stages of the
// median run. REPOPREP_BENCH_WORKERS="1 2 4" adds a --workers series.
func TestBenchRun(t *testing.T) {
	tree := os.Getenv("REPOPREP_BENCH_RUN")
	if tree == "" {
		t.Skip("set REPOPREP_BENCH_RUN=DIR (make bench-run)")
	}
	count := 5
	if n, err := strconv.Atoi(os.Getenv("REPOPREP_BENCH_COUNT")); err == nil && n > 0 {
		count = n
	}
	base, err := os.MkdirTemp("/dev/shm", "repoprep-benchrun-")
	if err != nil {
		t.Skipf("no tmpfs at /dev/shm: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	bin := filepath.Join(base, "repoprep")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	src := filepath.Join(base, "src")
	if out, err := exec.Command("cp", "-a", tree, src).CombinedOutput(); err != nil {
		t.Fatalf("cp -a %s: %v\n%s", tree, err, out)
	}
	t.Logf("tree %s copied to %s", tree, src)

	series := []string{""}
	if ws := strings.Fields(os.Getenv("REPOPREP_BENCH_WORKERS")); len(ws) > 0 {
		series = ws
	}
	type median struct {
		label string
		ratio float64
	}
	var medians []median
	for _, workers := range series {
		// --full: every pair is a run from scratch, not a refresh of the
		// previous pair's snapshot (make bench-refresh measures those).
		args := []string{"run", "-q", "--progress", "never", "--full"}
		label := "default workers"
		if workers != "" {
			args = append(args, "--workers", workers)
			label = "--workers " + workers
		}
		var pairs []pair
		for i := range count {
			copyTo, out := filepath.Join(base, "copy"), filepath.Join(base, "out")
			os.RemoveAll(copyTo)
			cp := timed(t, "cp", "-a", src, copyTo)
			os.RemoveAll(copyTo)
			rp := timed(t, bin, append(args, "-o", out, src)...)
			p := pair{cp: cp, run: rp, report: readStages(t, filepath.Join(out, "report.json"))}
			pairs = append(pairs, p)
			t.Logf("%s pair %d: cp -a %.2fs, repoprep %.2fs (cpu %.2fs, peak RSS %d MB): %.2f×",
				label, i+1, cp.wall.Seconds(), rp.wall.Seconds(), rp.cpu.Seconds(), rp.rssKB/1024, p.ratio())
		}
		slices.SortFunc(pairs, func(a, b pair) int { return cmpFloat(a.ratio(), b.ratio()) })
		med := pairs[len(pairs)/2]
		var peak int64
		for _, p := range pairs {
			peak = max(peak, p.run.rssKB)
		}
		t.Logf("%s: median of %d pairs %.2f× cp -a (repoprep %.2fs, cpu %.2fs; cp -a %.2fs); peak RSS %d MB",
			label, count, med.ratio(), med.run.wall.Seconds(), med.run.cpu.Seconds(), med.cp.wall.Seconds(), peak/1024)
		medians = append(medians, median{label, med.ratio()})
		t.Logf("stages of the median run (report.json):\n%s", med.report)
	}
	floors := benchFloor(t, base, src, filepath.Join(base, "out", "tree"), count)
	for _, m := range medians {
		t.Logf("%s: %.2f× the copy+count floor, %.2f× the copy+count+lines+keywords+index floor (medians against cp -a)",
			m.label, m.ratio/floors["copy+count"], m.ratio/floors[floorHeld])
	}
}

// benchFloor measures the least any run must do, beside cp -a in pairs as
// above: copy the texts the last run staged (its tree/) and count their
// o200k tokens exactly with tokens.CountBytes, one goroutine per core, in
// a process of its own (this test binary again, running TestFloorHelper),
// so that it pays for the tokenizer's tables as a run does (the first pair
// builds them, the others read them back, as the runs' pairs do). No run
// can beat this ratio while files.json holds exact counts. The copy mode,
// the same process without the count, shows what copying those files
// alone costs. The copy+count+lines+keywords+index mode is the floor of
// what the snapshot holds beyond the count: each text's lines counted too
// (tokens.CountLines, as linetokens.index needs, so that reads need no
// tokenizer), its BLAKE3 (files.json's hash), the secret rules' keyword
// pass over it (secrets.Scanner.Keywords, which every scan makes before
// any rule runs) and the search index built over the copies
// (trigram.BuildOpen, as the run builds search.index); no rule runs, and
// nothing is decoded, classified or read outside tree/.
func benchFloor(t *testing.T, base, src, staged string, count int) (floors map[string]float64) {
	modes := floorModes
	ratios := map[string][]float64{}
	last := map[string]measured{}
	var least, leastCPU []float64 // each round's copy+count+lines+keywords+index over its copy+count, wall and CPU
	// The modes take turns within each round, so that load on a shared
	// machine hits them alike.
	for range count {
		for _, mode := range modes {
			copyTo, dst := filepath.Join(base, "copy"), filepath.Join(base, "floor")
			os.RemoveAll(copyTo)
			cp := timed(t, "cp", "-a", src, copyTo)
			os.RemoveAll(copyTo)
			os.RemoveAll(dst)
			m := timedEnv(t, []string{"REPOPREP_FLOOR=" + mode, "REPOPREP_FLOOR_SRC=" + staged, "REPOPREP_FLOOR_DST=" + dst,
				"REPOPREP_TOKENS_CACHE=" + filepath.Join(base, "tokens")}, // each process has a TestMain of its own
				os.Args[0], "-test.run", "^TestFloorHelper$", "-test.count", "1")
			os.RemoveAll(dst)
			ratios[mode] = append(ratios[mode], m.wall.Seconds()/cp.wall.Seconds())
			last[mode] = m
		}
		least = append(least, last[modes[2]].wall.Seconds()/last[modes[1]].wall.Seconds())
		leastCPU = append(leastCPU, last[modes[2]].cpu.Seconds()/last[modes[1]].cpu.Seconds())
	}
	floors = map[string]float64{}
	for _, mode := range modes {
		rs := ratios[mode]
		slices.Sort(rs)
		floors[mode] = rs[len(rs)/2]
		t.Logf("floor, %s of the staged texts: median of %d pairs %.2f× cp -a of the tree (last: %.2fs, cpu %.2fs, peak RSS %d MB)",
			mode, count, floors[mode], last[mode].wall.Seconds(), last[mode].cpu.Seconds(), last[mode].rssKB/1024)
	}
	slices.Sort(least)
	slices.Sort(leastCPU)
	t.Logf("floor, copy+count+lines+keywords+index: %.2f× the copy+count floor (median of %d rounds: %.2f–%.2f×), CPU %.2f× (%.2f–%.2f×)",
		least[len(least)/2], count, least[0], least[len(least)-1], leastCPU[len(leastCPU)/2], leastCPU[0], leastCPU[len(leastCPU)-1])
	return floors
}

// floorModes are benchFloor's floors, least work first; floorHeld is the
// last, what the snapshot holds with no rule run.
var floorModes = []string{"copy", "copy+count", floorHeld}

const floorHeld = "copy+count+lines+keywords+index"

// TestFloorHelper is benchFloor's process: REPOPREP_FLOOR=copy,
// copy+count or copy+count+lines+keywords+index, from REPOPREP_FLOOR_SRC to
// REPOPREP_FLOOR_DST.
func TestFloorHelper(t *testing.T) {
	mode := os.Getenv("REPOPREP_FLOOR")
	if mode == "" {
		t.Skip("benchFloor's process (make bench-run)")
	}
	src, dst := os.Getenv("REPOPREP_FLOOR_SRC"), os.Getenv("REPOPREP_FLOOR_DST")
	count, lines := mode != "copy", mode == floorHeld
	if count {
		tokens.UseCache(tokensCacheDir()) // as the command does
		go tokens.Warm()                  // as a run does: ready while the first files are read
	}
	var scanner *secrets.Scanner
	if lines {
		rs, err := rules.DefaultSecretRules()
		if err == nil {
			scanner, err = secrets.New(rs)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	files := make(chan string, 256)
	var (
		wg      sync.WaitGroup
		counts  atomic.Int64
		mu      sync.Mutex
		indexed []trigram.File
	)
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for rel := range files {
				data, err := os.ReadFile(filepath.Join(src, rel))
				switch {
				case err != nil:
				case lines:
					n, ok := tokens.CountLines(data, lineindex.MaxCountedLineBytes, func(int, int) {})
					if !ok {
						n = tokens.CountBytes(data)
					}
					counts.Add(int64(n))
					scanner.Keywords(data)
					mu.Lock()
					indexed = append(indexed, trigram.File{Path: rel, Hash: blake3.Sum256(data), Size: int64(len(data))})
					mu.Unlock()
				case count:
					counts.Add(int64(tokens.CountBytes(data)))
				}
				if err == nil {
					err = os.WriteFile(filepath.Join(dst, rel), data, 0o644)
				}
				if err != nil {
					t.Error(err)
				}
			}
		})
	}
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		switch {
		case err != nil:
			return err
		case d.IsDir():
			return os.Mkdir(filepath.Join(dst, rel), 0o755)
		case d.Type().IsRegular():
			files <- rel
		}
		return nil
	})
	close(files)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if lines {
		slices.SortFunc(indexed, func(a, b trigram.File) int { return strings.Compare(a.Path, b.Path) })
		open := func(rel string) (io.ReadCloser, error) { return os.Open(filepath.Join(dst, rel)) }
		tmp, err := os.MkdirTemp(filepath.Dir(dst), "floor-index-") // beside the copies, as the run's spill is in OUT
		if err != nil {
			t.Fatal(err)
		}
		defer os.RemoveAll(tmp)
		index := filepath.Join(tmp, "search.index")
		if err := trigram.BuildOpen(context.Background(), indexed, open, index, tmp, runtime.GOMAXPROCS(0)); err != nil {
			t.Fatal(err)
		}
		info, err := os.Stat(index)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("search index of %d files, %d bytes", len(indexed), info.Size())
	}
	t.Logf("%d tokens", counts.Load())
}

type pair struct {
	cp, run measured
	report  string
}

func (p pair) ratio() float64 { return p.run.wall.Seconds() / p.cp.wall.Seconds() }

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// measured is one command's wall time, CPU time (user+system) and peak RSS.
type measured struct {
	wall, cpu time.Duration
	rssKB     int64
}

// timed runs a command under GNU time, for its CPU time and peak RSS (a
// child's own rusage would start from this process's).
func timed(t *testing.T, name string, args ...string) measured {
	t.Helper()
	return timedEnv(t, nil, name, args...)
}

// timedEnv is timed with env added to the command's environment.
func timedEnv(t *testing.T, env []string, name string, args ...string) measured {
	t.Helper()
	report := filepath.Join(t.TempDir(), "time")
	cmd := exec.Command("/usr/bin/time", append([]string{"-f", "%U %S %M", "-o", report, name}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	start := time.Now()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%.2000s", name, err, out)
	}
	m := measured{wall: time.Since(start)}
	data, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	var user, sys float64
	if _, err := fmt.Sscan(string(data), &user, &sys, &m.rssKB); err != nil {
		t.Fatalf("time wrote %q: %v", data, err)
	}
	m.cpu = time.Duration((user + sys) * float64(time.Second))
	return m
}

// readStages renders report.json's stage rows as a table.
func readStages(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Seconds float64 `json:"seconds"`
		Stages  []struct {
			Name        string  `json:"name"`
			Seconds     float64 `json:"seconds"`
			CPUSeconds  float64 `json:"cpu_seconds"`
			Files       int     `json:"files"`
			FilesPerSec float64 `json:"files_per_sec"`
			MBPerSec    float64 `json:"mb_per_sec"`
		} `json:"stages"`
	}
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "| stage | wall s | share | CPU s | files | files/s | MB/s |\n|---|---:|---:|---:|---:|---:|---:|\n")
	for _, s := range rep.Stages {
		fmt.Fprintf(&b, "| %s | %.3f | %.0f%% | %.3f | %d | %.0f | %.1f |\n", s.Name, s.Seconds, 100*s.Seconds/rep.Seconds, s.CPUSeconds, s.Files, s.FilesPerSec, s.MBPerSec)
	}
	fmt.Fprintf(&b, "| run (report.json) | %.3f | | | | | |", rep.Seconds)
	return b.String()
}

// TestFloorModes runs benchFloor's process in each mode over a small tree,
// as make bench-run does over Go's src/: each copies every file whole, and
// the last builds a search index, so the benchmark's floors cannot rot
// unseen between its runs. Not under -short (each mode is a process that
// loads the tokenizer's tables).
func TestFloorModes(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: three processes")
	}
	src := t.TempDir()
	files := map[string]string{
		"a.go":         "package a\n\nconst password = \"not a real one\"\n",
		"docs/b.md":    "# B\n\nline one\nline two\n",
		"docs/c/d.txt": strings.Repeat("words and more words\n", 500),
	}
	testkit.WriteTree(t, src, files)
	tables := t.TempDir()
	for _, mode := range floorModes {
		t.Run(mode, func(t *testing.T) {
			dst := filepath.Join(t.TempDir(), "floor")
			cmd := exec.Command(os.Args[0], "-test.run", "^TestFloorHelper$", "-test.count", "1", "-test.v")
			cmd.Env = append(os.Environ(), "REPOPREP_FLOOR="+mode, "REPOPREP_FLOOR_SRC="+src, "REPOPREP_FLOOR_DST="+dst,
				"REPOPREP_TOKENS_CACHE="+tables)
			out, err := cmd.CombinedOutput()
			if err != nil || !strings.Contains(string(out), "--- PASS: TestFloorHelper") {
				t.Fatalf("%v\n%s", err, out)
			}
			for name, text := range files {
				if got, err := os.ReadFile(filepath.Join(dst, name)); err != nil || string(got) != text {
					t.Errorf("%s: copied %q, %v", name, got, err)
				}
			}
			if tokens := strings.Contains(string(out), " 0 tokens"); tokens != (mode == "copy") {
				t.Errorf("mode %s counted tokens: %t\n%s", mode, !tokens, out)
			}
			if indexed := strings.Contains(string(out), "search index of 3 files"); indexed != strings.HasSuffix(mode, "+index") {
				t.Errorf("mode %s built a search index of the 3 files: %t\n%s", mode, indexed, out)
			}
		})
	}
}
