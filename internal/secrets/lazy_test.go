package secrets

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/repoprep/repoprep/internal/secrets/secrettest"
	"github.com/repoprep/repoprep/rules"
)

// built counts the expressions of c whose program is built, and all of them.
func built(c *compiled) (n, all int) {
	for i := range c.rules {
		for _, l := range c.rules[i].lazies() {
			all++
			if l.re != nil {
				n++
			}
		}
	}
	return n, all
}

// TestCompileLazily: Compile builds no regexp program; a scan builds
// those of the rules its text reaches (a GitHub token and a line of
// code reach few of the defaults); and every expression of every
// default rule compiles, to the expression the rule holds.
func TestCompileLazily(t *testing.T) {
	rs, err := rules.DefaultSecretRules()
	if err != nil {
		t.Fatal(err)
	}
	c, err := Compile(rs)
	if err != nil {
		t.Fatal(err)
	}
	if n, all := built(c.c); n != 0 || all < len(rs) {
		t.Fatalf("after Compile: %d of %d programs built, want 0 of at least %d", n, all, len(rs))
	}
	sc, err := c.Scanner()
	if err != nil {
		t.Fatal(err)
	}
	tok := "gh" + "p_" + secrettest.Rand("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", 36)
	if fs := sc.Scan([]byte("GITHUB_TOKEN=" + tok + "\nfunc main() { fmt.Println(len(os.Args)) }\n")); len(fs) == 0 {
		t.Fatal("the token was not found")
	}
	n, all := built(c.c)
	if n == 0 || n > all/4 {
		t.Errorf("after one small scan: %d of %d programs built, want some and at most a quarter", n, all)
	}
	c.c.compileAll()
	for i := range c.c.rules {
		for _, l := range c.c.rules[i].lazies() {
			if l.re == nil || l.re.String() != l.expr {
				t.Errorf("rule %s: %q compiled to %v", c.c.rules[i].id, l.expr, l.re)
			}
		}
	}
}

// TestLazyEqualsEager: a scanner whose programs are built on first use
// finds what one whose programs were all built up front finds, in every
// default rule's examples and counterexamples, the fresh samples of
// every rule, generated code with planted secrets, and names; a rule set
// with allowlists (paths, values, keys) and a block rule included.
func TestLazyEqualsEager(t *testing.T) {
	rs, err := rules.DefaultSecretRules()
	if err != nil {
		t.Fatal(err)
	}
	lazy, err := Compile(rs)
	if err != nil {
		t.Fatal(err)
	}
	eager, err := Compile(rs)
	if err != nil {
		t.Fatal(err)
	}
	eager.c.compileAll()
	key := WithFingerprintKey([]byte("k"))
	ls, err := lazy.Scanner(key)
	if err != nil {
		t.Fatal(err)
	}
	es, err := eager.Scanner(key)
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, r := range rs {
		texts = append(texts, r.Examples...)
		texts = append(texts, r.Counterexamples...)
	}
	for _, s := range secrettest.Samples() {
		texts = append(texts, s.Text)
	}
	// The two long texts cost most under the race detector (make test's
	// race step is -short): there they are smaller, scanned at two of the
	// paths and not as names. The whole step runs them in full.
	size, long := 256<<10, len(texts)
	if testing.Short() {
		size = 48 << 10
	}
	planted, _ := corpus(size, 9, 40)
	texts = append(texts, string(planted), strings.Join(texts, "\n"))
	paths := []string{"", "config/app.env", "testdata/keys.pem", "src/main.go", "docs/example.md"}
	for i, text := range texts {
		short := testing.Short() && i >= long
		for j, path := range paths {
			if short && j >= 2 {
				break
			}
			got, err := ls.ScanBytes(context.Background(), []byte(text), path)
			if err != nil {
				t.Fatal(err)
			}
			want, err := es.ScanBytes(context.Background(), []byte(text), path)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got.Findings, want.Findings) || !reflect.DeepEqual(got.values, want.values) {
				t.Fatalf("text %d at %q: lazy found %+v, eager %+v", i, path, got.Findings, want.Findings)
			}
		}
		if short {
			continue
		}
		if got, want := ls.ScanName(text, nil), es.ScanName(text, nil); !reflect.DeepEqual(got, want) {
			t.Fatalf("name %d: lazy found %+v, eager %+v", i, got, want)
		}
	}
	for _, r := range rs {
		for _, path := range paths {
			if ls.AllowsPath(r.ID, path) != es.AllowsPath(r.ID, path) {
				t.Errorf("rule %s at %q: lazy and eager allow differently", r.ID, path)
			}
		}
	}
}
