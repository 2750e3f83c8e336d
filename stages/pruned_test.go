package stages

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/repoprep/repoprep/rules"
)

// TestScanUserPathRules: a rules file's exclude prunes directories with
// its own reason, include walks what a default or .gitignore would prune,
// and CountPruned counts what each pruning left out without following
// symlinks.
func TestScanUserPathRules(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		".gitignore":          "generated/\n*.log\n",
		"generated/keep/a.go": "package a\n",
		"generated/b.go":      "package b\n",
		"app.log":             "x\n",
		"build.log":           "x\n",
		"docs/legacy/a.md":    "x\n",
		"docs/legacy/b/c.md":  "x\n",
		"docs/new.md":         "x\n",
		"src/main.go":         "package main\n",
		"vendor/x/y.go":       "package x\n",
	}
	for i := range 30 {
		files[fmt.Sprintf("node_modules/dep%d/lib/index.js", i)] = "x\n"
	}
	writeTree(t, dir, files)
	must(t, os.Symlink(filepath.Join(dir, "src"), filepath.Join(dir, "node_modules", "link")))
	rulesFile := filepath.Join(t.TempDir(), "rules.toml")
	must(t, os.WriteFile(rulesFile, []byte(`
include = ["generated/", "build.log"]
exclude = ["docs/legacy/", "vendor/"]
`), 0o644))
	rs, err := rules.Load(rulesFile)
	if err != nil {
		t.Fatal(err)
	}
	opts := ScanOptions{Root: openRoot(t, dir), Rules: rs, Workers: 2}
	recs, pruned, err := Scan(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := CountPruned(context.Background(), opts, pruned); err != nil {
		t.Fatal(err)
	}
	byPath := map[string]*Record{}
	for _, r := range recs {
		byPath[r.Path] = r
	}
	for _, p := range []string{"generated/keep/a.go", "generated/b.go", "src/main.go", "docs/new.md"} {
		if r := byPath[p]; r == nil || r.Category != "" {
			t.Errorf("%s: %+v, want scanned and undecided", p, r)
		}
	}
	if r := byPath["build.log"]; r == nil || r.Reason == "ignored" {
		t.Errorf("build.log: include must take it back from .gitignore, got %+v", r)
	}
	if r := byPath["app.log"]; r == nil || r.Reason != "ignored" {
		t.Errorf("app.log: %+v, want ignored", r)
	}
	want := map[string]Pruned{
		"docs/legacy":  {Path: "docs/legacy", Reason: ReasonExcludedByRule, Files: 2},
		"vendor":       {Path: "vendor", Reason: ReasonExcludedByRule, Files: 1},
		"node_modules": {Path: "node_modules", Reason: "excluded-dir", Files: 31}, // 30 files and a symlink, not followed
	}
	if len(pruned) != len(want) {
		t.Errorf("pruned %+v, want %d directories", pruned, len(want))
	}
	for _, p := range pruned {
		w := want[p.Path]
		if p.Reason != w.Reason || p.Files != w.Files || p.Capped {
			t.Errorf("pruned %s: %s, %d files (capped %v); want %s, %d", p.Path, p.Reason, p.Files, p.Capped, w.Reason, w.Files)
		}
	}
}
