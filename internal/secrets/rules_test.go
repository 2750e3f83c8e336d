package secrets

import (
	"sync"
	"testing"

	"github.com/repoprep/repoprep/internal/secrets/secrettest"
	"github.com/repoprep/repoprep/rules"
)

// defaultScanner is the embedded rule set, as the pipeline builds it.
// Compiling it takes 0.07 s (0.2 s under -race) and over twenty tests ask
// for it, so it is compiled once per test binary and shared: a Scanner is
// safe for concurrent use and no scan changes it.
func defaultScanner(t testing.TB) *Scanner {
	t.Helper()
	s, err := sharedScanner()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

var sharedScanner = sync.OnceValues(func() (*Scanner, error) {
	rs, err := rules.DefaultSecretRules()
	if err != nil {
		return nil, err
	}
	return New(rs)
})

// examplesTries is how many random expansions of one example may miss.
const examplesTries = 3

// TestRuleExamples runs each default rule alone on its examples (each must give a finding)
// and counterexamples (none may). Allowlists are part of the rule: an allowlisted example
// is a counterexample.
func TestRuleExamples(t *testing.T) {
	rs, err := rules.DefaultSecretRules()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		t.Run(r.ID, func(t *testing.T) {
			if len(r.Examples) == 0 || len(r.Counterexamples) == 0 {
				t.Errorf("rule %s needs examples and counterexamples", r.ID)
			}
			s, err := New([]rules.SecretRule{r})
			if err != nil {
				t.Fatal(err)
			}
			// An example is expanded with fresh random values; a random value
			// can read as a placeholder or a name now and then (about 1% for
			// two templates), which is the rules' business, not a broken rule:
			// the example fails when none of examplesTries expansions is found.
			for i, ex := range r.Examples {
				missed := 0
				for range examplesTries {
					if fs := s.Scan([]byte(secrettest.Expand(ex))); len(fs) == 0 {
						missed++
						continue
					}
					break
				}
				switch {
				case missed == examplesTries:
					t.Errorf("example %d %q: no finding in %d expansions", i, ex, missed)
				case missed > 0:
					t.Logf("example %d %q: no finding in %d expansion(s) before one was found", i, ex, missed)
				}
			}
			for i, ex := range r.Counterexamples {
				text := secrettest.Expand(ex)
				if fs := s.Scan([]byte(text)); len(fs) != 0 {
					t.Errorf("counterexample %d %q: found %s at column %d", i, ex, fs[0].Match, fs[0].Column)
				}
			}
		})
	}
}
