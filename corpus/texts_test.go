package corpus

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/zeebo/blake3"

	"github.com/repoprep/repoprep/internal/testkit"
	"github.com/repoprep/repoprep/snapshot"
)

// textsTree writes files (slash paths → content) under a new directory
// and opens it as a tree/ root.
func textsTree(t *testing.T, files map[string]string) (string, *os.Root) {
	t.Helper()
	dir := t.TempDir()
	for rel, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	return dir, root
}

// TestTextsReads: texts reads every copy, in path order and out of it,
// across more directories than it keeps open, into the buffer it is
// given when that is large enough, with the copy's BLAKE3.
func TestTextsReads(t *testing.T) {
	files := map[string]string{"top.go": "package top\n", "empty.txt": ""}
	for d := range 3 * maxOpenDirs {
		for f := range 3 {
			files[fmt.Sprintf("d%02d/sub/f%d.go", d, f)] = strings.Repeat(fmt.Sprintf("line %d %d\n", d, f), d+f)
			files[fmt.Sprintf("d%02d/f%d.go", d, f)] = fmt.Sprintf("package d%d // %d\n", d, f)
		}
	}
	_, root := textsTree(t, files)
	var paths []string
	for p := range files {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	reversed := slices.Clone(paths)
	slices.Reverse(reversed)
	for _, tc := range []struct {
		name  string
		paths []string
		buf   int
	}{
		{"path order", paths, 0},
		{"reverse order", reversed, 0},
		{"path order into a buffer", paths, 1 << 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tx := newTexts(root)
			defer tx.close()
			buf := make([]byte, 0, tc.buf)
			for _, p := range tc.paths {
				text, sum, err := tx.read(p, buf)
				if err != nil {
					t.Fatal(err)
				}
				if string(text) != files[p] || sum != blake3.Sum256([]byte(files[p])) {
					t.Fatalf("%s: read %q, want %q", p, text, files[p])
				}
				if tc.buf > len(files[p]) && &text[:1][0] != &buf[:1][0] {
					t.Errorf("%s: read into a new slice, not the buffer of %d bytes", p, tc.buf)
				}
			}
			open := 0
			for _, d := range tx.dirs {
				if d.root != nil {
					open++
				}
			}
			if open > maxOpenDirs {
				t.Errorf("%d directories open, want at most %d", open, maxOpenDirs)
			}
		})
	}
}

// TestTextsRefuses: what snapshot.OpenStaged refuses, texts refuses: a
// path out of the tree, a symlink or a hard link planted in it (even one
// pointing inside), a directory or a FIFO where a copy was; and readEntry
// a copy that is not the text files.json hashes.
func TestTextsRefuses(t *testing.T) {
	dir, root := textsTree(t, map[string]string{"a/ok.go": "package a\n", "a/b/in.go": "package b\n", "a/b/c/x.go": "x\n"})
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Symlink("in.go", filepath.Join(dir, "a", "b", "link.go")))
	must(os.Link(filepath.Join(dir, "a", "ok.go"), filepath.Join(dir, "a", "hard.go")))
	testkit.Mkfifo(t, filepath.Join(dir, "a", "fifo.go"))
	outside := t.TempDir()
	must(os.WriteFile(filepath.Join(outside, "secret"), []byte("no\n"), 0o644))
	must(os.Symlink(outside, filepath.Join(dir, "a", "out")))
	for _, tc := range []struct {
		name, path string
		unsafe     bool // an *snapshot.UnsafeError, not only an error
	}{
		{"dot-dot", "../x.go", false},
		{"a symlink to a copy", "a/b/link.go", true},
		{"a hard link", "a/hard.go", true},
		{"a FIFO", "a/fifo.go", true},
		{"a directory", "a/b/c", true},
		{"missing", "a/none.go", false},
		{"through a link out of the tree", "a/out/secret", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tx := newTexts(root)
			defer tx.close()
			if _, _, err := tx.read("a/b/in.go", nil); err != nil {
				t.Fatal(err) // a directory is open before the refusal
			}
			text, _, err := tx.read(tc.path, nil)
			var ue *snapshot.UnsafeError
			switch {
			case err == nil:
				t.Fatalf("read %s: %q, want a refusal", tc.path, text)
			case tc.unsafe && !errors.As(err, &ue):
				t.Errorf("read %s: %v, want an *snapshot.UnsafeError", tc.path, err)
			case !strings.Contains(err.Error(), tc.path):
				t.Errorf("read %s: %q does not name the path", tc.path, err)
			}
		})
	}
	t.Run("a copy that is not the one hashed", func(t *testing.T) {
		tx := newTexts(root)
		defer tx.close()
		sum := blake3.Sum256([]byte("package z\n"))
		e := &snapshot.Entry{Path: "a/b/in.go", Hash: hashPrefix + fmt.Sprintf("%x", sum)}
		if _, _, err := tx.readEntry(e, nil); err == nil || !strings.Contains(err.Error(), "does not match") {
			t.Errorf("readEntry: %v, want a mismatch", err)
		}
		sum = blake3.Sum256([]byte("package b\n"))
		e.Hash = hashPrefix + fmt.Sprintf("%x", sum)
		if text, _, err := tx.readEntry(e, nil); err != nil || string(text) != "package b\n" {
			t.Errorf("readEntry: %q, %v", text, err)
		}
	})
}
