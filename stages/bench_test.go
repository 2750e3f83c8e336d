package stages

import (
	"context"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"golang.org/x/sync/errgroup"

	"github.com/repoprep/repoprep/internal/dirfd"
	"github.com/repoprep/repoprep/rules"
)

// benchTreeFiles is the size of the generated tree the scan benchmarks
// walk: about a mid-sized monorepo.
const benchTreeFiles = 20000

var (
	benchTreeOnce sync.Once
	benchTreeDir  string
)

// benchTree generates, once per test binary, a tree of benchTreeFiles files
// of mixed kinds in 500 directories, with node_modules and a .gitignore.
func benchTree(b *testing.B) string {
	benchTreeOnce.Do(func() {
		dir, err := os.MkdirTemp("", "repoprep-bench-tree-")
		if err != nil {
			b.Fatal(err)
		}
		benchTreeDir = dir
		rng := rand.New(rand.NewPCG(1, 2))
		kinds := []struct {
			ext  string
			body func(i int) string
		}{
			{".go", func(i int) string { return fmt.Sprintf("package p%d\n\nfunc F%d() int { return %d }\n", i%50, i, i) }},
			{".py", func(i int) string { return fmt.Sprintf("def f%d():\n    return %d\n", i, i) }},
			{".md", func(i int) string { return fmt.Sprintf("# Doc %d\n\n%s\n", i, strings.Repeat("Some prose. ", 40)) }},
			{".json", func(i int) string { return fmt.Sprintf(`{"id": %d, "name": "item"}`+"\n", i) }},
			{".png", func(i int) string { return "\x89PNG\r\n\x1a\n" + strings.Repeat("\x00", 200) }},
			{".ts", func(i int) string { return fmt.Sprintf("export const v%d = %d;\n", i, i) }},
		}
		os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("*.log\ntmp/\n"), 0o644)
		for i := range benchTreeFiles {
			k := kinds[rng.IntN(len(kinds))]
			sub := filepath.Join(dir, fmt.Sprintf("mod%02d", i%20), fmt.Sprintf("pkg%03d", i%500))
			if i%1000 == 0 {
				sub = filepath.Join(dir, "node_modules", fmt.Sprintf("dep%d", i))
			}
			os.MkdirAll(sub, 0o755)
			if err := os.WriteFile(filepath.Join(sub, fmt.Sprintf("f%05d%s", i, k.ext)), []byte(k.body(i)), 0o644); err != nil {
				b.Fatal(err)
			}
		}
	})
	return benchTreeDir
}

func TestMain(m *testing.M) {
	code := m.Run()
	if benchTreeDir != "" {
		os.RemoveAll(benchTreeDir)
	}
	os.Exit(code)
}

// BenchmarkScanClassifyTriage runs the first three stages over the
// generated tree, the way pipeline.Run does.
func BenchmarkScanClassifyTriage(b *testing.B) {
	root := openRoot(b, benchTree(b))
	rs := defaultRules(b)
	var files int
	for b.Loop() {
		files = scanClassifyTriage(b, root, rs, 4)
	}
	b.ReportMetric(float64(files)*float64(b.N)/b.Elapsed().Seconds(), "files/s")
}

// scanClassifyTriage scans root and classifies and triages every record
// on a pool of workers, with a fresh directory cache as in a run; it
// returns the number of records.
func scanClassifyTriage(b *testing.B, root *dirfd.Tree, rs *rules.Set, workers int) int {
	env := &Env{Src: root, Rules: rs}
	recs, _, err := Scan(context.Background(), ScanOptions{Root: root, Rules: rs, Workers: workers})
	if err != nil {
		b.Fatal(err)
	}
	g, ctx := errgroup.WithContext(context.Background())
	g.SetLimit(workers)
	for _, rec := range recs {
		g.Go(func() error {
			return env.Sniff(ctx, rec)
		})
	}
	if err := g.Wait(); err != nil {
		b.Fatal(err)
	}
	return len(recs)
}

// statWalk is the plain baseline: filepath.WalkDir stating every entry of
// dir; it returns the number of files.
func statWalk(b *testing.B, dir string) int {
	files := 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if _, err := d.Info(); err != nil {
			return err
		}
		if !d.IsDir() {
			files++
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return files
}

// BenchmarkPlainWalk is the baseline: filepath.WalkDir stating every file
// of the same tree, pruning nothing.
func BenchmarkPlainWalk(b *testing.B) {
	dir := benchTree(b)
	var files int
	for b.Loop() {
		files = statWalk(b, dir)
	}
	b.ReportMetric(float64(files)*float64(b.N)/b.Elapsed().Seconds(), "files/s")
}

// BenchmarkPlainWalkRead reads the first 32 KiB of every file too: the I/O
// floor of classify.
func BenchmarkPlainWalkRead(b *testing.B) {
	dir := benchTree(b)
	buf := make([]byte, sniffBytes)
	var files int
	for b.Loop() {
		files = 0
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			f, err := os.Open(p)
			if err != nil {
				return err
			}
			f.Read(buf)
			f.Close()
			files++
			return nil
		})
	}
	b.ReportMetric(float64(files)*float64(b.N)/b.Elapsed().Seconds(), "files/s")
}

// BenchmarkScanIgnore scans one 5,000-file tree without and with a 1 MiB
// .gitignore (about 67,000 patterns, none matching): with matching
// indexed, the big file costs its parse, not a pass over every pattern
// for every file (13 ms a file before).
func BenchmarkScanIgnore(b *testing.B) {
	var big strings.Builder
	for i := 0; big.Len() < 1<<20; i++ {
		fmt.Fprintf(&big, "build-%06d/\n*.ext%05d\n/docs/gen-%06d.md\n!keep-%06d.txt\n", i, i, i, i)
	}
	for _, tc := range []struct{ name, gitignore string }{{"none", ""}, {"1MiB", big.String()}} {
		b.Run(tc.name, func(b *testing.B) {
			dir := memDir(b)
			files := map[string]string{}
			for i := range 5000 {
				files[fmt.Sprintf("d%02d/f%04d.txt", i%50, i)] = "x\n"
			}
			if tc.gitignore != "" {
				files[".gitignore"] = tc.gitignore
			}
			writeTree(b, dir, files)
			root := openRoot(b, dir)
			rs := defaultRules(b)
			b.ResetTimer()
			for b.Loop() {
				if _, _, err := Scan(context.Background(), ScanOptions{Root: root, Rules: rs, Workers: 2}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(5000*float64(b.N)/b.Elapsed().Seconds(), "files/s")
		})
	}
}

// BenchmarkScanDeep scans 10,000 nested directories (the deepest files far
// past PATH_MAX): linear in the depth, where resolving every path from
// the root was quadratic (4,000 levels: 209 s).
func BenchmarkScanDeep(b *testing.B) {
	dir := memDir(b)
	mkdeep(b, dir, 10000, 100)
	root := openRoot(b, dir)
	rs := defaultRules(b)
	b.ResetTimer()
	for b.Loop() {
		if _, _, err := Scan(context.Background(), ScanOptions{Root: root, Rules: rs, Workers: 2}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(10000*float64(b.N)/b.Elapsed().Seconds(), "dirs/s")
}
