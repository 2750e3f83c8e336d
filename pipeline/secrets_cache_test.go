package pipeline

import (
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/repoprep/repoprep/internal/secrets"
	"github.com/repoprep/repoprep/rules"
)

// freshRuleSets gives the test an empty cache of compiled rule sets and
// counts the compiles made into it until the test ends.
func freshRuleSets(t *testing.T) *atomic.Int32 {
	t.Helper()
	var n atomic.Int32
	prevCache, prevCompile := ruleSets, compileRules
	ruleSets = &ruleSetCache{}
	compileRules = func(rs []rules.SecretRule) (*secrets.Rules, error) {
		n.Add(1)
		return prevCompile(rs)
	}
	t.Cleanup(func() { ruleSets, compileRules = prevCache, prevCompile })
	return &n
}

// sharedRulesTree is unchangedTree with what the per-run options decide:
// an acknowledged credential (--inline-allow) and personal data (--pii).
func sharedRulesTree(t *testing.T) string {
	t.Helper()
	src := unchangedTree(t)
	writeU(t, filepath.Join(src, "ack.py"), "api_key = \"Zq7"+randFrom(t, alnum, 32)+"\"  # "+secrets.AckMarker+"\n")
	writeU(t, filepath.Join(src, "people.txt"), "Write to wang.lei@example-mail.cn or call +86 138 0013 8000.\n")
	return src
}

// TestRuleSetsCompiledOncePerProcess: runs in one process compile a rule
// set once, however their fingerprint keys, --inline-allow and outputs
// differ, and compile again only for other rules (--pii off drops rules, a
// --rules file adds one); and each run publishes what it publishes in a
// process of its own, so nothing of one run's options reaches another's
// scanner. On the code before, every run compiled the rules.
func TestRuleSetsCompiledOncePerProcess(t *testing.T) {
	noRacyWindow(t)
	src := sharedRulesTree(t)
	extra := filepath.Join(t.TempDir(), "extra.toml")
	writeU(t, extra, "[[secrets]]\nid = \"acme-token\"\nregex = 'acme_[a-z0-9]{32}'\nkeywords = [\"acme_\"]\n")
	variants := []struct {
		name string
		opts func(o *Options)
		sets int32 // distinct rule sets compiled once this variant has run
	}{
		{name: "defaults", sets: 1},
		{name: "another key and inline acks", sets: 1, opts: func(o *Options) {
			o.FingerprintKey, o.InlineAllow = []byte("another key"), true
		}},
		{name: "pii off", sets: 2, opts: func(o *Options) { o.PII = PIIOff }},
		{name: "a rules file", sets: 3, opts: func(o *Options) { o.RulesFile = extra }},
		{name: "defaults again", sets: 3},
	}
	optsOf := func(i int, out string) Options {
		o := refreshOpts(src, out)
		if f := variants[i].opts; f != nil {
			f(&o)
		}
		return o
	}
	alone := make([]string, len(variants))
	for i := range variants {
		dir := t.TempDir() // the parent's: it outlives the subtest
		t.Run("alone/"+variants[i].name, func(t *testing.T) {
			n := freshRuleSets(t)
			alone[i] = filepath.Join(dir, "out")
			runOpts(t, optsOf(i, alone[i]))
			if got := n.Load(); got != 1 {
				t.Fatalf("a run in a fresh process compiled %d rule sets, want 1", got)
			}
		})
	}
	n := freshRuleSets(t)
	for i, v := range variants {
		out := filepath.Join(t.TempDir(), "out")
		runOpts(t, optsOf(i, out))
		if got := n.Load(); got != v.sets {
			t.Errorf("after %q: %d compiles, want %d", v.name, got, v.sets)
		}
		sameSnapshot(t, out, alone[i])
	}
}

// TestRuleSetsConcurrentRuns: runs started at once (a corpus) wait for one
// compile of their shared rule set; under -race this is the check that
// the compiled rules are safe to share.
func TestRuleSetsConcurrentRuns(t *testing.T) {
	n := freshRuleSets(t)
	src := sharedRulesTree(t)
	const runs = 3
	var wg sync.WaitGroup
	errs := make([]error, runs)
	for i := range runs {
		wg.Go(func() {
			opts := refreshOpts(src, filepath.Join(t.TempDir(), "out"))
			opts.FingerprintKey = fmt.Appendf(nil, "key %d", i)
			_, errs[i] = Run(t.Context(), opts)
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	if got := n.Load(); got != 1 {
		t.Errorf("%d concurrent runs compiled the rules %d times, want 1", runs, got)
	}
}

// TestRuleSetCacheBounded: the cache keeps the last maxRuleSets rule sets
// used, so a process that sees many (a corpus of repositories with rules
// of their own would, if those could carry secret rules) holds a bounded
// number, and one in steady use is never evicted.
func TestRuleSetCacheBounded(t *testing.T) {
	n := freshRuleSets(t)
	base, err := rules.DefaultSecretRules()
	if err != nil {
		t.Fatal(err)
	}
	set := func(i int) []rules.SecretRule { return base[i : i+1] }
	steps := []struct {
		set      int
		compiles int32
	}{
		{0, 1}, {1, 2}, {2, 3}, {3, 4}, // fills the cache
		{0, 4},         // kept: now the most recent
		{4, 5},         // evicts set 1, the least recent
		{0, 5}, {2, 5}, // still kept
		{1, 6}, // evicted, so compiled again
	}
	for i, s := range steps {
		if _, err := ruleSets.get(set(s.set)); err != nil {
			t.Fatal(err)
		}
		if got := n.Load(); got != s.compiles {
			t.Fatalf("step %d (set %d): %d compiles, want %d", i, s.set, got, s.compiles)
		}
		if len(ruleSets.entries) > maxRuleSets {
			t.Fatalf("step %d: %d rule sets kept, want at most %d", i, len(ruleSets.entries), maxRuleSets)
		}
	}
}

// TestRuleSetCacheKeepsErrors: a rule set that fails to compile fails
// again with the same error (its digest says it is the same set).
func TestRuleSetCacheKeepsErrors(t *testing.T) {
	n := freshRuleSets(t)
	bad := []rules.SecretRule{{ID: "bad", Regex: "a(b"}}
	_, err1 := ruleSets.get(bad)
	_, err2 := ruleSets.get(bad)
	if err1 == nil || err2 == nil || err1.Error() != err2.Error() {
		t.Fatalf("errors %v and %v, want one error twice", err1, err2)
	}
	if got := n.Load(); got != 1 {
		t.Errorf("%d compiles, want 1", got)
	}
}
