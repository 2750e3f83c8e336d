package secrets

import (
	"regexp"
	"regexp/syntax"
	"slices"
	"unicode"
	"unicode/utf8"
	"unsafe"
)

// A gate holds cheap necessary conditions for a rule's regex to match anywhere in a
// window; the regex runs only where the gate lets it. Most windows hold a keyword but no
// match ("13" in "0x13", "token" in "tokenize"), and a call into the regex engine costs
// about a microsecond even on 30 bytes (the 11-digit phone rule saw 278,074 windows on
// GOROOT/src and matched in 4), while the large assignment rules run the engine's slowest
// matcher (their programs exceed the backtracker's 500 instructions). A gate never changes
// a finding: it only skips windows in which the regex has no match at all.
type gate struct {
	// runs: for each, every match holds at least minLen consecutive bytes of alphabet, so
	// a window without such a run holds no match. From the whole regex (every byte of a
	// match is in its alphabet) and from each part of a top-level concatenation (the
	// 16-or-more-character value of an assignment rule).
	runs []byteRun

	// relaxed is the regex with each bounded repeat x{m,n} widened to x{m,}: it matches
	// everywhere the regex does, so where it does not match, neither does the regex. It
	// compiles to a small program (x{16,256} is 256 copies of x; x{16,} is 17), which the
	// backtracker runs. nil when that is not much smaller.
	relaxed *regexp.Regexp

	// anchored, for a rule every match of which starts with one of its
	// keywords (ledByKeywords), is relaxed (or the regex) anchored at its
	// start: tried at each keyword hit of a window (mayMatchAt).
	anchored *regexp.Regexp
}

// byteRun is a necessary condition: minLen consecutive bytes in alphabet;
// with maxLen set (boundedRun), a run of them between bytes outside it (or
// the text's edges) of minLen to maxLen bytes.
type byteRun struct {
	alphabet *[256]bool
	minLen   int
	maxLen   int // 0: no bound, nor a whole run
}

func (r byteRun) same(o byteRun) bool {
	return r.minLen == o.minLen && r.maxLen == o.maxLen && *r.alphabet == *o.alphabet
}

// implies reports whether a text that meets r meets o, as a whole run
// meets the plain run of the same bytes, so o need not be tested.
func (r byteRun) implies(o byteRun) bool {
	return r.maxLen > 0 && o.maxLen == 0 && o.minLen <= r.minLen && *o.alphabet == *r.alphabet
}

// holds reports whether text meets the condition.
func (r byteRun) holds(text []byte) bool {
	if r.maxLen > 0 {
		return hasMaximalRun(text, r.alphabet, r.minLen, r.maxLen)
	}
	return hasRun(text, r.alphabet, r.minLen)
}

// newByteRun returns the run condition of re, if it can reject anything.
func newByteRun(re *syntax.Regexp) (byteRun, bool) {
	alpha := new([256]bool)
	n := matchAlphabet(re, alpha)
	if n < minGateRun {
		return byteRun{}, false
	}
	for _, in := range alpha {
		if !in {
			return byteRun{alphabet: alpha, minLen: n}, true
		}
	}
	return byteRun{}, false
}

// useGates is false only in the benchmarks that measure the scan without gates.
var useGates = true

// minGateRun is the shortest minLen worth testing: a shorter run is everywhere.
const minGateRun = 4

// gateRelaxFactor: relaxed is kept when it has at most 1/gateRelaxFactor of the
// instructions of the regex.
const gateRelaxFactor = 2

// newGate derives the gate of the regex expr (as parsed with syntax.Perl).
func newGate(expr string) gate {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return gate{}
	}
	var g gate
	if r, ok := newByteRun(re); ok {
		g.runs = append(g.runs, r)
	}
	top := re
	for top.Op == syntax.OpCapture {
		top = top.Sub[0]
	}
	if top.Op == syntax.OpConcat {
		for i := range top.Sub {
			if r, ok := boundedRun(top.Sub, i); ok && !slices.ContainsFunc(g.runs, r.same) {
				g.runs = append(slices.DeleteFunc(g.runs, r.implies), r)
			}
		}
	}
	if relaxed, changed := relaxRepeats(re); changed {
		orig, err1 := syntax.Compile(re.Simplify())
		small, err2 := syntax.Compile(relaxed.Simplify())
		if err1 == nil && err2 == nil && len(small.Inst)*gateRelaxFactor <= len(orig.Inst) {
			if rx, err := regexp.Compile(printRegexp(relaxed)); err == nil {
				g.relaxed = rx
			}
		}
	}
	return g
}

// mayMatch reports whether the regex may match somewhere in text: false only when it
// cannot.
func (g *gate) mayMatch(text []byte) bool {
	return g.runsHold(text) && (g.relaxed == nil || g.relaxed.Match(text))
}

// mayMatchString is mayMatch for a string.
func (g *gate) mayMatchString(text string) bool {
	return g.runsHold(unsafe.Slice(unsafe.StringData(text), len(text))) && (g.relaxed == nil || g.relaxed.MatchString(text))
}

// runsHold reports whether text holds every run the gate requires.
func (g *gate) runsHold(text []byte) bool {
	for _, r := range g.runs {
		if !r.holds(text) {
			return false
		}
	}
	return true
}

// hasRun reports whether text holds n consecutive bytes in set.
func hasRun(text []byte, set *[256]bool, n int) bool {
	run := 0
	for _, c := range text {
		if !set[c] {
			run = 0
			continue
		}
		if run++; run >= n {
			return true
		}
	}
	return false
}

// matchAlphabet adds to set every byte a match of re can hold and returns the fewest
// bytes a match can have (a lower bound). Text that is not UTF-8 reaches the engine as
// U+FFFD one byte at a time, so any rune above ASCII stands for every byte 0x80-0xFF and
// for one byte.
func matchAlphabet(re *syntax.Regexp, set *[256]bool) int {
	addRune := func(r rune) {
		if r < utf8.RuneSelf {
			set[r] = true
			return
		}
		for b := 0x80; b < 0x100; b++ {
			set[b] = true
		}
	}
	switch re.Op {
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			addRune(r)
			if re.Flags&syntax.FoldCase != 0 {
				for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
					addRune(f)
				}
			}
		}
		return len(re.Rune)
	case syntax.OpCharClass:
		for i := 0; i+1 < len(re.Rune); i += 2 {
			lo, hi := re.Rune[i], re.Rune[i+1]
			for r := lo; r <= hi && r < utf8.RuneSelf; r++ {
				set[r] = true
			}
			if hi >= utf8.RuneSelf {
				addRune(hi)
			}
		}
		return 1
	case syntax.OpAnyCharNotNL, syntax.OpAnyChar:
		for b := range set {
			set[b] = set[b] || re.Op == syntax.OpAnyChar || b != '\n'
		}
		return 1
	case syntax.OpCapture:
		return matchAlphabet(re.Sub[0], set)
	case syntax.OpStar, syntax.OpQuest:
		matchAlphabet(re.Sub[0], set)
		return 0
	case syntax.OpPlus:
		return matchAlphabet(re.Sub[0], set)
	case syntax.OpRepeat:
		return re.Min * matchAlphabet(re.Sub[0], set)
	case syntax.OpConcat:
		n := 0
		for _, sub := range re.Sub {
			n += matchAlphabet(sub, set)
		}
		return n
	case syntax.OpAlternate:
		n := -1
		for _, sub := range re.Sub {
			m := matchAlphabet(sub, set)
			if n < 0 || m < n {
				n = m
			}
		}
		return max(n, 0)
	default: // empty, assertions, no-match
		return 0
	}
}

// relaxRepeats returns a copy of re with every x{m,n}, n > m, made x{m,}, and whether
// there was one. Every match of re is then a match of the copy.
func relaxRepeats(re *syntax.Regexp) (*syntax.Regexp, bool) {
	out := *re
	changed := false
	if re.Op == syntax.OpRepeat && re.Max > re.Min {
		out.Max, changed = -1, true
	}
	if len(re.Sub) > 0 {
		out.Sub = make([]*syntax.Regexp, len(re.Sub))
		for i, sub := range re.Sub {
			var c bool
			out.Sub[i], c = relaxRepeats(sub)
			changed = changed || c
		}
	}
	return &out, changed
}
