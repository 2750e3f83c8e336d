package rules

import (
	"fmt"
	"path"
	"strings"
)

// Globs matches a base name against a list of path.Match globs; the first
// in list order wins. Triage asks several of these per file (junk names,
// test names, generated names), so it does not try every glob: exact names
// are one map lookup, and a glob ending in a literal extension (".swp",
// "_test.go", "Test.java") is only tried on names with that extension.
// Most globs are "*suffix", "prefix*" or "prefix*suffix", checked with
// string comparisons; only the rest pay for path.Match.
type Globs struct {
	list  []glob
	exact map[string]int   // name -> index of the first exact glob
	byExt map[string][]int // extension of the glob's literal tail -> indexes, ascending
	other []int            // globs whose literal tail has no extension, ascending
}

type glob struct {
	pattern        string
	prefix, suffix string
	exact          bool // no metacharacter: the name must equal pattern
	simple         bool // one '*', no other metacharacter but an optional leading '?'
	minStar        int  // characters the '*' must cover: 1 for "?*Test.java"
}

// NewGlobs compiles globs, refusing a malformed one.
func NewGlobs(patterns []string) (Globs, error) {
	gs := Globs{exact: map[string]int{}, byExt: map[string][]int{}}
	for i, p := range patterns {
		if p == "" {
			return Globs{}, fmt.Errorf("empty glob")
		}
		if _, err := path.Match(p, ""); err != nil {
			return Globs{}, fmt.Errorf("bad glob %q", p)
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
		gs.list = append(gs.list, g)
		switch tail := literalTail(p); {
		case g.exact:
			if _, dup := gs.exact[p]; !dup {
				gs.exact[p] = i
			}
		case strings.Contains(tail, "."):
			// A name the glob matches ends with tail, so its extension
			// is tail's.
			ext := tail[strings.LastIndexByte(tail, '.')+1:]
			gs.byExt[ext] = append(gs.byExt[ext], i)
		default:
			gs.other = append(gs.other, i)
		}
	}
	return gs, nil
}

// literalTail is what follows a pattern's last metacharacter.
func literalTail(p string) string {
	if i := strings.LastIndexAny(p, `*?]\`); i >= 0 {
		return p[i+1:]
	}
	return p
}

// Len is the number of globs.
func (gs Globs) Len() int { return len(gs.list) }

// Pattern returns the i-th glob as written.
func (gs Globs) Pattern(i int) string { return gs.list[i].pattern }

// Match returns the first glob that matches name.
func (gs Globs) Match(name string) (string, bool) {
	if i := gs.Index(name); i >= 0 {
		return gs.list[i].pattern, true
	}
	return "", false
}

// Index returns the position of the first glob that matches name, or -1.
func (gs Globs) Index(name string) int {
	if len(gs.list) == 0 {
		return -1
	}
	best := -1
	if i, ok := gs.exact[name]; ok {
		best = i
	}
	if dot := strings.LastIndexByte(name, '.'); dot >= 0 {
		best = gs.first(gs.byExt[name[dot+1:]], name, best)
	}
	return gs.first(gs.other, name, best)
}

// first returns the lowest index among candidates (ascending) that matches
// name, if it is below best (-1: none yet).
func (gs Globs) first(candidates []int, name string, best int) int {
	for _, i := range candidates {
		if best >= 0 && i >= best {
			break
		}
		if gs.list[i].match(name) {
			return i
		}
	}
	return best
}

func (g *glob) match(name string) bool {
	switch {
	case g.exact:
		return name == g.pattern
	case g.simple:
		return len(name) >= len(g.prefix)+len(g.suffix)+g.minStar && strings.HasPrefix(name, g.prefix) && strings.HasSuffix(name, g.suffix) &&
			strings.IndexByte(name[len(g.prefix):len(name)-len(g.suffix)], '/') < 0 // '*' stops at '/', as in path.Match
	default:
		ok, _ := path.Match(g.pattern, name)
		return ok
	}
}
