package stages

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sync/errgroup"
)

// TestStageDeepChain: a chain of 2,000 nested directories with a file at
// each level goes through the scan and the per-file loop: every file is
// staged at its depth with its text, and no directory holding one is
// pruned. The tree is written relative to held directory descriptors
// (Env.Tree), so this costs about what 2,000 files in one directory cost
// (BenchmarkDeepChain has the figures).
//
// The whole pass runs 2,000 levels (the deepest path 4,000 bytes long);
// under -short (make test's race pass) 500.
func TestStageDeepChain(t *testing.T) {
	levels := 2000
	if testing.Short() {
		levels = 500
	}
	src, out := memDir(t), memDir(t)
	if len(out)+len("/d")*levels+len("/leaf.txt") >= pathMax {
		t.Skipf("%s is too long a temporary directory for %d levels", out, levels)
	}
	mkdeep(t, src, levels, 1)
	env := &Env{Src: openRoot(t, src), TreeDir: out, Rules: defaultRules(t), MaxTextBytes: 1 << 20}
	if n := runLoop(t, env, 2); n != levels+1 {
		t.Fatalf("%d files staged, want %d", n, levels+1)
	}
	// Read back by plain paths, from the test's side.
	dir := out
	for i := range levels {
		dir = filepath.Join(dir, "d")
		want := fmt.Sprintf("level %d\n", i+1)
		if b, err := os.ReadFile(filepath.Join(dir, "f.txt")); err != nil || string(b) != want {
			t.Fatalf("%d levels down: %q, %v; want %q", i+1, b, err, want)
		}
	}
	if b, err := os.ReadFile(filepath.Join(dir, "leaf.txt")); err != nil || string(b) != "the bottom\n" {
		t.Fatalf("the leaf: %q, %v", b, err)
	}
}

// runLoop scans env.Src and runs Process on every record with workers
// workers, as a run's loop does, then prunes the empty directories and
// closes env; it returns the number of records staged.
func runLoop(t testing.TB, env *Env, workers int) int {
	t.Helper()
	defer env.Close()
	ctx := context.Background()
	recs, _, err := Scan(ctx, ScanOptions{Root: env.Src, Rules: env.Rules, Workers: workers})
	if err != nil {
		t.Fatal(err)
	}
	set := NewWorkerSet(workers)
	var clock Clock
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(workers)
	for _, rec := range recs {
		g.Go(func() error {
			w := set.Get()
			defer set.Put(w)
			return env.Process(gctx, rec, w, &clock)
		})
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
	if err := env.PruneEmptyDirs(); err != nil {
		t.Fatal(err)
	}
	staged := 0
	for _, rec := range recs {
		if rec.Staged {
			staged++
		} else {
			t.Errorf("%.60s...: not staged (%s %s)", rec.Path, rec.Reason, rec.Err)
		}
	}
	return staged
}
