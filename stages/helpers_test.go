package stages

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/repoprep/repoprep/rules"
)

// writeTree creates files (path -> content) under root; a path ending in
// "/" makes a directory.
func writeTree(t testing.TB, root string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if name[len(name)-1] == '/' {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func defaultRules(t testing.TB) *rules.Set {
	t.Helper()
	rs, err := rules.Load("")
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

func openRoot(t testing.TB, dir string) *os.Root {
	t.Helper()
	r, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// scanDir runs Scan with defaults and indexes the records by path.
func scanDir(t testing.TB, dir string, opts ScanOptions) (map[string]*Record, map[string]string) {
	t.Helper()
	opts.Root = openRoot(t, dir)
	if opts.Rules == nil {
		opts.Rules = defaultRules(t)
	}
	if opts.Workers == 0 {
		opts.Workers = 4
	}
	recs, pruned, err := Scan(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	byPath := map[string]*Record{}
	for _, r := range recs {
		if _, dup := byPath[r.Path]; dup {
			t.Fatalf("path %q scanned twice", r.Path)
		}
		byPath[r.Path] = r
	}
	prunedBy := map[string]string{}
	for _, p := range pruned {
		prunedBy[p.Path] = p.Reason
	}
	return byPath, prunedBy
}
