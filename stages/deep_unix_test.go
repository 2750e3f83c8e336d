//go:build unix

package stages

import (
	"os"
	"path/filepath"
	"testing"
)

// TestStagedThroughHeldDirectories: the tree is written relative to its
// directories' descriptors, not by paths from OUT. Once a file is staged,
// the tree moved to another name still receives the next files, in the
// same directory and in a new one, where writes by whole paths would fail
// (or land at the old name). On Windows the tree is written by paths.
func TestStagedThroughHeldDirectories(t *testing.T) {
	src, parent := t.TempDir(), t.TempDir()
	out := filepath.Join(parent, "tree")
	must(t, os.Mkdir(out, 0o755))
	writeTree(t, src, map[string]string{"a/b/c/x.txt": "x\n", "a/b/c/y.txt": "y\n", "a/b/d/z.txt": "z\n", "e.txt": "e\n"})
	recs, _ := scanDir(t, src, ScanOptions{})
	env := &Env{Src: openRoot(t, src), TreeDir: out, Rules: defaultRules(t), MaxTextBytes: 1 << 20}
	defer env.Close()
	must(t, process(env, recs["a/b/c/x.txt"]))
	moved := filepath.Join(parent, "moved")
	must(t, os.Rename(out, moved))
	for _, p := range []string{"a/b/c/y.txt", "a/b/d/z.txt", "e.txt"} {
		rec := recs[p]
		if err := process(env, rec); err != nil || !rec.Staged {
			t.Fatalf("%s after the tree moved: staged %v, err %v (%s)", p, rec.Staged, err, rec.Err)
		}
	}
	for p, want := range map[string]string{"a/b/c/x.txt": "x\n", "a/b/c/y.txt": "y\n", "a/b/d/z.txt": "z\n", "e.txt": "e\n"} {
		if b, err := os.ReadFile(filepath.Join(moved, filepath.FromSlash(p))); err != nil || string(b) != want {
			t.Errorf("%s in the moved tree: %q, %v", p, b, err)
		}
	}
	if _, err := os.Lstat(out); !os.IsNotExist(err) {
		t.Errorf("something was written at the tree's old name: %v", err)
	}
}
