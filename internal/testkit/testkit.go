// Package testkit holds the helpers every package's tests share: golden
// files with an -update flag, and fixture trees written at test time. Only
// tests import it.
package testkit

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

// update is registered once for every test binary that imports testkit:
// `go test ./... -update` rewrites the golden files of every package.
var update = flag.Bool("update", false, "rewrite golden files under testdata/")

// Golden compares got with the file at path (under the package's
// testdata/), rewriting it first when -update is set.
func Golden(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is stale; rerun with -update and review the diff\n--- got ---\n%s", path, got)
	}
}

// WriteTree creates files (slash path -> content) under root; a path
// ending in "/" makes an empty directory.
func WriteTree(t testing.TB, root string, files map[string]string) {
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
