package stages

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/repoprep/repoprep/internal/dirfd"
	"github.com/repoprep/repoprep/internal/testkit"
)

// scanIgnored is what the scan of dir says of each of paths: ignored
// itself, or below a directory it pruned as ignored.
func scanIgnored(t *testing.T, dir string, paths []string, opts ScanOptions) map[string]bool {
	t.Helper()
	recs, pruned := scanDir(t, dir, opts)
	got := map[string]bool{}
	for _, f := range paths {
		if r := recs[f]; r != nil {
			got[f] = r.Reason == "ignored"
			continue
		}
		found := false
		for p, reason := range pruned {
			if strings.HasPrefix(f, p+"/") {
				found = true
				got[f] = got[f] || reason == "ignored"
			}
		}
		if !found {
			t.Errorf("%s: neither scanned nor under a pruned directory", f)
		}
	}
	return got
}

// TestIgnoreIndexMatchesGit: the scan's indexed matcher gives every
// verdict `git check-ignore` gives on random trees under random patterns:
// literals, suffix and other globs, negations (of a directory below an
// excluded one too), anchors, "**", trailing slashes, at several levels.
//
// The whole pass compares 40 random trees (seeds 0 to 39), at least 100
// ignored paths in all. Under -short (make test's race pass) it compares
// the first 12 of them, at least 30 ignored paths.
func TestIgnoreIndexMatchesGit(t *testing.T) {
	seeds, minIgnored := 40, 100
	if testing.Short() {
		seeds, minIgnored = 12, 30
	}
	names := []string{"a", "b", "c.go", "d.log", "e.txt", "logs", "build", "x.tmp", "keep.log", "sub"}
	elem := func(r *rand.Rand) string {
		switch r.IntN(6) {
		case 0:
			return "*" + names[r.IntN(len(names))][1:]
		case 1:
			return "?" + names[r.IntN(len(names))][1:]
		case 2:
			return "[a-c]*"
		default:
			return names[r.IntN(len(names))]
		}
	}
	pattern := func(r *rand.Rand) string {
		var parts []string
		for range 1 + r.IntN(3) {
			if r.IntN(5) == 0 {
				parts = append(parts, "**")
			}
			parts = append(parts, elem(r))
		}
		p := strings.Join(parts, "/")
		if r.IntN(4) == 0 {
			p = "/" + p
		}
		if r.IntN(4) == 0 {
			p += "/"
		}
		if r.IntN(4) == 0 {
			p = "!" + p
		}
		return p
	}
	total := 0
	for seed := range seeds {
		r := rand.New(rand.NewPCG(uint64(seed), 9))
		dir := t.TempDir()
		tree := map[string]string{}
		for range 40 {
			depth := 1 + r.IntN(4)
			var p []string
			for range depth {
				p = append(p, names[r.IntN(len(names))])
			}
			tree[strings.Join(p, "/")+fmt.Sprint(r.IntN(3))] = "x\n"
		}
		for _, d := range []string{"", "a/", "sub/", "b/c.go/"} {
			var lines []string
			for range 1 + r.IntN(8) {
				lines = append(lines, pattern(r))
			}
			tree[d+".gitignore"] = strings.Join(lines, "\n") + "\n"
		}
		writeTree(t, dir, tree)
		paths := slices.Sorted(maps.Keys(tree))
		want := testkit.GitIgnored(t, dir, paths)
		got := scanIgnored(t, dir, paths, ScanOptions{Skip: map[dirfd.ID]bool{idOf(t, filepath.Join(dir, ".git")): true}})
		for _, p := range paths {
			if got[p] != want[p] {
				t.Errorf("seed %d: %s: ignored = %v, git check-ignore says %v", seed, p, got[p], want[p])
			}
			if want[p] {
				total++
			}
		}
		if t.Failed() {
			t.Logf("tree: %v", tree)
			return
		}
	}
	if total < minIgnored {
		t.Errorf("only %d ignored paths over %d seeds; the patterns exercise little", total, seeds)
	}
	t.Logf("%d ignored paths compared", total)
}

// TestLargeGitignore: a 1 MiB .gitignore still decides as git does: its
// last lines win, literal, suffix and negated patterns alike.
func TestLargeGitignore(t *testing.T) {
	var b strings.Builder
	for i := 0; b.Len() < 1<<20-200; i++ {
		fmt.Fprintf(&b, "gen-%06d.out\n*.ext%05d\n/docs/old-%06d.md\n!keep-%06d.txt\n", i, i, i, i)
	}
	b.WriteString("*.log\n!important.log\nsecret-dir/\n")
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		".gitignore": b.String(), "gen-000042.out": "x", "a.ext00042": "x", "docs/old-000007.md": "x",
		"docs/new.md": "x", "x.log": "x", "important.log": "x", "secret-dir/f": "x", "main.go": "package main\n",
	})
	if len(b.String()) < 1<<20-300 {
		t.Fatal("the ignore file is not 1 MiB")
	}
	recs, pruned := scanDir(t, dir, ScanOptions{})
	for p, want := range map[string]string{
		"gen-000042.out": "ignored", "a.ext00042": "ignored", "docs/old-000007.md": "ignored",
		"docs/new.md": "", "x.log": "ignored", "important.log": "", "main.go": "",
	} {
		if r := recs[p]; r == nil || r.Reason != want {
			t.Errorf("%s: %+v, want reason %q", p, r, want)
		}
	}
	if pruned["secret-dir"] != "ignored" {
		t.Errorf("secret-dir not pruned: %v", pruned)
	}
}
