package secrets

import (
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode/utf8"
)

// Most assignment rules begin with their keywords: every match of
// (?i)(?:key|nonce)[\w.-]{0,12}... starts where "key" or "nonce" does. Their
// regex can then only match from one of the keyword hits that made the
// window, and the gate tries the relaxed regex anchored there instead of
// searching the whole window from every byte (a window is a line of up to a
// kilobyte, the search about 9 µs of it; anchored at two hits, well under
// one).

// maxLeadStrings bounds the strings a regex's opening is expanded to.
const maxLeadStrings = 256

// ledByKeywords reports whether every match of expr starts with one of
// keywords (lower-case, compared ASCII case-insensitively): the finite
// strings its opening elements can match, lower-cased, all begin with one.
// It answers false whenever it cannot tell.
func ledByKeywords(expr string, keywords []string) bool {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil || len(keywords) == 0 {
		return false
	}
	for re.Op == syntax.OpCapture {
		re = re.Sub[0]
	}
	elems := []*syntax.Regexp{re}
	if re.Op == syntax.OpConcat {
		elems = re.Sub
	}
	opening := []string{""}
	for _, e := range elems {
		next, ok := expand(e)
		if !ok || len(opening)*len(next) > maxLeadStrings {
			break
		}
		opening = product(opening, next)
	}
	for _, s := range opening {
		led := false
		for _, kw := range keywords {
			led = led || strings.HasPrefix(s, kw)
		}
		if !led {
			return false
		}
	}
	return true
}

// expand returns every string re matches, lower-cased, if they are few and
// ASCII; ok is false otherwise (an unbounded repeat, a wide class, most
// assertions, a rune above ASCII).
func expand(re *syntax.Regexp) (out []string, ok bool) {
	switch re.Op {
	case syntax.OpEmptyMatch:
		return []string{""}, true
	case syntax.OpWordBoundary, syntax.OpBeginLine, syntax.OpBeginText:
		// Zero-width: taken as "", the strings are a superset of the
		// openings. Anchored at a hit, each holds wherever it held in the
		// window (the text before the hit reads as none, which passes
		// more, never fewer); not so \B, which is left out.
		return []string{""}, true
	case syntax.OpLiteral:
		var b strings.Builder
		for _, r := range re.Rune {
			if r >= utf8.RuneSelf {
				return nil, false
			}
			b.WriteByte(lower(byte(r)))
		}
		return []string{b.String()}, true
	case syntax.OpCharClass:
		seen := map[string]bool{}
		for i := 0; i+1 < len(re.Rune); i += 2 {
			lo, hi := re.Rune[i], re.Rune[i+1]
			if hi >= utf8.RuneSelf || hi-lo >= maxLeadStrings {
				return nil, false
			}
			for r := lo; r <= hi; r++ {
				if s := string(rune(lower(byte(r)))); !seen[s] {
					seen[s] = true
					out = append(out, s)
				}
			}
		}
		return out, len(out) <= maxLeadStrings
	case syntax.OpCapture:
		return expand(re.Sub[0])
	case syntax.OpQuest:
		sub, ok := expand(re.Sub[0])
		return append(sub, ""), ok
	case syntax.OpAlternate:
		for _, sub := range re.Sub {
			s, ok := expand(sub)
			if !ok || len(out)+len(s) > maxLeadStrings {
				return nil, false
			}
			out = append(out, s...)
		}
		return out, true
	case syntax.OpConcat:
		out = []string{""}
		for _, sub := range re.Sub {
			s, ok := expand(sub)
			if !ok || len(out)*len(s) > maxLeadStrings {
				return nil, false
			}
			out = product(out, s)
		}
		return out, true
	}
	return nil, false
}

func product(a, b []string) []string {
	out := make([]string, 0, len(a)*len(b))
	for _, x := range a {
		for _, y := range b {
			out = append(out, x+y)
		}
	}
	return out
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// anchor sets the gate's test anchored at the start of its input: the
// relaxed regex when there is one, else expr.
func (g *gate) anchor(expr string) {
	src := expr
	if g.relaxed != nil {
		src = g.relaxed.String()
	}
	if rx, err := regexp.Compile(`^(?:` + src + `)`); err == nil {
		g.anchored = rx
	}
}

// mayMatchAt is mayMatch for a rule led by its keywords (g.anchored set):
// the regex may match in content[start:end] only from one of the keyword
// hits at; a window with a byte above ASCII is left to mayMatch, as (?i)
// folds letters such as K (U+212A) that the keyword pass does not.
func (g *gate) mayMatchAt(content []byte, start, end int, at []int) bool {
	text := content[start:end]
	if g.anchored == nil || !isASCII(text) {
		return g.mayMatch(text)
	}
	if !g.runsHold(text) {
		return false
	}
	for _, p := range at {
		if start <= p && p < end && g.anchored.Match(content[p:end]) {
			return true
		}
	}
	return false
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// lowerAll returns keywords in lower case, as the keyword pass compares them.
func lowerAll(keywords []string) []string {
	out := make([]string, len(keywords))
	for i, kw := range keywords {
		out[i] = strings.ToLower(kw)
	}
	return out
}
