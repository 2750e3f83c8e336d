package pipeline

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/repoprep/repoprep/internal/instructions"
	"github.com/repoprep/repoprep/internal/instructions/instructionstest"
)

// TestInstructionsGolden runs the pipeline over a repository made at test
// time with every kind of agent instruction file and checks the published
// instructions.json: scopes, front matter, imports (cycle, six hops,
// escapes, missing), the AGENTS.md symlink resolved, sizes and warnings.
func TestInstructionsGolden(t *testing.T) {
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
}
