package pipeline

import (
	"path/filepath"
	"testing"
)

// TestExplainAgreesWithRun: for every file of the fixture tree, explain
// gives the category, reason and test mark the run wrote into files.json
// (it walks only the path's way down, so this checks it sees the same
// ignore files and manifests as the full scan).
func TestExplainAgreesWithRun(t *testing.T) {
	src := fixtureTree(t)
	res := runFixture(t, src, filepath.Join(t.TempDir(), "out"), nil)
	var paths []string
	for _, e := range res.Manifest.Files {
		if e.Reason == "unsafe-name" {
			continue // not addressable by its escaped name
		}
		paths = append(paths, e.Path)
	}
	xs, err := Explain(t.Context(), ExplainOptions{Root: src}, paths)
	if err != nil {
		t.Fatal(err)
	}
	byPath := map[string]Explanation{}
	for _, x := range xs {
		byPath[x.Path] = x
	}
	for _, e := range res.Manifest.Files {
		x, ok := byPath[e.Path]
		if !ok {
			continue
		}
		if !x.Found || x.Category != e.Category || x.Reason != e.Reason || x.Test != e.Test || x.Rule == "" {
			t.Errorf("%s: explain says %s/%s test=%v (rule %q), the run %s/%s test=%v",
				e.Path, x.Category, x.Reason, x.Test, x.Rule, e.Category, e.Reason, e.Test)
		}
	}
	if len(byPath) < 15 {
		t.Fatalf("only %d paths explained", len(byPath))
	}
}
