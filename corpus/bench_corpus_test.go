package corpus

import (
	"bytes"
	"cmp"
	"context"
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/zeebo/blake3"

	"github.com/repoprep/repoprep/internal/testkit"
	"github.com/repoprep/repoprep/snapshot"
)

// The variables make bench-corpus sets.
const (
	benchListEnv    = "REPOPREP_CORPUS_LIST"    // the LIST; the benchmark is skipped without it
	benchBinEnv     = "REPOPREP_CORPUS_BIN"     // the repoprep binary; unset: built here from this tree
	benchWorkersEnv = "REPOPREP_CORPUS_WORKERS" // --workers for every process; unset: one per CPU
	benchPairsEnv   = "REPOPREP_CORPUS_PAIRS"   // timed pairs, at least 2 (the default)
)

// benchSkip says how to make a LIST: the repositories are clones at fixed
// commits that never enter the repository.
const benchSkip = benchListEnv + ` names no LIST: write one (NAME<TAB>PATH a line, each PATH a clone checked out at a fixed commit, ` +
	`never committed) to .bench/corpus/list.tsv and run make bench-corpus, or make bench-corpus CORPUS_LIST=FILE`

// benchVolatile are the snapshot files that differ between two runs of
// the same tree, and only they: report.json records how long each stage
// took and when the run began, and .refresh-state (refresh's own record,
// not part of the contract) the time the run began, the identities (inode,
// times) of the published files and a MAC under this machine's key.
// Everything else in DIR/repos, and all of DIR/corpus, must be the same.
var benchVolatile = snapshot.Volatile

// TestBenchCorpus is make bench-corpus, on the repositories of the LIST
// $REPOPREP_CORPUS_LIST names, with the built binary as whole processes:
//
//  1. the corpus as one process, as 4 shards and a merge and as 7 shards
//     and a merge, each into its own DIR (on /dev/shm when it has room,
//     else under TMPDIR): DIR/corpus byte for byte and DIR/repos file by
//     file the same (benchVolatile aside);
//  2. DuckDB reads every row of the table (testdata/duckdb/count.mjs):
//     each row is the staged file tree/ holds (its bytes and MD5, in
//     LIST then path order), and its count of duplicate_of IS NOT NULL,
//     and each row's duplicate_of, are what hashing the staged texts here
//     gives;
//  3. the corpus against a separate `repoprep run` of each repository,
//     one after another, with the same --workers, in pairs that alternate
//     which goes first: the ratios of wall and of CPU time, and the
//     corpus's files/s and MB/s of staged text; and the pipelines alone
//     (--shard 0/1: every repository in one process, no table) beside
//     them, which says what the table costs;
//  4. a LIST with a missing path, a path that is a file and a repository
//     the process cannot read (mode 000; a child as nobody when this runs
//     as root) beside two of LIST's repositories: exit 4, each broken
//     entry named on stderr and in manifest.json, the two in the table.
func TestBenchCorpus(t *testing.T) {
	listPath := os.Getenv(benchListEnv)
	if listPath == "" {
		t.Skip(benchSkip)
	}
	listPath, err := filepath.Abs(listPath)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(listPath)
	if err != nil {
		t.Fatalf("%s: %v (%s)", benchListEnv, err, benchSkip)
	}
	list, err := ParseList(bytes.NewReader(data), filepath.Dir(listPath))
	if err != nil {
		t.Fatal(err)
	}
	workers := runtime.NumCPU()
	if s := os.Getenv(benchWorkersEnv); s != "" {
		if workers, err = strconv.Atoi(s); err != nil || workers < 1 {
			t.Fatalf("%s=%q: want a count", benchWorkersEnv, s)
		}
	}
	pairs := 2
	if s := os.Getenv(benchPairsEnv); s != "" {
		if pairs, err = strconv.Atoi(s); err != nil || pairs < 2 {
			t.Fatalf("%s=%q: want 2 or more", benchPairsEnv, s)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 110*time.Minute)
	defer cancel()
	bin := benchBinary(t, ctx)

	srcFiles, srcBytes := sourceSize(t, list)
	// A DIR holds each repository's staged text about twice over
	// (tree/, and the indexes), and three DIRs are compared at once.
	scratch := benchScratch(t, 3*4*srcBytes)
	t.Logf("%d repositories, %d files, %.1f MB of source (.git aside); %d workers; scratch %s; load %s",
		len(list), srcFiles, float64(srcBytes)/1e6, workers, scratch, loadAverage())

	// 1. One process, 4 shards merged, 7 shards merged.
	w := strconv.Itoa(workers)
	one := filepath.Join(scratch, "one")
	s := mustExit(t, ctx, 0, bin, "corpus", listPath, "-o", one, "-q", "--workers", w)
	t.Logf("one process: %v wall, %v CPU", s.wall.Round(time.Millisecond), s.cpu.Round(time.Millisecond))
	m, err := ReadManifest(one)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{4, 7} {
		dir := filepath.Join(scratch, fmt.Sprintf("shards-%d", n))
		var shards sample
		for k := range n {
			s := mustExit(t, ctx, 0, bin, "corpus", listPath, "-o", dir, "-q", "--workers", w, "--shard", fmt.Sprintf("%d/%d", k, n))
			shards.wall, shards.cpu = shards.wall+s.wall, shards.cpu+s.cpu
		}
		merge := mustExit(t, ctx, 0, bin, "corpus", "merge", dir, "-q", "--workers", w)
		t.Logf("%d shards: %v wall, %v CPU one after another; merge %v wall, %v CPU", n,
			shards.wall.Round(time.Millisecond), shards.cpu.Round(time.Millisecond), merge.wall.Round(time.Millisecond), merge.cpu.Round(time.Millisecond))
		files, differ := diffTrees(t, filepath.Join(one, CorpusDir), filepath.Join(dir, CorpusDir), nil)
		report(t, fmt.Sprintf("%d shards merged: %s", n, CorpusDir), files, differ)
		files, differ = diffTrees(t, filepath.Join(one, ReposDir), filepath.Join(dir, ReposDir), benchVolatile)
		report(t, fmt.Sprintf("%d shards merged: %s (%s aside)", n, ReposDir, strings.Join(benchVolatile, ", ")), files, differ)
		os.RemoveAll(dir)
	}

	// 2. DuckDB against the staged texts.
	checkDuckDB(t, ctx, one, list, m)
	os.RemoveAll(one)

	// 3. The corpus against the runs, paired.
	timeCorpus(t, ctx, bin, listPath, list, w, scratch, pairs, m)

	// 4. Broken entries.
	checkBroken(t, ctx, bin, list, w)
}

// benchBinary is $REPOPREP_CORPUS_BIN, or this tree's repoprep built into
// a temporary directory.
func benchBinary(t *testing.T, ctx context.Context) string {
	if bin := os.Getenv(benchBinEnv); bin != "" {
		return bin
	}
	// Not under t.TempDir, whose parents only this user may enter: the
	// broken-entry check may run it as nobody.
	dir, err := os.MkdirTemp("", "repoprep-bench-bin-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "repoprep")
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-o", bin, "./cmd/repoprep")
	cmd.Dir = ".."
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/repoprep: %v\n%s", err, out)
	}
	return bin
}

// sourceSize counts the regular files and bytes of LIST's trees, .git
// aside; a missing tree counts nothing.
func sourceSize(t *testing.T, list []Entry) (files int, size int64) {
	for _, e := range list {
		filepath.WalkDir(e.Path, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if d.IsDir() && d.Name() == ".git" {
				return fs.SkipDir
			}
			if d.Type().IsRegular() {
				if fi, err := d.Info(); err == nil {
					files++
					size += fi.Size()
				}
			}
			return nil
		})
	}
	return files, size
}

// benchScratch is a new directory on /dev/shm when it has need bytes free
// (so the disk's speed and other helpers' writes stay out of the timings),
// else under TMPDIR.
func benchScratch(t *testing.T, need int64) string {
	if free := freeBytes("/dev/shm"); free > need {
		dir, err := os.MkdirTemp("/dev/shm", "repoprep-bench-corpus-")
		if err == nil {
			t.Cleanup(func() { os.RemoveAll(dir) })
			return dir
		}
	}
	return t.TempDir()
}

// loadAverage is /proc/loadavg's first three fields, or "?".
func loadAverage() string {
	data, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(data)); err == nil && len(f) >= 3 {
		return strings.Join(f[:3], " ")
	}
	return "?"
}

// sample is one process's (or several's) wall and CPU (user and system)
// time.
type sample struct{ wall, cpu time.Duration }

// runBin runs the binary to completion and returns its times, exit code
// and stderr.
func runBin(ctx context.Context, bin string, args ...string) (s sample, code int, stderr string, err error) {
	cmd := exec.CommandContext(ctx, bin, args...)
	var buf bytes.Buffer
	cmd.Stderr = &buf
	start := time.Now()
	err = cmd.Run()
	s.wall = time.Since(start)
	if cmd.ProcessState == nil {
		return s, -1, buf.String(), err
	}
	s.cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		err = nil
	}
	return s, cmd.ProcessState.ExitCode(), buf.String(), err
}

// mustExit runs the binary and fails the test unless it exits with want.
func mustExit(t *testing.T, ctx context.Context, want int, bin string, args ...string) sample {
	t.Helper()
	s, code, stderr, err := runBin(ctx, bin, args...)
	if err != nil || code != want {
		t.Fatalf("repoprep %s: exit %d (%v), want %d\n%s", strings.Join(args, " "), code, err, want, stderr)
	}
	return s
}

// diffTrees compares a and b file by file, skip aside (names at any
// depth): it returns how many files a holds and the relative paths that
// differ, or are missing from one side.
func diffTrees(t *testing.T, a, b string, skip []string) (files int, differ []string) {
	t.Helper()
	list := func(root string) map[string]bool {
		out := map[string]bool{}
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || slices.Contains(skip, d.Name()) {
				return err
			}
			rel, _ := filepath.Rel(root, p)
			out[rel] = true
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	inA, inB := list(a), list(b)
	for rel := range inA {
		if !inB[rel] {
			differ = append(differ, rel+" (missing)")
			continue
		}
		x, errX := os.ReadFile(filepath.Join(a, rel))
		y, errY := os.ReadFile(filepath.Join(b, rel))
		if errX != nil || errY != nil || !bytes.Equal(x, y) {
			differ = append(differ, rel)
		}
	}
	for rel := range inB {
		if !inA[rel] {
			differ = append(differ, rel+" (extra)")
		}
	}
	slices.Sort(differ)
	return len(inA), differ
}

// report logs a comparison, and fails the test when it found differences.
func report(t *testing.T, what string, files int, differ []string) {
	t.Helper()
	if len(differ) == 0 {
		t.Logf("%s: the same %d files", what, files)
		return
	}
	t.Errorf("%s: %d of %d files differ: %s", what, len(differ), files, strings.Join(differ[:min(20, len(differ))], ", "))
}

// duckRow is a row as count.mjs prints it.
type duckRow struct {
	repo, path    string
	bytes, length int64
	md5           string
	dup, near     *string
}

func (r *duckRow) UnmarshalJSON(data []byte) error {
	var f []json.RawMessage
	if err := json.Unmarshal(data, &f); err != nil {
		return err
	}
	if len(f) != 7 {
		return fmt.Errorf("row of %d fields, want 7", len(f))
	}
	for i, p := range []any{&r.repo, &r.path, &r.bytes, &r.length, &r.md5, &r.dup, &r.near} {
		if err := json.Unmarshal(f[i], p); err != nil {
			return err
		}
	}
	return nil
}

// checkDuckDB reads DIR's table with DuckDB and checks each row against
// the staged texts under DIR/repos/NAME/tree/, found and hashed here
// (neither files.json nor the corpus package is asked): the rows are the
// staged files in LIST then path order, each with its bytes and MD5;
// duplicate_of names the first earlier row with the same non-empty text,
// so the count of duplicate_of IS NOT NULL is the duplicates hashing
// finds.
func checkDuckDB(t *testing.T, ctx context.Context, dir string, list []Entry, m *Manifest) {
	node, errNode := exec.LookPath("node")
	npm, errNpm := exec.LookPath("npm")
	if errNode != nil || errNpm != nil {
		t.Errorf("node or npm not found (%v, %v): DuckDB's reading is not checked", errNode, errNpm)
		return
	}
	modules := testkit.NPMCI(t, ctx, npm, duckDir)
	script := testkit.Script(t, modules, filepath.Join(duckDir, "count.mjs"))
	var files []string
	for _, p := range m.Parts {
		files = append(files, filepath.Join(dir, CorpusDir, p.Name))
	}
	start := time.Now()
	cmd := exec.CommandContext(ctx, node, append([]string{script}, files...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("node count.mjs: %v\n%s", err, stderr.Bytes())
	}
	var got struct {
		Rows           []duckRow `json:"rows"`
		Count          int       `json:"count"`
		Duplicates     int       `json:"duplicates"`
		NearDuplicates int       `json:"near_duplicates"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatalf("count.mjs printed %d bytes: %v", stdout.Len(), err)
	}
	t.Logf("DuckDB read %d rows from %d parts in %v", len(got.Rows), len(files), time.Since(start).Round(time.Millisecond))

	// The staged texts, in row order: LIST, then path (byte order, as
	// files.json sorts; WalkDir's order puts "a/b" before "a.txt").
	type text struct{ repo, path string }
	var want []text
	for _, e := range list {
		tree := filepath.Join(repoDir(dir, e.Name), snapshot.TreeDir)
		var paths []string
		err := filepath.WalkDir(tree, func(p string, d fs.DirEntry, err error) error {
			if errors.Is(err, fs.ErrNotExist) && p == tree {
				return fs.SkipAll // a repository that failed
			}
			if err != nil || d.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(tree, p)
			paths = append(paths, filepath.ToSlash(rel))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(paths)
		for _, p := range paths {
			want = append(want, text{e.Name, p})
		}
	}
	if got.Count != len(got.Rows) || len(got.Rows) != len(want) || got.Count != m.Totals.Files {
		t.Errorf("DuckDB counts %d rows and returns %d; tree/ holds %d staged files; manifest.json says %d",
			got.Count, len(got.Rows), len(want), m.Totals.Files)
	}
	first := map[[32]byte]string{} // BLAKE3 → NAME/path of the first copy
	dups, bad := 0, 0
	for i, w := range want[:min(len(want), len(got.Rows))] {
		r := &got.Rows[i]
		content, err := os.ReadFile(filepath.Join(repoDir(dir, w.repo), snapshot.TreeDir, filepath.FromSlash(w.path)))
		if err != nil {
			t.Fatal(err)
		}
		sum := blake3.Sum256(content)
		md := md5.Sum(content)
		var wantDup *string
		if c, ok := first[sum]; ok && len(content) > 0 {
			wantDup = &c
			dups++
		} else if len(content) > 0 {
			first[sum] = w.repo + "/" + w.path
		}
		switch {
		case r.repo != w.repo || r.path != w.path:
			t.Errorf("row %d is %s/%s; the staged files have %s/%s there", i, r.repo, r.path, w.repo, w.path)
		case r.bytes != int64(len(content)) || r.length != r.bytes || r.md5 != hex.EncodeToString(md[:]):
			t.Errorf("row %d, %s/%s: bytes %d, content of %d bytes, MD5 %s; the staged text has %d bytes, MD5 %x",
				i, r.repo, r.path, r.bytes, r.length, r.md5, len(content), md)
		case deref(r.dup) != deref(wantDup):
			t.Errorf("row %d, %s/%s: duplicate_of %q; hashing says %q", i, r.repo, r.path, deref(r.dup), deref(wantDup))
		default:
			continue
		}
		if bad++; bad == 20 {
			t.Fatal("too many differences")
		}
	}
	if got.Duplicates != dups || m.Totals.Duplicates != dups {
		t.Errorf("DuckDB counts %d rows WHERE duplicate_of IS NOT NULL, manifest.json %d; hashing the staged texts finds %d duplicates",
			got.Duplicates, m.Totals.Duplicates, dups)
	}
	if got.NearDuplicates != m.Totals.NearDuplicates {
		t.Errorf("DuckDB counts %d near duplicates, manifest.json %d", got.NearDuplicates, m.Totals.NearDuplicates)
	}
	t.Logf("DuckDB: %d rows, every one the staged text; %d WHERE duplicate_of IS NOT NULL, hashing finds %d; %d near duplicates",
		got.Count, got.Duplicates, dups, got.NearDuplicates)
}

// timeCorpus times the corpus (one process) against a `repoprep run` of
// each repository of LIST one after another, with the same --workers, as
// whole processes, in pairs that alternate which goes first (the machine
// may be shared: a pair shares its load), each into directories made
// fresh and removed outside the timings.
func timeCorpus(t *testing.T, ctx context.Context, bin, listPath string, list []Entry, workers, scratch string, pairs int, m *Manifest) {
	corpusDir, runsDir := filepath.Join(scratch, "timed-corpus"), filepath.Join(scratch, "timed-runs")
	timeOne := func() sample {
		os.RemoveAll(corpusDir)
		s, code, stderr, err := runBin(ctx, bin, "corpus", listPath, "-o", corpusDir, "-q", "--workers", workers)
		if err != nil || code != 0 {
			t.Fatalf("repoprep corpus: exit %d (%v)\n%s", code, err, stderr)
		}
		return s
	}
	timeRuns := func() sample {
		os.RemoveAll(runsDir)
		var sum sample
		for _, e := range list {
			s, code, stderr, err := runBin(ctx, bin, "run", e.Path, "-o", filepath.Join(runsDir, e.Name), "-q", "--workers", workers)
			if err != nil || code != 0 {
				t.Fatalf("repoprep run %s: exit %d (%v)\n%s", e.Path, code, err, stderr)
			}
			sum.wall, sum.cpu = sum.wall+s.wall, sum.cpu+s.cpu
		}
		return sum
	}
	// The pipelines alone: the corpus as one shard of one (--shard 0/1)
	// runs every repository in one process but writes no table, so the
	// corpus less this is what the table costs (reading the snapshots,
	// hashing, MinHash, Parquet), and this less the runs what one process
	// saves.
	shardDir := filepath.Join(scratch, "timed-shard")
	timeShard := func() sample {
		os.RemoveAll(shardDir)
		s, code, stderr, err := runBin(ctx, bin, "corpus", listPath, "-o", shardDir, "-q", "--workers", workers, "--shard", "0/1")
		if err != nil || code != 0 {
			t.Fatalf("repoprep corpus --shard 0/1: exit %d (%v)\n%s", code, err, stderr)
		}
		return s
	}
	ms := func(d time.Duration) time.Duration { return d.Round(time.Millisecond) }
	var wallRatios, cpuRatios, shardWall, shardCPU []float64
	var corpusWalls []time.Duration
	for i := range pairs {
		load := loadAverage()
		var c, r, sh sample
		if i%2 == 0 {
			c, r, sh = timeOne(), timeRuns(), timeShard()
		} else {
			sh, r, c = timeShard(), timeRuns(), timeOne()
		}
		wr, cr := c.wall.Seconds()/r.wall.Seconds(), c.cpu.Seconds()/r.cpu.Seconds()
		wallRatios, cpuRatios, corpusWalls = append(wallRatios, wr), append(cpuRatios, cr), append(corpusWalls, c.wall)
		shardWall, shardCPU = append(shardWall, sh.wall.Seconds()/r.wall.Seconds()), append(shardCPU, sh.cpu.Seconds()/r.cpu.Seconds())
		t.Logf("pair %d (%s first; load %s → %s): corpus %v wall, %v CPU; %d runs %v wall, %v CPU: %.2f× wall, %.2f× CPU; "+
			"the pipelines alone (--shard 0/1) %v wall, %v CPU",
			i+1, map[bool]string{true: "corpus", false: "runs"}[i%2 == 0], load, loadAverage(),
			ms(c.wall), ms(c.cpu), len(list), ms(r.wall), ms(r.cpu), wr, cr, ms(sh.wall), ms(sh.cpu))
	}
	os.RemoveAll(corpusDir)
	os.RemoveAll(runsDir)
	os.RemoveAll(shardDir)
	t.Logf("the pipelines alone/runs, median: %.2f× wall, %.2f× CPU (the rest of the corpus is its table)", medianFloat(shardWall), medianFloat(shardCPU))
	wall := median(corpusWalls)
	t.Logf("corpus/runs, median of %d pairs: %.2f× wall, %.2f× CPU (target ≤ 0.6× wall); corpus %.0f files/s, %.1f MB/s of staged text (%d files, %.1f MB in %v)",
		pairs, medianFloat(wallRatios), medianFloat(cpuRatios), float64(m.Totals.Files)/wall.Seconds(),
		float64(m.Totals.Bytes)/1e6/wall.Seconds(), m.Totals.Files, float64(m.Totals.Bytes)/1e6, wall.Round(time.Millisecond))
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func medianFloat(fs []float64) float64 {
	s := slices.Clone(fs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// checkBroken runs a LIST of the two smallest of LIST's repositories and
// three broken entries (a missing path, a path that is a file, a
// directory of mode 000) and checks that the broken ones are named, on
// stderr and in manifest.json, with the others' rows written and exit 4.
// Root reads a mode-000 directory regardless, so as root the corpus runs
// as a child with nobody's ids (unreadableAsChild); where that cannot be,
// the unreadable case is left out and said so.
func checkBroken(t *testing.T, ctx context.Context, bin string, list []Entry, workers string) {
	// Its own directory under TMPDIR, not under t.TempDir or scratch:
	// nobody must reach it through its parents.
	root, err := os.MkdirTemp("", "repoprep-bench-broken-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(root)
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Mkdir(filepath.Join(root, "locked"), 0o755))
	must(os.WriteFile(filepath.Join(root, "locked", "main.go"), []byte("package main\n"), 0o644))
	must(os.WriteFile(filepath.Join(root, "a-file"), []byte("not a tree\n"), 0o644))
	must(os.Chmod(filepath.Join(root, "locked"), 0))
	defer os.Chmod(filepath.Join(root, "locked"), 0o755)

	small := slices.Clone(list)
	sizes := map[string]int64{}
	for _, e := range small {
		_, sizes[e.Name] = sourceSize(t, []Entry{e})
	}
	slices.SortStableFunc(small, func(a, b Entry) int { return cmp.Compare(sizes[a.Name], sizes[b.Name]) })
	good := small[:min(2, len(small))]
	broken := []Entry{
		{"missing", filepath.Join(root, "no-such-dir")},
		{"a-file", filepath.Join(root, "a-file")},
		{"locked", filepath.Join(root, "locked")},
	}
	var lines []string
	for _, e := range append([]Entry{good[0]}, append(broken, good[1:]...)...) {
		lines = append(lines, e.Name+"\t"+e.Path)
	}
	listPath := filepath.Join(root, "list.tsv")
	must(os.WriteFile(listPath, []byte(strings.Join(lines, "\n")+"\n"), 0o644))
	out := filepath.Join(root, "out")

	cmd := exec.CommandContext(ctx, bin, "corpus", listPath, "-o", out, "-q", "--workers", workers)
	asChild, why := unreadableAsChild(cmd, root)
	if !asChild {
		broken = broken[:2]
		t.Logf("the mode-000 case is left out: %s", why)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err = cmd.Run()
	code := -1
	if cmd.ProcessState != nil {
		code = cmd.ProcessState.ExitCode()
	}
	if code != exitRepoFailedCode {
		t.Fatalf("a LIST with broken entries: exit %d (%v), want %d\n%s", code, err, exitRepoFailedCode, stderr.Bytes())
	}
	m, err := ReadManifest(out)
	if err != nil {
		t.Fatal(err)
	}
	failed := map[string]string{}
	for _, f := range m.Failures {
		failed[f.Name] = f.Error
	}
	for _, e := range broken {
		if failed[e.Name] == "" || !strings.Contains(stderr.String(), "repoprep: "+e.Name+": ") {
			t.Errorf("%s (%s) is not named as failed: failures %+v, stderr:\n%s", e.Name, e.Path, m.Failures, stderr.Bytes())
		} else {
			t.Logf("broken entry %s: %s", e.Name, failed[e.Name])
		}
	}
	var names []string
	for _, r := range m.Repos {
		names = append(names, r.Name)
		if r.Files == 0 {
			t.Errorf("%s has no rows beside the broken entries", r.Name)
		}
	}
	var want []string
	for _, e := range good {
		want = append(want, e.Name)
	}
	if !slices.Equal(names, want) {
		t.Errorf("repositories with rows %q, want %q, finished beside the broken entries", names, want)
	}
}

// exitRepoFailedCode is cmd/repoprep's exit code for a corpus written
// with repositories that failed (docs/corpus.md).
const exitRepoFailedCode = 4
