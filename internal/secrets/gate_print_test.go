package secrets

import (
	"regexp/syntax"
	"testing"

	"github.com/repoprep/repoprep/rules"
)

// program is the compiled program of a pattern, as text: two patterns with
// the same program match the same texts in the same way.
func program(t testing.TB, pattern string) string {
	t.Helper()
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		t.Fatalf("parse %q: %v", pattern, err)
	}
	prog, err := syntax.Compile(re.Simplify())
	if err != nil {
		t.Fatalf("compile %q: %v", pattern, err)
	}
	return prog.String()
}

// TestPrintRegexpMatchesString: for every default rule's regex and its
// relaxed gate, and for tricky shapes, printRegexp gives a pattern that
// compiles to the program syntax.Regexp.String's pattern compiles to.
func TestPrintRegexpMatchesString(t *testing.T) {
	patterns := []string{
		`a`, `(?i)aws_secret`, `(?i:K)`, `[^"'\s]{20,40}`, `[\x{0}-\x{10FFFF}]`, `^abc$`, `(?m)^a$`, `(?s).+`, `.*?`,
		`\bkey\b\B`, `\Aa\z`, `a{2}b{3,}c{4,9}d{0,1}?`, `(a|b)|c`, `(?:)`, `[^\x00-\x{10FFFF}]`, `(?P<name>x+)y`,
		`[\[\]\-\\^]`, `\x{1F600}+`, `a|`, `(?i)[a-z]{3}`, `x*?y+?z??`,
	}
	for _, r := range mustDefaultRules(t) {
		patterns = append(patterns, r.Regex)
	}
	for _, p := range patterns {
		re, err := syntax.Parse(p, syntax.Perl)
		if err != nil {
			t.Fatalf("parse %q: %v", p, err)
		}
		relaxed, _ := relaxRepeats(re)
		for _, tree := range []*syntax.Regexp{re, relaxed} {
			got, want := printRegexp(tree), tree.String()
			if program(t, got) != program(t, want) {
				t.Errorf("%q: printRegexp gives %q, whose program differs from String's %q", p, got, want)
			}
		}
	}
}

func mustDefaultRules(t testing.TB) []rules.SecretRule {
	t.Helper()
	rs, err := rules.DefaultSecretRules()
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

// FuzzPrintRegexp: any pattern that parses prints to one with the same
// program.
func FuzzPrintRegexp(f *testing.F) {
	for _, p := range []string{`a{2,5}`, `(?i)[^a]`, `(?m)^$`, `(?s:.)`, `\b(?:x|y)+?`, `[\x{80}-\x{10FFFF}]`} {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, p string) {
		re, err := syntax.Parse(p, syntax.Perl)
		if err != nil {
			return
		}
		if _, err := syntax.Compile(re.Simplify()); err != nil {
			return
		}
		got := printRegexp(re)
		if program(t, got) != program(t, re.String()) {
			t.Fatalf("%q: printRegexp gives %q, whose program differs from String's %q", p, got, re.String())
		}
	})
}
