package corpus

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/repoprep/repoprep/internal/testkit"
)

// sizedTree writes a tree of n small Go files under root.
func sizedTree(t *testing.T, root string, n int) {
	t.Helper()
	files := map[string]string{}
	for i := range n {
		files[fmt.Sprintf("pkg%d/f%d.go", i%3, i)] = fmt.Sprintf("package pkg%d\n\n// F%d is file %d.\nfunc F%d() int { return %d }\n", i%3, i, i, i, i)
	}
	testkit.WriteTree(t, root, files)
}

// TestEstimate: a git work tree is ranked by its index's size, any other
// tree by its entries (.git's aside, links not followed), a tree that
// cannot be read is small.
func TestEstimate(t *testing.T) {
	root := t.TempDir()
	testkit.WriteTree(t, filepath.Join(root, "plain"), map[string]string{
		"a.go": "package a\n", "b/c.go": "package b\n", "b/d/e.txt": "e\n",
		".git/objects/x": "not counted\n", ".git/HEAD": "ref: refs/heads/main\n",
	})
	if err := os.Symlink(filepath.Join(root, "big"), filepath.Join(root, "plain", "link")); err != nil {
		t.Fatal(err)
	}
	sizedTree(t, filepath.Join(root, "big"), 40)
	testkit.WriteTree(t, filepath.Join(root, "git"), map[string]string{
		".git/index": strings.Repeat("x", 25*indexEntryBytes), "a.go": "package a\n",
	})
	for _, tc := range []struct {
		name string
		want int
	}{
		{"plain", 6},   // a.go, b, b/c.go, b/d, b/d/e.txt and the link itself
		{"big", 43},    // 40 files in 3 directories
		{"git", 25},    // the index's 25 entries, not the tree's one file
		{"missing", 0}, // its run says why
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := estimate(context.Background(), filepath.Join(root, tc.name)); got != tc.want {
				t.Errorf("estimate = %d, want %d", got, tc.want)
			}
		})
	}
}

// orderReporter records the order repositories are done in.
type orderReporter struct {
	nopReporter
	mu    sync.Mutex
	names []string
}

func (r *orderReporter) Repo(name string, _ error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.names = append(r.names, name)
}

// TestRunStartsLargestFirst: one repository at a time (--workers 1), the
// largest runs first and the rest by size, ties in LIST order, and the
// table keeps LIST order. Started in LIST order, a large repository late in LIST ran alone
// at the end.
func TestRunStartsLargestFirst(t *testing.T) {
	root := t.TempDir()
	sizes := map[string]int{"small": 2, "large": 30, "medium": 10, "tie": 10}
	var list []Entry
	for _, name := range []string{"small", "large", "medium", "tie"} {
		sizedTree(t, filepath.Join(root, "src", name), sizes[name])
		list = append(list, Entry{name, filepath.Join(root, "src", name)})
	}
	rep := &orderReporter{}
	opts := testOptions(list, filepath.Join(root, "listed"))
	opts.Workers, opts.Progress = 1, rep
	mustRun(t, opts)
	if want := []string{"large", "medium", "tie", "small"}; !slices.Equal(rep.names, want) {
		t.Errorf("ran %v, want %v", rep.names, want)
	}
	m1, err := ReadManifest(filepath.Join(root, "listed"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range m1.Repos {
		names = append(names, r.Name)
	}
	if want := []string{"small", "large", "medium", "tie"}; !slices.Equal(names, want) {
		t.Errorf("table's repositories %v, want LIST order %v", names, want)
	}
}
