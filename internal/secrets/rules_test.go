package secrets

import (
	"testing"

	"github.com/repoprep/repoprep/internal/secrets/secrettest"
	"github.com/repoprep/repoprep/rules"
)

// defaultScanner is the embedded rule set, as the pipeline builds it.
func defaultScanner(t testing.TB) *Scanner {
	t.Helper()
	rs, err := rules.DefaultSecretRules()
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(rs)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

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
			for i, ex := range r.Examples {
				text := secrettest.Expand(ex)
				if fs := s.Scan([]byte(text)); len(fs) == 0 {
					t.Errorf("example %d %q: no finding", i, ex)
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
