package pipeline

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/repoprep/repoprep/internal/testkit"
)

// TestRepoConfig: a repository's own .repoprep.toml steers the run, and
// --rules has the last word over it.
func TestRepoConfig(t *testing.T) {
	src := filepath.Join(t.TempDir(), "svc")
	testkit.WriteTree(t, src, map[string]string{
		".repoprep.toml": `
exclude = ["docs/legacy/", "*.snap"]
not_vendored = ["third_party/ours/"]

[[override]]
paths = ["db/seed.sql"]
category = "text"
`,
		"docs/legacy/a.md":        "# old\n",
		"docs/legacy/b.md":        "# older\n",
		"docs/new.md":             "# new\n",
		"ui/__snapshots__/x.snap": "snapshot\n",
		"third_party/ours/ours.c": "int ours;\n",
		"third_party/zlib/z.c":    "int z;\n",
		"db/seed.sql":             "-- MySQL dump 10.13\nINSERT INTO t VALUES (1);\n",
		"main.go":                 "package main\n\nfunc main() {}\n",
	})
	user := filepath.Join(t.TempDir(), "rules.toml")
	if err := os.WriteFile(user, []byte("exclude = [\"!docs/legacy/b.md\", \"docs/legacy/*\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res := runFixture(t, src, filepath.Join(t.TempDir(), "out"), nil)
	got := map[string]string{}
	for _, e := range res.Manifest.Files {
		got[e.Path] = e.Category + "/" + e.Reason
	}
	want := map[string]string{
		"ui/__snapshots__/x.snap": "junk/excluded-by-rule",
		"third_party/ours/ours.c": "source/",
		"third_party/zlib/z.c":    "junk/vendored",
		"db/seed.sql":             "text/",
		"docs/new.md":             "text/",
		".repoprep.toml":          "text/",
	}
	for p, w := range want {
		if got[p] != w {
			t.Errorf("%s = %q, want %q", p, got[p], w)
		}
	}
	if len(res.Manifest.Pruned) != 1 || res.Manifest.Pruned[0].Path != "docs/legacy" || res.Manifest.Pruned[0].Reason != "excluded-by-rule" {
		t.Errorf("pruned = %+v, want docs/legacy excluded-by-rule", res.Manifest.Pruned)
	}
	if a := res.Report.Audit; len(a.PrunedDirs) != 1 || a.PrunedDirs[0].Files != 2 {
		t.Errorf("audit pruned dirs = %+v, want docs/legacy with 2 files", a.PrunedDirs)
	}

	// --rules comes after the repository's file: its exclude replaces the
	// directory pruning with per-file exclusion and an exception.
	res = runFixture(t, src, filepath.Join(t.TempDir(), "out2"), func(o *Options) { o.RulesFile = user })
	got = map[string]string{}
	for _, e := range res.Manifest.Files {
		got[e.Path] = e.Category + "/" + e.Reason
	}
	if got["docs/legacy/a.md"] != "" || got["docs/legacy/b.md"] != "" {
		// The repository's "docs/legacy/" still prunes the directory: git
		// cannot re-include a file below an excluded directory.
		t.Errorf("docs/legacy files scanned: a=%q b=%q", got["docs/legacy/a.md"], got["docs/legacy/b.md"])
	}
}

// TestRepoConfigHostile: a .repoprep.toml that is not a regular file, or
// a symlink out of the tree, is refused with a clear error; a broken one
// names itself.
func TestRepoConfigHostile(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "outside.toml")
	if err := os.WriteFile(outside, []byte("exclude = [\"*\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		make func(path string) error
		want string
	}{
		{"fifo", func(p string) error { testkit.Mkfifo(t, p); return nil }, "not a regular file"},
		{"symlink out", func(p string) error { return os.Symlink(outside, p) }, ".repoprep.toml"},
		{"bad toml", func(p string) error { return os.WriteFile(p, []byte("exclude = ["), 0o644) }, ".repoprep.toml"},
		{"bad key", func(p string) error { return os.WriteFile(p, []byte("exclud = []\n"), 0o644) }, `unknown key "exclud"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := t.TempDir()
			if err := tt.make(filepath.Join(src, ".repoprep.toml")); err != nil {
				t.Fatal(err)
			}
			_, err := LoadRules(src, "")
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("LoadRules = %v, want an error containing %q", err, tt.want)
			}
			_, err = Run(t.Context(), Options{Root: src, OutDir: filepath.Join(t.TempDir(), "out")})
			if !errors.Is(err, ErrBadOptions) {
				t.Errorf("Run = %v, want a usage error", err)
			}
		})
	}
}
