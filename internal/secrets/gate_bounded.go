package secrets

import (
	"regexp/syntax"
	"unicode"
	"unicode/utf8"
)

// A part of a rule's regex that matches a bounded number of bytes from one
// alphabet, with bytes outside it on both sides, matches a whole run of
// that alphabet: cn-mobile's 11 digits stand between a byte that is no
// digit (or a lone dot) and a word boundary, so "18446744073709551615"
// holds no match though it holds 11 digits in a row. The gate then asks for
// such a run, maximal in the window, of between minLen and maxLen bytes:
// on GOROOT/src it rejects most of the windows cn-mobile's digit keywords
// open on long numbers, which the plain run condition let through.

// boundedRun returns the run condition of parts[i], a part of a top-level
// concatenation, made maximal and bounded when the parts around it can only
// hold bytes outside its alphabet next to it (or the text's edge).
func boundedRun(parts []*syntax.Regexp, i int) (byteRun, bool) {
	r, ok := newByteRun(parts[i])
	if !ok {
		return r, false
	}
	maxLen := maxMatchBytes(parts[i])
	if maxLen < r.minLen {
		return r, true // unbounded: the plain run says as much
	}
	wordRun := true
	for c, in := range r.alphabet {
		wordRun = wordRun && (!in || c < utf8.RuneSelf && syntax.IsWordChar(rune(c)))
	}
	var before, after edge
	open := true
	for j := i - 1; j >= 0 && open; j-- {
		open = before.add(parts[j], true, wordRun)
	}
	if open || before.meets(r.alphabet) {
		return r, true
	}
	open = true
	for j := i + 1; j < len(parts) && open; j++ {
		open = after.add(parts[j], false, wordRun)
	}
	if open || after.meets(r.alphabet) {
		return r, true
	}
	r.maxLen = maxLen
	return r, true
}

// edge is what can stand next to one end of a part's match: the bytes, and
// whether the text's edge can (which keeps a run maximal too).
type edge struct {
	bytes  [256]bool
	atText bool
}

func (e *edge) meets(alphabet *[256]bool) bool {
	for c, in := range alphabet {
		if in && e.bytes[c] {
			return true
		}
	}
	return false
}

// add adds the bytes re can put at the end of its match (last) or at its
// start (!last), and reports whether re can also match empty without
// saying what stands there, so the part beyond it must be looked at too.
// wordRun: the run beside re is of word bytes, so a \b right next to it
// has a byte that is none (or the text's edge) on its other side. It errs
// toward more bytes: any rune above ASCII stands for every byte 0x80-0xFF
// (a multi-byte rune's bytes, or an invalid byte the engine reads as
// U+FFFD), and an operator it does not know for every byte.
func (e *edge) add(re *syntax.Regexp, last, wordRun bool) bool {
	switch re.Op {
	case syntax.OpNoMatch:
		return false
	case syntax.OpEmptyMatch:
		return true
	case syntax.OpLiteral:
		if len(re.Rune) == 0 {
			return true
		}
		r := re.Rune[0]
		if last {
			r = re.Rune[len(re.Rune)-1]
		}
		e.addRune(r)
		if re.Flags&syntax.FoldCase != 0 {
			for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
				e.addRune(f)
			}
		}
		return false
	case syntax.OpCharClass:
		for k := 0; k+1 < len(re.Rune); k += 2 {
			for r := re.Rune[k]; r <= re.Rune[k+1] && r < utf8.RuneSelf; r++ {
				e.bytes[r] = true
			}
			if re.Rune[k+1] >= utf8.RuneSelf {
				e.addRune(utf8.RuneSelf)
			}
		}
		return false
	case syntax.OpAnyCharNotNL, syntax.OpAnyChar:
		for c := range e.bytes {
			e.bytes[c] = e.bytes[c] || c != '\n' || re.Op == syntax.OpAnyChar
		}
		return false
	case syntax.OpBeginText, syntax.OpBeginLine:
		if !last {
			return true // after a non-empty run it cannot hold: nothing to add
		}
		e.atText = true
		e.bytes['\n'] = e.bytes['\n'] || re.Op == syntax.OpBeginLine
		return false
	case syntax.OpEndText, syntax.OpEndLine:
		if last {
			return true
		}
		e.atText = true
		e.bytes['\n'] = e.bytes['\n'] || re.Op == syntax.OpEndLine
		return false
	case syntax.OpWordBoundary:
		if !wordRun {
			return true
		}
		e.atText = true
		for c := range e.bytes {
			e.bytes[c] = e.bytes[c] || c >= utf8.RuneSelf || !syntax.IsWordChar(rune(c))
		}
		return false
	case syntax.OpNoWordBoundary:
		return true
	case syntax.OpCapture, syntax.OpPlus:
		return e.add(re.Sub[0], last, wordRun)
	case syntax.OpStar, syntax.OpQuest:
		e.add(re.Sub[0], last, wordRun)
		return true
	case syntax.OpRepeat:
		return e.add(re.Sub[0], last, wordRun) || re.Min == 0
	case syntax.OpAlternate:
		open := false
		for _, sub := range re.Sub {
			open = e.add(sub, last, wordRun) || open
		}
		return open
	case syntax.OpConcat:
		for k := range re.Sub {
			sub := re.Sub[k]
			if last {
				sub = re.Sub[len(re.Sub)-1-k]
			}
			if !e.add(sub, last, wordRun) {
				return false
			}
		}
		return true
	default:
		for c := range e.bytes {
			e.bytes[c] = true
		}
		return true
	}
}

func (e *edge) addRune(r rune) {
	if r < utf8.RuneSelf {
		e.bytes[r] = true
		return
	}
	for c := utf8.RuneSelf; c < len(e.bytes); c++ {
		e.bytes[c] = true
	}
}

// hasMaximalRun reports whether text holds a run of bytes in set, with no
// such byte on either side, of between minLen and maxLen bytes.
func hasMaximalRun(text []byte, set *[256]bool, minLen, maxLen int) bool {
	run := 0
	for _, c := range text {
		if set[c] {
			run++
			continue
		}
		if minLen <= run && run <= maxLen {
			return true
		}
		run = 0
	}
	return minLen <= run && run <= maxLen
}
