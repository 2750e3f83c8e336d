package trigram

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// TestUpdateEqualsBuild: an index updated from a previous one, reading
// only the files whose content changed, is byte for byte the index built
// from scratch: over random trees with files kept, edited, added and
// removed, and with the changed files spilling past no limit; and so is
// UpdateWith, which copies the lists no change touches; and so are both
// when the previous index was parsed without its table (ParseFiles, as a
// refresh does), its table read as they merge.
func TestUpdateEqualsBuild(t *testing.T) {
	// These trees hold a few thousand pairs at most, far below maxPairs
	// either way. At its default (2 Mi pairs) each of the 120 builds
	// allocated and cleared 32 MiB of pair and sort buffers: two thirds of
	// the test's time. Past this limit Update refuses (a Fatal below), so
	// a tree outgrowing it cannot pass unnoticed.
	defer func(n int) { maxPairs = n }(maxPairs)
	maxPairs = 1 << 14
	rng := rand.New(rand.NewPCG(1, 2))
	text := func() string {
		words := []string{"func", "main", "return", "x", "y := 1", "\n", "// note", "αβγ", "\x00\x01", "if err != nil {"}
		var b bytes.Buffer
		for range rng.IntN(40) {
			b.WriteString(words[rng.IntN(len(words))])
		}
		return b.String()
	}
	for round := range 60 {
		prev := map[string]string{}
		for i := range rng.IntN(30) {
			prev[fmt.Sprintf("d%d/f%02d.txt", i%3, i)] = text()
		}
		next := map[string]string{}
		for p, c := range prev {
			switch rng.IntN(5) {
			case 0: // removed
			case 1:
				next[p] = text() // edited
			default:
				next[p] = c
			}
		}
		for i := range rng.IntN(6) {
			next[fmt.Sprintf("new/%d-%d.txt", round, i)] = text()
		}
		u := newUpdateCase(t, prev, next)
		got := filepath.Join(u.dir, "updated")
		if err := Update(context.Background(), u.pix, u.next, u.from, got); err != nil {
			t.Fatal(err)
		}
		if a, _ := os.ReadFile(got); !bytes.Equal(a, u.built) {
			t.Fatalf("round %d: update (%d of %d files read) differs from a build", round, u.read, len(u.next))
		}
		// With what prev indexed at hand, lists no change touches are copied.
		gotWith := filepath.Join(u.dir, "updated-with")
		if err := UpdateWith(context.Background(), u.pix, u.next, u.from, u.oldOf, gotWith); err != nil {
			t.Fatal(err)
		}
		if c, _ := os.ReadFile(gotWith); !bytes.Equal(c, u.built) {
			t.Fatalf("round %d: UpdateWith (%d of %d files read) differs from a build", round, u.read, len(u.next))
		}
		fix, err := ParseFiles(builtData(t, memFiles(prev)))
		if err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			name string
			old  func(int) (File, bool)
		}{{"Update", nil}, {"UpdateWith", u.oldOf}} {
			got := filepath.Join(u.dir, tc.name+"-files-only")
			if err := UpdateWith(context.Background(), fix, u.next, u.from, tc.old, got); err != nil {
				t.Fatalf("round %d, %s: %v", round, tc.name, err)
			}
			if data, _ := os.ReadFile(got); !bytes.Equal(data, u.built) {
				t.Fatalf("round %d, %s from a files-only index (%d of %d files read) differs from a build", round, tc.name, u.read, len(u.next))
			}
		}
	}
}

// updateCase is an index of prev, the index a build makes of next, and
// what Update needs to go from one to the other.
type updateCase struct {
	dir   string
	pix   *Index // prev's
	next  []File
	built []byte // next's, built
	from  []int  // each next file's id in pix, -1 for one to read
	read  int    // how many are -1
	prev  map[string]File
}

func newUpdateCase(t *testing.T, prev, next map[string]string) *updateCase {
	t.Helper()
	u := &updateCase{dir: t.TempDir(), next: memFiles(next), prev: map[string]File{}}
	pfiles := memFiles(prev)
	for _, f := range pfiles {
		u.prev[f.Path] = f
	}
	u.pix = build(t, pfiles)
	want := filepath.Join(u.dir, "built")
	if err := Build(context.Background(), u.next, want, u.dir); err != nil {
		t.Fatal(err)
	}
	u.built, _ = os.ReadFile(want)
	u.from = make([]int, len(u.next))
	for i, f := range u.next {
		u.from[i] = -1
		for old, p := range u.pix.Paths() {
			if p == f.Path && prev[p] == next[p] {
				u.from[i] = old
			}
		}
		if u.from[i] < 0 {
			u.read++
		}
	}
	return u
}

// oldOf gives the previous content of pix's file id, as UpdateWith asks.
func (u *updateCase) oldOf(id int) (File, bool) {
	f, ok := u.prev[u.pix.Paths()[id]]
	return f, ok
}

func TestUpdateRefuses(t *testing.T) {
	pfiles := memFiles(map[string]string{"a": "alpha beta", "b": "gamma delta", "c": "epsilon"})
	pix := build(t, pfiles)
	dir := t.TempDir()
	if err := Update(context.Background(), pix, pfiles, []int{1, 0, 2}, filepath.Join(dir, "x")); err == nil {
		t.Error("ids taken out of order: no error")
	}
	defer func(n int) { maxPairs = n }(maxPairs)
	maxPairs = 3
	dst := filepath.Join(dir, "y")
	if err := Update(context.Background(), pix, pfiles, []int{-1, -1, -1}, dst); !errors.Is(err, ErrTooManyChanges) {
		t.Errorf("past maxPairs: %v", err)
	}
	if _, err := os.Stat(dst); err == nil {
		t.Error("a refused update left its file")
	}
}

// TestUpdateWithCopiesUntouchedLists: files edited in place and files
// added after the last keep every id, so UpdateWith copies the lists no
// change touches and still writes the built index. The copy is taken on
// old's word: told the wrong previous content, it keeps stale ids (so the
// path is the one exercised), and without old it decodes every list.
func TestUpdateWithCopiesUntouchedLists(t *testing.T) {
	prev := map[string]string{}
	for i := range 50 {
		prev[fmt.Sprintf("f%02d.go", i)] = fmt.Sprintf("package f%d\n\nfunc F%d() int { return %d }\n", i, i, i*7)
	}
	next := map[string]string{}
	for p, c := range prev {
		next[p] = c
	}
	next["f07.go"] = "package f7\n\n// quux zebra\n"
	next["f31.go"] = "package f31\n\nvar Q = \"xylophone\"\n"
	next["z1.go"] = "package z\n\nconst Wombat = 1\n"
	u := newUpdateCase(t, prev, next)
	for _, tc := range []struct {
		name string
		old  func(int) (File, bool)
		same bool
	}{
		{"old given", u.oldOf, true},
		{"no old", nil, true},
		{"old missing one", func(id int) (File, bool) { return File{}, false }, true},
		{"old wrong", func(id int) (File, bool) { return memFiles(map[string]string{"x": "nothing alike"})[0], true }, false},
	} {
		got := filepath.Join(u.dir, tc.name)
		if err := UpdateWith(context.Background(), u.pix, u.next, u.from, tc.old, got); err != nil {
			t.Fatal(err)
		}
		data, _ := os.ReadFile(got)
		if bytes.Equal(data, u.built) != tc.same {
			t.Errorf("%s: same as the build %t, want %t", tc.name, !tc.same, tc.same)
		}
	}
}
