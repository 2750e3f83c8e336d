// Package jsonstr appends a string as encoding/json writes it, without
// reflection: files.json's writer (snapshot) and the read server's
// answers (serve) both escape long texts this way, and their bytes must
// be encoding/json's exactly.
package jsonstr

import "unicode/utf8"

// safe marks, for each HTML-escaping mode, the ASCII bytes encoding/json
// writes as they are.
var safe = func() (t [2][utf8.RuneSelf]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[0][c] = c != '"' && c != '\\'
		t[1][c] = t[0][c] && c != '<' && c != '>' && c != '&'
	}
	return t
}()

const hexDigits = "0123456789abcdef"

// Append appends s quoted as encoding/json writes a string: quote and
// backslash escaped, \b \f \n \r \t by name, other control bytes as
// \u00XX, each invalid UTF-8 byte as \ufffd, U+2028 and U+2029 escaped,
// and, when html is set (json.Marshal's default), <, > and & as \u003c,
// \u003e and \u0026.
func Append(b []byte, s string, html bool) []byte {
	b, _ = AppendCuts(b, s, html, nil, nil)
	return b
}

// AppendCuts is Append that also records, for each offset in cuts
// (ascending, each at a character boundary of s), where in b the escape
// of s[:cut] ends, appended to at.
func AppendCuts(b []byte, s string, html bool, cuts, at []int) ([]byte, []int) {
	ok := &safe[0]
	if html {
		ok = &safe[1]
	}
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		for len(cuts) > 0 && cuts[0] <= i {
			at = append(at, len(b)+i-start)
			cuts = cuts[1:]
		}
		// Skip what is written as it is, up to the next cut: eight bytes
		// at a time, then byte by byte.
		end := len(s)
		if len(cuts) > 0 {
			end = cuts[0]
		}
		for i+8 <= end && plain8(s, i, html) {
			i += 8
		}
		for i < end && s[i] < utf8.RuneSelf && ok[s[i]] {
			i++
		}
		if i >= end {
			continue
		}
		c := s[i]
		if c < utf8.RuneSelf {
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default: // other control characters, and <, > and &
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	for range cuts {
		at = append(at, len(b))
	}
	return append(b, '"'), at
}

// Eight copies of a byte, and the high bit of each.
const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// plain8 reports whether the eight bytes of s at i are all written as
// they are: ASCII, none below 0x20, no quote or backslash, and with html
// none of <, > and &. It may say no of a plain word (the caller then
// looks byte by byte), never yes of one that is not.
func plain8(s string, i int, html bool) bool {
	w := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
		uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
	if w&highs != 0 || (w-ones*0x20)&^w&highs != 0 { // a byte at or above 0x80, or below 0x20
		return false
	}
	if hasZero(w^(ones*'"')) || hasZero(w^(ones*'\\')) {
		return false
	}
	return !html || !hasZero(w^(ones*'<')) && !hasZero(w^(ones*'>')) && !hasZero(w^(ones*'&'))
}

// hasZero reports whether a byte of w is 0 (w's bytes all below 0x80).
func hasZero(w uint64) bool { return (w-ones)&^w&highs != 0 }
