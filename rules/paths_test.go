package rules

import (
	"os"
	"strings"
	"testing"

	"github.com/repoprep/repoprep/internal/testkit"
)

// gitCases are pattern sets beside the paths to check them on; the later
// ones re-include a directory or a kind of file below a pattern that matched
// its parent first ("/*" then "!/archive/"), where a pattern must match the
// level it names and no other.
var gitCases = []struct {
	name     string
	patterns []string
	paths    []string
}{
	{"tricky", testkit.TrickyIgnorePatterns, testkit.TrickyIgnorePaths},
	{"only archive", []string{"/*", "!/archive/"}, []string{"archive/x.go", "archive/sub/z.go", "top.go", "src/y.go"}},
	{"only go files", []string{"*", "!*/", "!*.go"}, []string{"a.txt", "x.go", "d/x.go", "d/y.txt", "d/e/z.go"}},
	{"one subtree", []string{"/src/*", "!/src/keep/"}, []string{"src/a.go", "src/keep/b.go", "src/keep/c/d.go", "other/src/a.go"}},
}

// TestPathGlobsMatchGit compares PathGlobs with `git check-ignore` on the
// same patterns and paths: rules files use gitignore syntax, so they must
// mean what git means.
func TestPathGlobsMatchGit(t *testing.T) {
	for _, c := range gitCases {
		t.Run(c.name, func(t *testing.T) {
			gitSays := gitCheckIgnore(t, c.patterns, c.paths)
			if c.name == "tricky" && len(gitSays) < 10 {
				t.Fatalf("git check-ignore matched only %d paths; the fixture is broken", len(gitSays))
			}
			var g PathGlobs
			if err := g.add("test.toml", "exclude", c.patterns); err != nil {
				t.Fatal(err)
			}
			for _, p := range c.paths {
				pat, ours := g.Match(p, false)
				if ours != gitSays[p] {
					t.Errorf("%s: matched = %v (%s), git check-ignore says %v", p, ours, pat, gitSays[p])
				}
			}
		})
	}
}

// gitCheckIgnore writes the patterns as a .gitignore and the paths as
// files, and returns the paths git ignores.
func gitCheckIgnore(t *testing.T, patterns, paths []string) map[string]bool {
	t.Helper()
	dir := t.TempDir()
	tree := map[string]string{".gitignore": strings.Join(patterns, "\n") + "\n"}
	for _, p := range paths {
		tree[p] = "x\n"
	}
	testkit.WriteTree(t, dir, tree)
	return testkit.GitIgnored(t, dir, paths)
}

func TestLoadPathRules(t *testing.T) {
	repo := []byte(`
include = ["vendor/"]
exclude = ["docs/legacy/"]

[[override]]
paths = ["db/*.sql"]
category = "source"

[[secrets]]
id = "cn-mobile"
disabled = true
`)
	user := writeRules(t, `
not_vendored = ["third_party/ours/"]
exclude = ["!docs/legacy/"]

[[override]]
paths = ["db/big.sql"]
category = "data"
reason = "dump"
`)
	userData, err := os.ReadFile(user)
	if err != nil {
		t.Fatal(err)
	}
	s, err := LoadSources(Source{Name: RepoConfig, Data: repo, Repo: true}, Source{Name: user, Data: userData})
	if err != nil {
		t.Fatal(err)
	}
	if pat, ok := s.Paths.Include.Match("vendor/x/y.go", false); !ok || !strings.Contains(pat, RepoConfig) {
		t.Errorf("include vendor/: %q %v", pat, ok)
	}
	if _, ok := s.Paths.NotVendored.Match("third_party/ours/a.c", false); !ok {
		t.Error("not_vendored third_party/ours/ not matched")
	}
	if _, ok := s.Paths.Exclude.Match("docs/legacy/a.md", false); ok {
		t.Error("--rules' negation must win over the repository's exclude (later file, later pattern)")
	}
	if o, _, ok := s.Paths.Override("db/big.sql"); !ok || o.Category != "data" {
		t.Errorf("db/big.sql override = %+v, want the later data/dump", o)
	}
	if o, _, ok := s.Paths.Override("db/small.sql"); !ok || o.Category != "source" {
		t.Errorf("db/small.sql override = %+v, want source", o)
	}
	found := false
	for _, r := range s.Secrets {
		found = found || r.ID == "cn-mobile"
	}
	if !found || len(s.Warnings) != 1 {
		t.Errorf("a repository's [[secrets]] must be ignored with a warning: rule kept %v, warnings %q", found, s.Warnings)
	}
}

func TestLoadPathRulesErrors(t *testing.T) {
	tests := []struct{ name, text, want string }{
		{"empty pattern", `include = [""]`, "include entry"},
		{"comment", `exclude = ["# x"]`, "exclude entry"},
		{"bare negation", `not_vendored = ["!"]`, "not_vendored entry"},
		{"override category", "[[override]]\npaths = [\"x\"]\ncategory = \"code\"\n", `category "code"`},
		{"override without paths", "[[override]]\ncategory = \"text\"\n", "paths is required"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := writeRules(t, tt.text)
			_, err := Load(p)
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), p) {
				t.Fatalf("Load = %v, want an error naming %s and containing %q", err, p, tt.want)
			}
		})
	}
}

// FuzzPathGlobs: any pattern either is refused or matches without panicking,
// and a matched directory matches everything below it (git never
// re-includes under an excluded directory).
func FuzzPathGlobs(f *testing.F) {
	for _, p := range testkit.TrickyIgnorePatterns {
		f.Add(p, "a/b/c.go")
	}
	f.Add("**/", "x")
	f.Add("[", "[")
	f.Fuzz(func(t *testing.T, pattern, p string) {
		var g PathGlobs
		if g.add("f.toml", "exclude", []string{pattern}) != nil {
			return
		}
		p = strings.Trim(p, "/")
		if p == "" || strings.Contains(p, "//") {
			return
		}
		if _, ok := g.Match(p, true); ok {
			if _, below := g.Match(p+"/z", false); !below {
				t.Fatalf("pattern %q matches dir %q but not %q", pattern, p, p+"/z")
			}
		}
	})
}
