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
	for _, g := range s.Triage.TestGlobs {
		patterns = append(patterns, g.pattern)
	}
	names := []string{"", "a", "x_test.go", "_test.go", "Test.java", "ATest.java", "test_.py", "test_a.py", "conftest.py",
		"ab", "a_b", "ba", "app.min.js", ".min.js", "Icon\r", "Icon", "#x", "go.sum", "yarn.lock", "x.swp", ".#x", "#x#", "z.t"}
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
}

func FuzzGlobs(f *testing.F) {
	f.Add("?*Test.java", "ATest.java")
	f.Add("*_test.go", "_test.go")
	f.Add("a*", "a")
	f.Add("a*", "a/b")
	f.Add("?*b", "/b")
	f.Fuzz(func(t *testing.T, pattern, name string) {
		gs, err := NewGlobs([]string{pattern})
		if err != nil {
			return
		}
		want, _ := path.Match(pattern, name)
		if _, got := gs.Match(name); got != want {
			t.Fatalf("Globs(%q).Match(%q) = %v, path.Match says %v", pattern, name, got, want)
		}
	})
}
