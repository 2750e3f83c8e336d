package stages

import (
	"context"
	"testing"

	"github.com/repoprep/repoprep/internal/dirfd"
	"github.com/repoprep/repoprep/internal/testkit"
	"github.com/repoprep/repoprep/rules"
)

// writeTree creates files (path -> content) under root.
func writeTree(t testing.TB, root string, files map[string]string) {
	t.Helper()
	testkit.WriteTree(t, root, files)
}

func defaultRules(t testing.TB) *rules.Set {
	t.Helper()
	rs, err := rules.Load("")
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

func openRoot(t testing.TB, dir string) *dirfd.Tree {
	t.Helper()
	r, err := dirfd.Open(dir, dirfd.Options{})
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
