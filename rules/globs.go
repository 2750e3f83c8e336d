package rules

import (
	"fmt"
	"path"
	"strings"
)

// Globs matches a base name against a list of path.Match globs, in order.
// Most rule globs are "*suffix", "prefix*" or "prefix*suffix", which it
// checks with string comparisons; only the rest pay for path.Match. Triage
// runs several of these per file, so this is on the hot path.
type Globs []glob

type glob struct {
	pattern        string
	prefix, suffix string
	exact          bool // no metacharacter: the name must equal pattern
	simple         bool // one '*', no other metacharacter but an optional leading '?'
	minStar        int  // characters the '*' must cover: 1 for "?*Test.java"
}

// NewGlobs compiles globs, refusing a malformed one.
func NewGlobs(patterns []string) (Globs, error) {
	gs := make(Globs, 0, len(patterns))
	for _, p := range patterns {
		if p == "" {
			return nil, fmt.Errorf("empty glob")
		}
		if _, err := path.Match(p, ""); err != nil {
			return nil, fmt.Errorf("bad glob %q", p)
		}
		g := glob{pattern: p}
		switch {
		case !strings.ContainsAny(p, `*?[\`):
			g.exact = true
		case strings.Count(p, "*") == 1 && !strings.ContainsAny(p, `?[\`):
			g.simple = true
			g.prefix, g.suffix, _ = strings.Cut(p, "*")
		case strings.HasPrefix(p, "?*") && !strings.ContainsAny(p[2:], `*?[\`):
			// "?*Test.java": at least one character before the suffix.
			g.simple, g.minStar, g.suffix = true, 1, p[2:]
		}
		gs = append(gs, g)
	}
	return gs, nil
}

// Match returns the first glob that matches name.
func (gs Globs) Match(name string) (string, bool) {
	if i := gs.Index(name); i >= 0 {
		return gs[i].pattern, true
	}
	return "", false
}

// Index returns the position of the first glob that matches name, or -1.
func (gs Globs) Index(name string) int {
	for i := range gs {
		g := &gs[i]
		var ok bool
		switch {
		case g.exact:
			ok = name == g.pattern
		case g.simple:
			ok = len(name) >= len(g.prefix)+len(g.suffix)+g.minStar && strings.HasPrefix(name, g.prefix) && strings.HasSuffix(name, g.suffix) &&
				strings.IndexByte(name[len(g.prefix):len(name)-len(g.suffix)], '/') < 0 // '*' stops at '/', as in path.Match
		default:
			ok, _ = path.Match(g.pattern, name)
		}
		if ok {
			return i
		}
	}
	return -1
}
