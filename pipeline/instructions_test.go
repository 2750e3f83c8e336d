package pipeline

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/repoprep/repoprep/instructions"
	"github.com/repoprep/repoprep/instructions/instructionstest"
)

// TestInstructionsGolden runs the pipeline over a repository made at test
// time with every kind of agent instruction file and checks the published
// instructions.json: scopes, front matter, imports (cycle, six hops,
// escapes, missing), the AGENTS.md symlink resolved, sizes and warnings.
func TestInstructionsGolden(t *testing.T) {
	t.Parallel() // changes no package state: see TestMain
	dir := t.TempDir()
	src := instructionstest.Write(t, dir)
	out := filepath.Join(dir, "out")
	runFixture(t, src, out, func(o *Options) { o.MaxTextBytes = 2 << 20 })
	got, err := os.ReadFile(filepath.Join(out, "instructions.json"))
	if err != nil {
		t.Fatal(err)
	}
	checkGoldenFile(t, "instructions", "instructions.json", got)
	if _, err := instructions.Parse(got); err != nil {
		t.Fatal(err)
	}
	for _, leak := range [][]byte{[]byte(dir), []byte(instructionstest.Outside)} {
		if bytes.Contains(got, leak) {
			t.Errorf("instructions.json holds %q", leak)
		}
	}
	// The same bytes whatever the worker count.
	out8 := filepath.Join(dir, "out8")
	runFixture(t, src, out8, func(o *Options) { o.MaxTextBytes, o.Workers = 2<<20, 8 })
	if again, err := os.ReadFile(filepath.Join(out8, "instructions.json")); err != nil || !bytes.Equal(again, got) {
		t.Errorf("instructions.json differs with 8 workers (%v)", err)
	}
	// REPO_MAP.md measures a symlinked instruction file through its target.
	repoMap, err := os.ReadFile(filepath.Join(out, "REPO_MAP.md"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "- `.claude/CLAUDE.md` (22 characters), symlink to `docs/style.md`\n"; !bytes.Contains(repoMap, []byte(want)) {
		t.Errorf("REPO_MAP.md lacks %q:\n%s", want, repoMap)
	}
}
