package rules

import (
	"path"
	"strings"
)

// Glob is one gitignore pattern, matched as git matches it: against the
// path it names, never against a path below it (git excludes what is below
// an excluded directory by not descending into it, and the callers do the
// same), and with "**" standing for any number of components, tried at
// every split. go-git's patterns, which this replaced, match every path
// below a match ("/*" matched archive/x.go after "!/archive/" took archive/
// back) and try "**" at the first split only ("**/*/build" missed
// a/b/build); both tests compare every verdict with `git check-ignore`.
type Glob struct {
	Negate  bool     // "!pattern": a match includes
	DirOnly bool     // "pattern/": matches directories only
	name    string   // a pattern without an inner or leading "/": the last component, at any depth
	parts   []string // else its components, anchored at the pattern's directory
}

// ParseGlob parses one gitignore line (comments and blank lines are the
// caller's; trailing spaces already trimmed).
func ParseGlob(line string) Glob {
	g := Glob{Negate: strings.HasPrefix(line, "!"), DirOnly: strings.HasSuffix(line, "/")}
	line = strings.TrimSuffix(strings.TrimPrefix(line, "!"), "/")
	if strings.Contains(line, "/") {
		for _, c := range strings.Split(strings.TrimPrefix(line, "/"), "/") {
			if c == "**" && len(g.parts) > 0 && g.parts[len(g.parts)-1] == "**" {
				continue // "**/**" is "**"
			}
			g.parts = append(g.parts, c)
		}
	} else {
		g.name = line
	}
	return g
}

// Last is what a path's last component must match for the pattern to
// match the path, for indexing patterns by it: "" when anything may
// (a pattern ending in "**").
func (g Glob) Last() string {
	if g.parts == nil {
		return g.name
	}
	if last := g.parts[len(g.parts)-1]; last != "**" {
		return last
	}
	return ""
}

// Match reports whether the pattern matches the path segs, relative to
// the pattern's directory; isDir says whether segs names a directory.
func (g Glob) Match(segs []string, isDir bool) bool {
	if len(segs) == 0 || g.DirOnly && !isDir {
		return false
	}
	if g.parts == nil {
		ok, _ := path.Match(g.name, segs[len(segs)-1])
		return ok
	}
	return matchParts(g.parts, segs)
}

// matchParts matches components against pattern components in which
// "**" stands for any number of them; at the end, for one or more ("a/**"
// is everything inside a, not a). It is the classic wildcard match with
// one backtracking point, the last "**": time is at most the product of
// the two lengths, whatever a hostile ignore file holds.
func matchParts(parts, segs []string) bool {
	if n := len(parts); parts[n-1] == "**" {
		if len(segs) == 0 {
			return false
		}
		// One component for the trailing "**", then the rest may end
		// anywhere: parts[:n-1] must match a proper prefix of segs.
		parts = parts[:n-1]
		segs = segs[:len(segs)-1]
		return matchPrefix(parts, segs)
	}
	return matchStar(parts, segs, false)
}

// matchPrefix reports whether parts matches segs[:k] for some k, which is
// parts followed by a "**" matching zero or more.
func matchPrefix(parts, segs []string) bool {
	return matchStar(parts, segs, true)
}

func matchStar(parts, segs []string, openEnd bool) bool {
	pi, si := 0, 0
	star, starSeg := -1, 0
	for si < len(segs) {
		switch {
		case pi == len(parts) && openEnd:
			return true
		case pi < len(parts) && parts[pi] == "**":
			star, starSeg = pi, si
			pi++
		case pi < len(parts) && matchName(parts[pi], segs[si]):
			pi++
			si++
		case star >= 0:
			starSeg++
			pi, si = star+1, starSeg
		default:
			return false
		}
	}
	for pi < len(parts) && parts[pi] == "**" {
		pi++
	}
	return pi == len(parts)
}

func matchName(pattern, name string) bool {
	ok, _ := path.Match(pattern, name)
	return ok
}
