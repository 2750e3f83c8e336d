package rules

import (
	"strings"
	"testing"
)

func TestGlobMatch(t *testing.T) {
	for _, c := range []struct {
		pattern, path string
		isDir, want   bool
	}{
		{"*.log", "a/b/x.log", false, true},
		{"*.log", "x.log/y", false, false}, // the directory above matches, not this path
		{"/*", "top.go", false, true},
		{"/*", "archive/x.go", false, false},
		{"a/**/b", "a/b", true, true},
		{"a/**/b", "a/x/y/b", true, true},
		{"a/**/b", "a/x/y/b/f", false, false},
		{"a/**", "a", true, false},
		{"a/**", "a/x/y", false, true},
		{"**/*/build", "b/x/y/build", true, true}, // "**" backtracks past its first fit
		{"**/*/build", "build", true, false},
		{"logs/", "logs", false, false},
		{"logs/", "x/logs", true, true},
		{`\#hash`, "#hash", false, true},
		{"/**", "x", false, true},
	} {
		g := ParseGlob(c.pattern)
		if got := g.Match(strings.Split(c.path, "/"), c.isDir); got != c.want {
			t.Errorf("%q on %q (dir %v) = %v, want %v", c.pattern, c.path, c.isDir, got, c.want)
		}
	}
}

// TestGlobHostile: a pattern of many "**" against a deep path ends in
// time proportional to their product; the recursive match took
// exponential time on it.
func TestGlobHostile(t *testing.T) {
	g := ParseGlob(strings.Repeat("**/a/", 200) + "b")
	segs := strings.Split(strings.Repeat("a/", 2000)+"c", "/")
	if g.Match(segs, false) {
		t.Error("matched a path without b")
	}
}

// matchRef is the plain recursive definition of matchParts.
func matchRef(parts, segs []string) bool {
	if len(parts) == 0 {
		return len(segs) == 0
	}
	if parts[0] == "**" {
		if len(parts) == 1 {
			return len(segs) > 0
		}
		for i := range len(segs) + 1 {
			if matchRef(parts[1:], segs[i:]) {
				return true
			}
		}
		return false
	}
	return len(segs) > 0 && matchName(parts[0], segs[0]) && matchRef(parts[1:], segs[1:])
}

// FuzzGlob parses any line and matches it against any path, and checks
// the one-backtrack match against the recursive definition.
func FuzzGlob(f *testing.F) {
	for _, s := range []string{"a/**/b|a/x/b", "**/*/build|b/x/y/build", "/*|archive/x.go", "a/**|a/b/c", "!x/|x", "[a-|a"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		line, p, _ := strings.Cut(s, "|")
		if len(line) > 64 || len(p) > 64 || line == "" || p == "" {
			return
		}
		g := ParseGlob(line)
		segs := strings.Split(p, "/")
		got := g.Match(segs, true)
		if g.parts != nil {
			if want := matchRef(g.parts, segs); got != want {
				t.Fatalf("%q on %q = %v, recursive definition says %v", line, p, got, want)
			}
		}
	})
}
