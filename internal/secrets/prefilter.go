package secrets

import (
	"bytes"
	"regexp/syntax"
	"unicode/utf8"

	"github.com/repoprep/repoprep/rules"
)

const (
	// maxLineWindow bounds the text a single-line rule reads around a keyword: on a longer
	// line (minified code, a base64 blob) it reads half this on each side of the keyword,
	// so one long line with many keywords doesn't make the regex pass quadratic.
	maxLineWindow = 8 << 10
)

// window is a stretch of content one rule's regex runs over. cutStart/cutEnd say the window
// was cut inside a line, so a match touching that edge may be a piece of a longer token.
type window struct {
	start, end       int
	cutStart, cutEnd bool
	h0, h1           int // the keyword hits in it: windowSet.hits[rule][h0:h1], for a gate that anchors at them
}

// windowSet is windows' result: per rule, its windows, and for a rule whose
// gate anchors at keyword hits, the hits in order; and the keyword walk's
// scratch space, kept with it in s.winPool.
type windowSet struct {
	wins    [][]window
	hits    [][]int
	reports []dfaReport    // one segment's keyword hits
	held    [3][]dfaReport // the split walk's
}

// walkSegmentBytes is how much of a content the keyword walk reports on at
// a time: its reports (a few per keyword-dense line) stay few, and in the
// cache, whatever the content's length.
var walkSegmentBytes = 256 << 10 // a variable for the tests

// maxKeptReports bounds the reports scratch putWindows keeps for the next
// call: what ordinary text needs (Go's source: about one report in 150
// bytes) and much more.
const maxKeptReports = 16 << 10

// windows finds every keyword in one pass over content (ASCII case-insensitive) and returns,
// per rule, the sorted, merged windows its regex must run over: the line around each
// keyword it owns, or for a multiline rule MaxSpanBytes from that line on.
// The result comes from s.winPool: the caller gives it back with putWindows.
func (s *Scanner) windows(content []byte) *windowSet { return s.windowsFor(content, nil) }

// windowsFor is windows without the windows of the rules skip marks (nil
// for none), which the caller does not run: a file left out of the tree
// runs no personal-data rule, and cn-mobile's digit keywords open most of
// the windows in code.
func (s *Scanner) windowsFor(content []byte, skip []bool) *windowSet {
	set, _ := s.winPool.Get().(*windowSet)
	if set == nil || len(set.wins) != len(s.rules) {
		set = &windowSet{wins: make([][]window, len(s.rules)), hits: make([][]int, len(s.rules))}
	}
	wins, hits := set.wins, set.hits
	for _, ri := range s.always {
		wins[ri] = []window{{start: 0, end: len(content)}}
	}
	if s.kw == nil || len(content) == 0 {
		return set
	}
	lines := lineCache{content: content, start: -1}
	// The content is walked a segment at a time, each from maxLen bytes
	// before it (where the walk's state is already the one a walk from the
	// start would be in: see appendReports); the reports that end before
	// the segment are the previous one's.
	for seg := 0; seg < len(content); seg += walkSegmentBytes {
		from := max(0, seg-s.kw.maxLen)
		set.reports = s.kw.appendReports(set.reports[:0], content[from:min(len(content), seg+walkSegmentBytes)], from, &set.held)
		for _, rep := range set.reports {
			if rep.last < seg {
				continue
			}
			pos := rep.last - rep.n + 1
			for _, ri := range s.byKw[rep.pattern] {
				if skip != nil && skip[ri] {
					continue
				}
				r := &s.rules[ri]
				before := len(wins[ri])
				wins[ri] = addWindow(wins[ri], s.window(&lines, pos, r))
				if r.gate.anchored != nil {
					hits[ri] = append(hits[ri], pos)
					w := &wins[ri][len(wins[ri])-1]
					if len(wins[ri]) > before {
						w.h0 = len(hits[ri]) - 1
					}
					w.h1 = len(hits[ri])
				}
			}
		}
	}
	return set
}

// Keywords is the pre-filter's pass alone: it finds every keyword of s
// in content and cuts the windows the rules would run over, and returns
// how many windows that is. Every scan of content by s makes this pass
// over every byte before any rule runs, so it is the least a scan costs
// (make bench-run counts it in its floor).
func (s *Scanner) Keywords(content []byte) int {
	set := s.windowsFor(content, nil)
	defer s.putWindows(set)
	n := 0
	for _, ws := range set.wins {
		n += len(ws)
	}
	return n
}

// putWindows gives windows' result back for the next call: a fresh one
// per call (a slice per rule) was the scan's largest allocation, most of it
// for file names and link targets that hold no keyword at all.
func (s *Scanner) putWindows(set *windowSet) {
	for i := range set.wins {
		set.wins[i] = set.wins[i][:0]
		set.hits[i] = set.hits[i][:0]
	}
	// A segment dense with keywords leaves a large scratch: not kept.
	if cap(set.reports) > maxKeptReports {
		set.reports = nil
	}
	for i, h := range set.held {
		if cap(h) > maxKeptReports {
			set.held[i] = nil
		}
	}
	s.winPool.Put(set)
}

// gateOpen reports whether rule ri's regex must run over window w of
// content: false only where it cannot match.
func (s *Scanner) gateOpen(set *windowSet, ri int, w window, content []byte) bool {
	g := &s.rules[ri].gate
	if g.anchored != nil {
		return g.mayMatchAt(content, w.start, w.end, set.hits[ri][w.h0:w.h1])
	}
	return g.mayMatch(content[w.start:w.end])
}

// window is the stretch rule r reads for a keyword at pos. A match holds its keyword, so
// when the regex can match at most r.maxLen bytes the window is that much either side of
// the keyword (plus one byte of context for \b), not the whole line: "13" or "10." occur
// on many lines, and the regex engine, not the keyword pass, is what costs.
func (s *Scanner) window(lines *lineCache, pos int, r *rule) window {
	ls, le := lines.around(pos)
	w := window{start: ls, end: le}
	reach := maxLineWindow / 2
	if !r.multiline && r.maxLen >= 0 && r.maxLen+1 < reach {
		reach = r.maxLen + 1
	}
	if r.end != nil {
		reach = 1 // the keyword opens the marker (-----BEGIN): nothing of it lies before
	}
	if pos-ls > reach {
		w.start, w.cutStart = pos-reach, true
	}
	if r.multiline && r.end == nil {
		reach := min(len(lines.content), pos+rules.MaxSpanBytes)
		if reach > le {
			le = reach
			if i := bytes.IndexByte(lines.content[reach:], '\n'); i >= 0 && i < maxLineWindow {
				le = reach + i
			} else if i < 0 && len(lines.content)-reach < maxLineWindow {
				le = len(lines.content)
			}
		}
		w.end = le
		w.cutEnd = le < len(lines.content) && lines.content[le] != '\n'
		return w
	}
	// An encoded blob runs to the end of its line, however long: no cut after the keyword.
	if le-pos > reach && r.decode == "" && r.end == nil {
		w.end, w.cutEnd = pos+reach, true
	}
	return w
}

// maxMatchBytes is the most bytes re can match, or -1 when that is unbounded.
func maxMatchBytes(re *syntax.Regexp) int {
	sum := func(subs []*syntax.Regexp) int {
		n := 0
		for _, sub := range subs {
			m := maxMatchBytes(sub)
			if m < 0 {
				return -1
			}
			n += m
		}
		return n
	}
	switch re.Op {
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase != 0 {
			return len(re.Rune) * utf8.UTFMax // k also matches the 3-byte Kelvin sign
		}
		n := 0
		for _, r := range re.Rune {
			n += utf8.RuneLen(r)
		}
		return n
	case syntax.OpCharClass:
		if len(re.Rune) == 0 {
			return 0
		}
		return utf8.RuneLen(min(re.Rune[len(re.Rune)-1], utf8.MaxRune))
	case syntax.OpAnyCharNotNL, syntax.OpAnyChar:
		return utf8.UTFMax
	case syntax.OpCapture, syntax.OpQuest:
		return maxMatchBytes(re.Sub[0])
	case syntax.OpStar, syntax.OpPlus:
		return -1
	case syntax.OpRepeat:
		m := maxMatchBytes(re.Sub[0])
		if re.Max < 0 || m < 0 {
			return -1
		}
		return re.Max * m
	case syntax.OpConcat:
		return sum(re.Sub)
	case syntax.OpAlternate:
		n := 0
		for _, sub := range re.Sub {
			m := maxMatchBytes(sub)
			if m < 0 {
				return -1
			}
			n = max(n, m)
		}
		return n
	default: // empty, assertions, no-match
		return 0
	}
}

// addWindow appends w to ws, merging it with the last window when they overlap. Keywords
// arrive in order of their last byte, so a window never lies wholly before the last one
// unless a keyword spans lines; then it is simply appended.
func addWindow(ws []window, w window) []window {
	if n := len(ws); n > 0 {
		last := &ws[n-1]
		if w.start <= last.end && w.end >= last.start {
			if w.start < last.start {
				last.start, last.cutStart = w.start, w.cutStart
			}
			if w.end > last.end {
				last.end, last.cutEnd = w.end, w.cutEnd
			}
			return ws
		}
	}
	return append(ws, w)
}

// lineCache remembers the line of the last keyword: keywords cluster, and a long line
// would otherwise be searched for its ends once per keyword.
type lineCache struct {
	content    []byte
	start, end int
}

// around returns the bounds of the line holding pos, without its newline.
func (c *lineCache) around(pos int) (int, int) {
	if c.start >= 0 && c.start <= pos && pos < c.end {
		return c.start, c.end
	}
	c.start = bytes.LastIndexByte(c.content[:pos], '\n') + 1
	if i := bytes.IndexByte(c.content[pos:], '\n'); i >= 0 {
		c.end = pos + i
	} else {
		c.end = len(c.content)
	}
	return c.start, c.end
}
