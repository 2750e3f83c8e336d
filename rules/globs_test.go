package rules

import (
	"path"
	"testing"
)

// TestGlobsMatchPathMatch: the fast paths agree with path.Match, the
// reference, on every rule glob of the defaults and tricky names.
func TestGlobsMatchPathMatch(t *testing.T) {
	s, err := Load("")
	if err != nil {
		t.Fatal(err)
	}
	patterns := []string{"*_test.go", "?*Test.java", "test_*.py", "conftest.py", "*", "a*b", "[ab]*", "*.min.js", "Icon?", `\#*`}
	for _, j := range s.Junk {
		patterns = append(patterns, j.Glob)
	}
	for i := range s.Triage.TestGlobs.Len() {
		patterns = append(patterns, s.Triage.TestGlobs.Pattern(i))
	}
	patterns = append(patterns, s.Manifests...)
	names := []string{"", "a", "x_test.go", "_test.go", "Test.java", "ATest.java", "test_.py", "test_a.py", "conftest.py",
		"ab", "a_b", "ba", "app.min.js", ".min.js", "Icon\r", "Icon", "#x", "go.sum", "yarn.lock", "x.swp", ".#x", "#x#", "z.t",
		"package.json", "pom.xml", "App.csproj", "vite.config.ts", "vite.config.", "Cargo.toml", "build.gradle.kts", "x.csproj.user"}
	for _, p := range patterns {
		gs, err := NewGlobs([]string{p})
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range names {
			want, _ := path.Match(p, n)
			if _, got := gs.Match(n); got != want {
				t.Errorf("Globs(%q).Match(%q) = %v, path.Match says %v", p, n, got, want)
			}
		}
	}
	// All of them in one list: the first match in list order wins, as a
	// plain loop over path.Match finds it.
	all, err := NewGlobs(patterns)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if got, want := all.Index(n), naiveIndex(patterns, n); got != want {
			t.Errorf("Index(%q) = %d, a loop over path.Match says %d", n, got, want)
		}
	}
}

func naiveIndex(patterns []string, name string) int {
	for i, p := range patterns {
		if ok, _ := path.Match(p, name); ok {
			return i
		}
	}
	return -1
}

// FuzzGlobs: two globs and a name; Globs must pick what a loop over
// path.Match picks.
func FuzzGlobs(f *testing.F) {
	f.Add("?*Test.java", "*.java", "ATest.java")
	f.Add("*_test.go", "x_test.go", "_test.go")
	f.Add("a*", "*.b", "a.b")
	f.Add("a*", "b", "a/b")
	f.Add("?*b", "*.c", "/b")
	f.Add(`*\.txt`, "*.txt", "a.txt")
	f.Fuzz(func(t *testing.T, p1, p2, name string) {
		gs, err := NewGlobs([]string{p1, p2})
		if err != nil {
			return
		}
		if got, want := gs.Index(name), naiveIndex([]string{p1, p2}, name); got != want {
			t.Fatalf("Globs(%q, %q).Index(%q) = %d, path.Match says %d", p1, p2, name, got, want)
		}
	})
}
