package dedup

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/zeebo/blake3"
)

// writeTree writes contents (manifest path -> bytes) under a temp dir and returns Files in
// the given order.
func writeTree(t testing.TB, dir string, paths []string, contents map[string]string) []File {
	t.Helper()
	var files []File
	for _, p := range paths {
		name := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte(contents[p]), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, File{Path: p, Name: name, Size: int64(len(contents[p]))})
	}
	return files
}

func TestFind(t *testing.T) {
	contents := map[string]string{
		"a/deep/x/readme.md": "same text\n",
		"b/readme.md":        "same text\n",
		"z.md":               "same text\n", // shallowest: canonical
		"c/one.txt":          "abcdefghij",  // same size as the others, different bytes
		"c/two.txt":          "abcdefghiK",
		"d/lib.go":           "package lib\n",
		"e/lib.go":           "package lib\n", // same depth as d/lib.go: byte order decides
		"f/empty.py":         "",
		"g/empty.py":         "",
		"h/unique.txt":       "only one of these",
	}
	paths := []string{"z.md", "a/deep/x/readme.md", "b/readme.md", "c/one.txt", "c/two.txt", "e/lib.go", "d/lib.go", "f/empty.py", "g/empty.py", "h/unique.txt"}
	files := writeTree(t, t.TempDir(), paths, contents)
	res, err := Find(context.Background(), files, 2)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"a/deep/x/readme.md": "z.md",
		"b/readme.md":        "z.md",
		"e/lib.go":           "d/lib.go",
	}
	if !maps.Equal(res.DuplicateOf, want) {
		t.Errorf("DuplicateOf = %v, want %v", res.DuplicateOf, want)
	}
	if len(res.Hash) != len(paths) {
		t.Errorf("%d hashes for %d files", len(res.Hash), len(paths))
	}
	sum := blake3.Sum256([]byte("same text\n"))
	if got, want := res.Hash["b/readme.md"], fmt.Sprintf("blake3:%x", sum); got != want {
		t.Errorf("hash = %s, want %s", got, want)
	}
	if res.Hash["c/one.txt"] == res.Hash["c/two.txt"] {
		t.Error("different contents hashed alike")
	}
}

// TestDeterministic shuffles inputs and varies workers: the answer must not move.
func TestDeterministic(t *testing.T) {
	dir := t.TempDir()
	contents := map[string]string{}
	var paths []string
	for i := range 300 {
		p := fmt.Sprintf("d%d/s%d/f%03d.txt", i%7, i%3, i)
		contents[p] = fmt.Sprintf("content %d\n", i%40) // 40 contents across 300 files
		paths = append(paths, p)
	}
	files := writeTree(t, dir, paths, contents)
	first, err := Find(context.Background(), files, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(first.DuplicateOf) != 300-40 {
		t.Errorf("%d duplicates, want %d", len(first.DuplicateOf), 300-40)
	}
	for _, workers := range []int{1, 2, 8} {
		for run := range 3 {
			shuffled := append([]File(nil), files...)
			for i := range shuffled {
				j := int(randByte()) % len(shuffled)
				shuffled[i], shuffled[j] = shuffled[j], shuffled[i]
			}
			res, err := Find(context.Background(), shuffled, workers)
			if err != nil {
				t.Fatal(err)
			}
			if !maps.Equal(res.DuplicateOf, first.DuplicateOf) || !maps.Equal(res.Hash, first.Hash) {
				t.Errorf("workers %d run %d: result differs", workers, run)
			}
		}
	}
	for dup, canon := range first.DuplicateOf {
		if canonicalOrder(canon, dup) >= 0 {
			t.Errorf("%s is canonical for %s", canon, dup)
		}
	}
}

func randByte() byte {
	var b [1]byte
	rand.Read(b[:])
	return b[0]
}

func TestErrors(t *testing.T) {
	dir := t.TempDir()
	files := writeTree(t, dir, []string{"a", "b"}, map[string]string{"a": "x", "b": "y"})
	if _, err := Find(context.Background(), append(files, File{Path: "gone", Name: filepath.Join(dir, "gone"), Size: 1}), 2); !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), "gone") {
		t.Errorf("missing file: err = %v", err)
	}
	if _, err := Find(context.Background(), append(files, files[0]), 2); err == nil {
		t.Error("a path given twice is accepted")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Find(ctx, files, 2); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v", err)
	}
}

// Group, given the hashes, answers what Find answers by reading the files.
func TestGroupMatchesFind(t *testing.T) {
	dir := t.TempDir()
	contents := map[string]string{"a/x.txt": "same\n", "b.txt": "same\n", "c/d/e.txt": "same\n", "f.txt": "other\n", "g.txt": "", "h.txt": ""}
	var files []File
	var sums [][32]byte
	for p, c := range contents {
		name := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, File{Path: p, Name: name, Size: int64(len(c))})
		sums = append(sums, blake3.Sum256([]byte(c)))
	}
	want, err := Find(context.Background(), files, 2)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Group(files, sums)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Group = %+v\nFind = %+v", got, want)
	}
	if got.DuplicateOf["a/x.txt"] != "b.txt" || len(got.DuplicateOf) != 2 {
		t.Errorf("duplicates = %v, want a/x.txt and c/d/e.txt of b.txt", got.DuplicateOf)
	}
}
