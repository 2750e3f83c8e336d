package secrets

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/repoprep/repoprep/internal/secrets/secrettest"
)

// TestCompareGitleaks runs this scanner and gitleaks (`gitleaks dir`) on one generated tree
// and logs time and recall on the planted secrets. It runs only when REPOPREP_GITLEAKS names
// a gitleaks binary, e.g. after
// `go install github.com/zricethezav/gitleaks/v8@v8.30.1`; nothing of gitleaks is a dependency.
// REPOPREP_GITLEAKS_MB sets the tree size (default 50).
func TestCompareGitleaks(t *testing.T) {
	bin := os.Getenv("REPOPREP_GITLEAKS")
	if bin == "" {
		t.Skip("set REPOPREP_GITLEAKS to a gitleaks binary")
	}
	sizeMB := 50
	fmt.Sscan(os.Getenv("REPOPREP_GITLEAKS_MB"), &sizeMB)
	dir := t.TempDir()
	tree := filepath.Join(dir, "tree")
	type planted struct {
		rule, file string
		line       int
	}
	var plants []planted
	var total int64
	exts := []string{".go", ".py", ".env", ".yaml", ".json", ".md"}
	for i := 0; total < int64(sizeMB)<<20; i++ {
		k := fileKinds[i%len(fileKinds)]
		data, _ := corpus(256<<10, uint64(i), 0) // filler only: every secret is in plants
		samples := secrettest.Samples()
		content, wants := plant(t, k, samples)
		name := filepath.Join(tree, fmt.Sprintf("m%d", i%9), fmt.Sprintf("f%04d%s", i, exts[i%len(exts)]))
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		// The planted block first, then filler source: line numbers stay those plant computed.
		if err := os.WriteFile(name, append(content, data...), 0o644); err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(tree, name)
		for _, w := range wants {
			plants = append(plants, planted{w.rule, filepath.ToSlash(rel), w.line})
		}
		total += int64(len(content) + len(data))
	}

	// Ours: every file through ScanFile, one worker per CPU, as the pipeline runs it.
	s := defaultScanner(t)
	var names []string
	filepath.WalkDir(tree, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			names = append(names, p)
		}
		return err
	})
	ours := map[string]bool{} // "file:line"
	start := time.Now()
	results := make([][]Finding, len(names))
	g, _ := errgroup.WithContext(context.Background())
	g.SetLimit(runtime.NumCPU())
	for i, n := range names {
		g.Go(func() (err error) { results[i], err = s.ScanFile(n, false); return err })
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
	oursTime := time.Since(start)
	for i, n := range names {
		rel, _ := filepath.Rel(tree, n)
		for _, f := range results[i] {
			ours[fmt.Sprintf("%s:%d", filepath.ToSlash(rel), f.Line)] = true
		}
	}

	start = time.Now()
	theirs, glFindings := runGitleaks(t, bin, tree)
	glTime := time.Since(start)

	perRule := map[string][2]int{} // rule -> planted, gitleaks found
	oursHit, theirsHit := 0, 0
	for _, p := range plants {
		key := fmt.Sprintf("%s:%d", p.file, p.line)
		c := perRule[p.rule]
		c[0]++
		if ours[key] {
			oursHit++
		}
		if theirs[key] {
			theirsHit++
			c[1]++
		}
		perRule[p.rule] = c
	}
	mb := float64(total) / (1 << 20)
	t.Logf("tree: %d files, %.1f MB, %d planted secrets", len(names), mb, len(plants))
	t.Logf("repoprep: %v (%.1f MB/s), recall %d/%d, %d findings", oursTime.Round(time.Millisecond), mb/oursTime.Seconds(), oursHit, len(plants), len(ours))
	t.Logf("gitleaks: %v (%.1f MB/s), recall %d/%d, %d findings", glTime.Round(time.Millisecond), mb/glTime.Seconds(), theirsHit, len(plants), glFindings)
	t.Logf("time ratio gitleaks/repoprep: %.2f", glTime.Seconds()/oursTime.Seconds())
	for rule, c := range perRule {
		t.Logf("  %-24s planted %4d  gitleaks found %4d", rule, c[0], c[1])
	}
	if oursHit != len(plants) {
		t.Errorf("repoprep recall %d/%d", oursHit, len(plants))
	}
}

// runGitleaks scans dir with `gitleaks dir` and returns the lines it reported
// ("file:line", slash-separated and relative to dir) and how many findings it
// made (a line may hold several).
func runGitleaks(t *testing.T, bin, dir string) (lines map[string]bool, findings int) {
	report := filepath.Join(t.TempDir(), "gitleaks.json")
	cmd := exec.Command(bin, "dir", dir, "--no-banner", "--report-format", "json", "--report-path", report, "--exit-code", "0", "--log-level", "error")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("gitleaks: %v\n%s", err, out)
	}
	var fs []struct {
		File      string
		StartLine int
	}
	raw, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &fs); err != nil {
		t.Fatal(err)
	}
	lines = map[string]bool{}
	for _, f := range fs {
		rel, err := filepath.Rel(dir, f.File)
		if err != nil || strings.HasPrefix(rel, "..") {
			rel = f.File
		}
		lines[fmt.Sprintf("%s:%d", filepath.ToSlash(rel), f.StartLine)] = true
	}
	return lines, len(fs)
}
