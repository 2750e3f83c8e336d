package pipeline

import (
	"encoding/json"
	"slices"
	"sync"

	"github.com/zeebo/blake3"

	"github.com/repoprep/repoprep/internal/secrets"
	"github.com/repoprep/repoprep/rules"
)

// maxRuleSets is how many compiled rule sets a process keeps: a corpus or
// a test binary uses one or two (with and without --pii off, a --rules
// file), and each set of the defaults holds a few megabytes of programs.
const maxRuleSets = 4

// compileRules compiles one rule set; a variable so tests can count the
// compiles.
var compileRules = secrets.Compile

// ruleSets is the process's compiled secret rules, by rule set: compiling
// the defaults costs a tenth of a second of CPU, which every run of a
// corpus and every pipeline test would pay again.
var ruleSets = &ruleSetCache{}

// ruleSetCache keeps the compiled forms of the last maxRuleSets rule sets
// used. Safe for concurrent use: runs that ask for one rule set at once
// wait for one compile, and different sets compile in parallel.
type ruleSetCache struct {
	mu      sync.Mutex
	entries []*ruleSetEntry // least recently used first
}

type ruleSetEntry struct {
	digest   string
	once     sync.Once
	compiled *secrets.Rules
	err      error
}

// get returns rs compiled, compiling it unless a set with the same digest
// was compiled before and is still kept. A failed compile is kept too: it
// fails the same way every time.
func (c *ruleSetCache) get(rs []rules.SecretRule) (*secrets.Rules, error) {
	digest, err := digestRules(rs)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	var e *ruleSetEntry
	if i := slices.IndexFunc(c.entries, func(e *ruleSetEntry) bool { return e.digest == digest }); i >= 0 {
		e = c.entries[i]
		c.entries = append(slices.Delete(c.entries, i, i+1), e)
	} else {
		e = &ruleSetEntry{digest: digest}
		c.entries = append(c.entries, e)
		if len(c.entries) > maxRuleSets {
			c.entries = slices.Delete(c.entries, 0, 1) // a run still compiling it keeps its own pointer
		}
	}
	c.mu.Unlock()
	e.once.Do(func() { e.compiled, e.err = compileRules(rs) })
	return e.compiled, e.err
}

// digestRules names a rule set by its content, every field of every rule
// in order (the order is the scanner's priority): JSON covers a field
// added to rules.SecretRule without a change here.
func digestRules(rs []rules.SecretRule) (string, error) {
	data, err := json.Marshal(rs)
	if err != nil {
		return "", err
	}
	sum := blake3.Sum256(data)
	return string(sum[:]), nil
}
