package serve

import (
	"math/rand/v2"
	"path"
	"slices"
	"strings"
	"testing"

	"github.com/repoprep/repoprep/snapshot"
)

// FuzzLevenshtein: Myers' bit-parallel distance equals the dynamic program.
func FuzzLevenshtein(f *testing.F) {
	for _, s := range [][2]string{{"kitten", "sitting"}, {"", "abc"}, {"net/http/sever.go", "net/http/server.go"}, {strings.Repeat("a", 64), "b"}} {
		f.Add(s[0], s[1], 5)
	}
	f.Fuzz(func(t *testing.T, a, b string, limit int) {
		limit = max(0, limit%100)
		l, ok := newLevenshtein(a)
		if !ok {
			return
		}
		// Both answer "more than limit" as some number over it.
		if got, want := min(l.dist(b, limit), limit+1), min(editDistance(a, b, limit), limit+1); got != want {
			t.Fatalf("dist(%q, %q, %d) = %d, dynamic program says %d", a, b, limit, got, want)
		}
	})
}

// closest with the q-gram filter and Myers answers exactly what the plain
// scan did, on paths shaped like a real tree.
func TestClosestMatchesBruteForce(t *testing.T) {
	dirs := []string{"net/http", "net/http/internal", "go/types", "cmd/go/internal/load", "src", "docs", "a"}
	bases := []string{"server.go", "client.go", "doc.go", "main.go", "a.go", "README.md", "load.go", "types_test.go", "x"}
	s := snap{files: map[string]string{}}
	for _, d := range dirs {
		for _, b := range bases {
			s.files[d+"/"+b] = "x\n"
		}
	}
	srv, _ := newTestServer(t, &s, Options{})
	sn := srv.cur
	rng := rand.New(rand.NewPCG(1, 2))
	var names []string
	for p := range s.files {
		names = append(names, p, path.Base(p), "zz/"+p)
		b := []byte(p)
		for range 1 + rng.IntN(3) {
			i := rng.IntN(len(b))
			switch rng.IntN(3) {
			case 0:
				b[i] = byte('a' + rng.IntN(26))
			case 1:
				b = append(b[:i], b[i+1:]...)
			default:
				b = slices.Insert(b, i, byte('a'+rng.IntN(26)))
			}
			if len(b) == 0 {
				b = []byte("q")
			}
		}
		names = append(names, string(b))
	}
	for _, name := range names {
		got := sn.closest(name)
		want := bruteClosest(sn, name)
		if !slices.Equal(got, want) {
			t.Errorf("closest(%q) = %v, plain scan %v", name, got, want)
		}
	}
}

// bruteClosest is closest as it was: every readable path, dynamic program.
func bruteClosest(sn *view, name string) []string {
	type cand struct {
		path string
		dist int
	}
	var cands []cand
	seen := map[string]bool{}
	base := path.Base(name)
	for _, p := range sn.byBase[base] {
		cands = append(cands, cand{p, editDistance(name, p, len(name)+len(p))})
		seen[p] = true
	}
	slices.SortFunc(cands, func(a, b cand) int { return a.dist - b.dist })
	if len(cands) > maxSuggestions {
		cands = cands[:maxSuggestions]
	}
	if len(cands) < maxSuggestions {
		limit := max(2, len(name)/5)
		baseLimit := max(1, len(base)/4)
		var more []cand
		for _, e := range sn.readable {
			if seen[e.Path] {
				continue
			}
			if d := editDistance(name, e.Path, limit); d <= limit {
				more = append(more, cand{e.Path, d})
			} else if d := editDistance(base, path.Base(e.Path), baseLimit); d <= baseLimit {
				more = append(more, cand{e.Path, limit + 1 + d})
			}
		}
		slices.SortStableFunc(more, func(a, b cand) int { return a.dist - b.dist })
		cands = append(cands, more[:min(len(more), maxSuggestions-len(cands))]...)
	}
	out := make([]string, len(cands))
	for i, c := range cands {
		out[i] = c.path
	}
	return out
}

// TestMainGlob: the example path_glob is the snapshot's own main kind of
// source under the directory holding most of it.
func TestMainGlob(t *testing.T) {
	entries := func(category string, paths ...string) []*snapshot.Entry {
		var out []*snapshot.Entry
		for _, p := range paths {
			out = append(out, &snapshot.Entry{Path: p, Category: category})
		}
		return out
	}
	for name, tt := range map[string]struct {
		files []*snapshot.Entry
		want  string
	}{
		"python under src": {append(entries("source", "src/click/core.py", "src/click/utils.py", "tests/test_core.py", "setup.sh"),
			entries("text", "docs/a.md", "docs/b.md", "docs/c.md", "docs/d.md")...), "src/**/*.py"},
		"go at the root and below": {entries("source", "main.go", "flags.go", "serve/http.go"), "**/*.go"},
		"go below":                 {entries("source", "main.go", "serve/http.go", "serve/mcp.go"), "serve/**/*.go"},
		"ties by name":             {entries("source", "lib/a.rs", "lib/b.ts"), "lib/**/*.rs"},
		"no source":                {entries("text", "docs/a.md", "docs/b.md", "notes.txt"), "docs/**/*.md"},
		"no extension":             {entries("text", "LICENSE", "bin/run"), "**"},
		"empty":                    {nil, "**"},
	} {
		if got := mainGlob(tt.files); got != tt.want {
			t.Errorf("%s: mainGlob = %q, want %q", name, got, tt.want)
		}
	}
}
