package dedup

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"testing"

	"github.com/zeebo/blake3"
)

// group hashes contents (path -> bytes) and groups them, in paths' order.
func group(t testing.TB, paths []string, contents map[string]string) Result {
	t.Helper()
	files := make([]File, len(paths))
	sums := make([][32]byte, len(paths))
	for i, p := range paths {
		files[i] = File{Path: p, Size: int64(len(contents[p]))}
		sums[i] = blake3.Sum256([]byte(contents[p]))
	}
	res, err := Group(files, sums)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestGroup(t *testing.T) {
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
	res := group(t, paths, contents)
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

// TestDeterministic shuffles the input: the answer must not move.
func TestDeterministic(t *testing.T) {
	contents := map[string]string{}
	var paths []string
	for i := range 300 {
		p := fmt.Sprintf("d%d/s%d/f%03d.txt", i%7, i%3, i)
		contents[p] = fmt.Sprintf("content %d\n", i%40) // 40 contents across 300 files
		paths = append(paths, p)
	}
	first := group(t, paths, contents)
	if len(first.DuplicateOf) != 300-40 {
		t.Errorf("%d duplicates, want %d", len(first.DuplicateOf), 300-40)
	}
	for run := range 5 {
		shuffled := append([]string(nil), paths...)
		rand.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		res := group(t, shuffled, contents)
		if !maps.Equal(res.DuplicateOf, first.DuplicateOf) || !maps.Equal(res.Hash, first.Hash) {
			t.Errorf("run %d: result differs", run)
		}
	}
	for dup, canon := range first.DuplicateOf {
		if canonicalOrder(canon, dup) >= 0 {
			t.Errorf("%s is canonical for %s", canon, dup)
		}
	}
}

func TestPathTwice(t *testing.T) {
	files := []File{{Path: "a", Size: 1}, {Path: "a", Size: 1}}
	if _, err := Group(files, make([][32]byte, 2)); err == nil {
		t.Error("a path given twice is accepted")
	}
}
