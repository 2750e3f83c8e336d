//go:build unix

package dirfd

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestOutDeepChain: a chain of directories 2,000 deep (the deepest path
// 4,000 bytes long), a file at each level, written deepest first as the
// per-file loop writes a sorted tree, then read upward, at random (as a
// map's order reads it) and downward, then emptied and pruned. Every
// directory is made and every file created, opened and removed relative to
// a held descriptor: the directory opens stay a few per file whatever the
// order, where opening each evicted ancestor again one component at a
// time costs a random order the depth at every file (about 1,000 opens a
// file here), and a path from the root makes the kernel walk every
// ancestor at each call.
//
// The bounds hold where the kernel walks a path beneath a descriptor
// without following symlinks (Linux's openat2); elsewhere each open is one
// component and only what is read and written is checked. The whole pass
// runs 2,000 levels; under -short (make test's race pass) 500, where a
// random order still costs a component-at-a-time walk 120 opens a file.
func TestOutDeepChain(t *testing.T) {
	root := t.TempDir()
	out, err := OpenOut(root)
	mustT(t, err)
	defer out.Close()
	levels := 2000
	if testing.Short() || !out.tree.walksPaths() {
		levels = 500 // one component an open: 2,000 levels at random cost 1.2 million opens, 20 s
	}
	if len(root)+2*levels >= unix.PathMax {
		t.Skipf("%s is too long a temporary directory for %d levels", root, levels)
	}
	rel := make([]string, levels) // rel[i]: the file i+1 directories down
	for i := range rel {
		rel[i] = strings.Repeat("d/", i+1) + "f"
	}
	// opens runs do and holds its directory opens to perFile a file and,
	// in order (not at random), the components they walk to 16 a file.
	opens := func(what string, files int, perFile int64, inOrder bool, do func()) {
		t.Helper()
		o0, n0 := out.tree.dirOpens.Load(), out.tree.dirNames.Load()
		do()
		o, n := out.tree.dirOpens.Load()-o0, out.tree.dirNames.Load()-n0
		t.Logf("%s: %d directory opens walking %d components for %d files", what, o, n, files)
		if !out.tree.walksPaths() {
			return // one component an open here (macOS, -tags repoprep_portable): an evicted ancestor costs its gap
		}
		if o > perFile*int64(files) {
			t.Errorf("%s: %d directory opens for %d files, want at most %d a file", what, o, files, perFile)
		}
		if inOrder && n > 16*int64(files) {
			t.Errorf("%s: the opens walked %d components for %d files, want at most 16 a file", what, n, files)
		}
	}
	opens("written deepest first", levels, 3, true, func() {
		for i := levels - 1; i >= 0; i-- {
			f, err := out.Create(rel[i], 0o644)
			mustT(t, err)
			fmt.Fprintf(f, "level %d\n", i+1)
			mustT(t, f.Close())
		}
	})
	read := func(i int) {
		f, err := out.Open(rel[i])
		mustT(t, err)
		b, err := io.ReadAll(f)
		f.Close()
		mustT(t, err)
		if want := fmt.Sprintf("level %d\n", i+1); string(b) != want {
			t.Fatalf("%d levels down: read %q, want %q", i+1, b, want)
		}
	}
	opens("read upward", levels, 3, true, func() {
		for i := levels - 1; i >= 0; i-- {
			read(i)
		}
	})
	order := rand.New(rand.NewPCG(1, 2)).Perm(levels)
	opens("read at random", levels, 12, false, func() {
		for _, i := range order {
			read(i)
		}
	})
	opens("read downward", levels, 3, true, func() {
		for i := range levels {
			read(i)
		}
	})
	// What is on disk is what was written, by plain paths too (the test
	// walks them from its own directory, one level at a time).
	dir := root
	for i := range min(levels, 50) {
		dir = filepath.Join(dir, "d")
		b, err := os.ReadFile(filepath.Join(dir, "f"))
		if err != nil || string(b) != fmt.Sprintf("level %d\n", i+1) {
			t.Fatalf("%d levels down on disk: %q, %v", i+1, b, err)
		}
	}
	opens("removed at random, pruned", levels, 16, false, func() {
		for _, i := range order {
			mustT(t, out.Remove(rel[i]))
		}
		mustT(t, out.PruneEmpty())
	})
	if names, err := os.ReadDir(root); err != nil || len(names) != 0 {
		t.Errorf("after removing every file and pruning, the root holds %v (%v)", names, err)
	}
	// Made again after the pruning: nothing remembers the removed directories.
	f, err := out.Create("d/d/again", 0o644)
	mustT(t, err)
	f.Close()
	if _, err := os.Stat(filepath.Join(root, "d", "d", "again")); err != nil {
		t.Errorf("a file created after the pruning is not there: %v", err)
	}
}

// TestOutPathLimit: a path that would be over PATH_MAX from where the
// process stands is refused as the kernel refuses it (ENAMETOOLONG, with
// the whole path, the directory's when it is the directory that does not
// fit), before anything is made: what fits does not depend on how the tree
// is opened. A name that is not one component is refused.
func TestOutPathLimit(t *testing.T) {
	root := t.TempDir()
	out, err := OpenOut(root)
	mustT(t, err)
	defer out.Close()
	// Directories of 200 bytes up to about 300 bytes short of PATH_MAX,
	// then file names that bring the path to one byte under it (the
	// longest the kernel takes, its NUL included) and to it.
	const room = 200 // bytes of the longest file name that fits below dirs
	need := unix.PathMax - 1 - (len(root) + 1) - (1 + room)
	k := need/201 - 1
	dirs := strings.Repeat(strings.Repeat("d", 200)+"/", k) + strings.Repeat("c", need-201*k)
	f, err := out.Create(dirs+"/"+strings.Repeat("f", room), 0o644)
	if err != nil {
		t.Fatalf("a path of PATH_MAX-1 bytes: %v", err)
	}
	f.Close()
	_, err = out.Create(dirs+"/"+strings.Repeat("g", room+1), 0o644)
	var pe *os.PathError
	if !errors.Is(err, unix.ENAMETOOLONG) || !errors.As(err, &pe) || pe.Op != "open" || len(pe.Path) != unix.PathMax {
		t.Errorf("a path of PATH_MAX bytes: %v, want ENAMETOOLONG from open naming it", err)
	}
	deeper := dirs + "/" + strings.Repeat("e", room+1) + "/f"
	_, err = out.Create(deeper, 0o644)
	if !errors.Is(err, unix.ENAMETOOLONG) || !errors.As(err, &pe) || pe.Op != "mkdir" || pe.Path != root+"/"+deeper[:len(deeper)-2] {
		t.Errorf("a directory of PATH_MAX bytes: %v, want ENAMETOOLONG from mkdir naming it", err)
	}
	if _, err := os.Lstat(filepath.Join(root, strings.Split(dirs, "/")[0], strings.Repeat("e", 3))); err == nil {
		t.Error("a refused directory was made")
	}
	for _, bad := range []string{"a/../b", "a//b", "./a", "a/.", "a/"} {
		if _, err := out.Create(bad, 0o644); !errors.Is(err, unix.EINVAL) {
			t.Errorf("Create(%q) = %v, want EINVAL", bad, err)
		}
	}
}
