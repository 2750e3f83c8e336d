package stages

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// referenceIgnored walks dir as the scan did before ignore matching was
// indexed: at every directory, one go-git matcher over all patterns for
// subdirectories and one over those that are not directory-only for
// files, each tested on every path. It returns the ignored files and the
// pruned directories.
func referenceIgnored(t *testing.T, dir string) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	var walk func(rel []string, pats []ignorePattern)
	walk = func(rel []string, pats []ignorePattern) {
		osDir := filepath.Join(append([]string{dir}, rel...)...)
		for _, name := range []string{".gitignore", ".ignore"} {
			if f, err := os.Open(filepath.Join(osDir, name)); err == nil {
				ps, _ := parseIgnore(f, rel)
				f.Close()
				pats = append(pats[:len(pats):len(pats)], ps...)
			}
		}
		var all, plain []gitignore.Pattern
		for _, p := range pats {
			all = append(all, p.Pattern)
			if !p.dirOnly {
				plain = append(plain, p.Pattern)
			}
		}
		dirs, files := gitignore.NewMatcher(all), gitignore.NewMatcher(plain)
		entries, err := os.ReadDir(osDir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			p := append(rel[:len(rel):len(rel)], e.Name())
			key := strings.Join(p, "/")
			if e.IsDir() {
				if dirs.Match(p, true) {
					out[key+"/"] = true
					continue
				}
				walk(p, pats)
				continue
			}
			if files.Match(p, false) {
				out[key] = true
			}
		}
	}
	walk(nil, nil)
	return out
}

// TestIgnoreIndexMatchesMatcher: the indexed matcher gives every verdict
// the plain go-git matchers give (the semantics TestIgnoreMatchesGit
// compares with git check-ignore) on random trees under random patterns:
// literals, suffix and other globs, negations, anchors, "**", trailing
// slashes, at several levels.
func TestIgnoreIndexMatchesMatcher(t *testing.T) {
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
	for seed := range 40 {
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
		want := referenceIgnored(t, dir)
		total += len(want)
		recs, pruned := scanDir(t, dir, ScanOptions{})
		got := map[string]bool{}
		for p, rec := range recs {
			if rec.Reason == "ignored" {
				got[p] = true
			}
		}
		for p, reason := range pruned {
			if reason == "ignored" {
				got[p+"/"] = true
			}
		}
		for p := range want {
			if !got[p] {
				t.Errorf("seed %d: %s ignored by the matcher, not by the index", seed, p)
			}
		}
		for p := range got {
			if !want[p] {
				t.Errorf("seed %d: %s ignored by the index, not by the matcher", seed, p)
			}
		}
		if t.Failed() {
			t.Logf("tree: %v", tree)
			return
		}
	}
	if total < 100 {
		t.Errorf("only %d ignored paths over all seeds; the patterns exercise little", total)
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
