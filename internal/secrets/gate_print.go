package secrets

import (
	"regexp/syntax"
	"strconv"
	"strings"
)

// printRegexp writes re as a pattern that parses back to the same program,
// every flag spelled out where it applies. syntax.Regexp.String infers the
// flags instead, and for a wide class (a negated one) that case-folds each
// rune in it: 85% of compiling the default rules' gates (0.04 s of one
// core on every run), for a string the gate only compiles.
func printRegexp(re *syntax.Regexp) string {
	var b strings.Builder
	writeRegexp(&b, re)
	return b.String()
}

func writeRegexp(b *strings.Builder, re *syntax.Regexp) {
	switch re.Op {
	case syntax.OpNoMatch:
		b.WriteString(`[^\x00-\x{10FFFF}]`)
	case syntax.OpEmptyMatch:
		b.WriteString(`(?:)`)
	case syntax.OpLiteral:
		b.WriteString(`(?`)
		if re.Flags&syntax.FoldCase != 0 {
			b.WriteByte('i')
		} else {
			b.WriteString(`-i`)
		}
		b.WriteByte(':')
		for _, r := range re.Rune {
			writeRune(b, r)
		}
		b.WriteByte(')')
	case syntax.OpCharClass:
		if len(re.Rune) == 0 {
			b.WriteString(`[^\x00-\x{10FFFF}]`)
			return
		}
		b.WriteByte('[')
		for i := 0; i+1 < len(re.Rune); i += 2 {
			writeRune(b, re.Rune[i])
			if re.Rune[i+1] != re.Rune[i] {
				b.WriteByte('-')
				writeRune(b, re.Rune[i+1])
			}
		}
		b.WriteByte(']')
	case syntax.OpAnyCharNotNL:
		b.WriteString(`(?-s:.)`)
	case syntax.OpAnyChar:
		b.WriteString(`(?s:.)`)
	case syntax.OpBeginLine:
		b.WriteString(`(?m:^)`)
	case syntax.OpEndLine:
		b.WriteString(`(?m:$)`)
	case syntax.OpBeginText:
		b.WriteString(`\A`)
	case syntax.OpEndText:
		if re.Flags&syntax.WasDollar != 0 {
			b.WriteString(`(?-m:$)`)
		} else {
			b.WriteString(`\z`)
		}
	case syntax.OpWordBoundary:
		b.WriteString(`\b`)
	case syntax.OpNoWordBoundary:
		b.WriteString(`\B`)
	case syntax.OpCapture:
		b.WriteByte('(')
		writeRegexp(b, re.Sub[0])
		b.WriteByte(')')
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		b.WriteString(`(?:`)
		writeRegexp(b, re.Sub[0])
		b.WriteByte(')')
		switch re.Op {
		case syntax.OpStar:
			b.WriteByte('*')
		case syntax.OpPlus:
			b.WriteByte('+')
		case syntax.OpQuest:
			b.WriteByte('?')
		default:
			b.WriteByte('{')
			b.WriteString(strconv.Itoa(re.Min))
			if re.Max != re.Min {
				b.WriteByte(',')
				if re.Max >= 0 {
					b.WriteString(strconv.Itoa(re.Max))
				}
			}
			b.WriteByte('}')
		}
		if re.Flags&syntax.NonGreedy != 0 {
			b.WriteByte('?')
		}
	case syntax.OpConcat:
		b.WriteString(`(?:`)
		for _, sub := range re.Sub {
			writeRegexp(b, sub)
		}
		b.WriteByte(')')
	case syntax.OpAlternate:
		b.WriteString(`(?:`)
		for i, sub := range re.Sub {
			if i > 0 {
				b.WriteByte('|')
			}
			writeRegexp(b, sub)
		}
		b.WriteByte(')')
	default:
		b.WriteString(re.String()) // no other op exists today
	}
}

// writeRune writes r as itself when it is an ASCII letter or digit, else
// as \x{hex}: the same inside a class and out.
func writeRune(b *strings.Builder, r rune) {
	if r < 0x80 && ('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9') {
		b.WriteRune(r)
		return
	}
	b.WriteString(`\x{`)
	b.WriteString(strconv.FormatInt(int64(r), 16))
	b.WriteByte('}')
}
