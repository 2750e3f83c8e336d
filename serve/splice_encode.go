package serve

import (
	"strconv"
	"unicode/utf8"
)

// A read's answer is its text twice: as the text content and, cut per
// file, as files[].text in structuredContent. encoding/json escapes each
// string one byte at a time through reflection; here the text is escaped
// once, in runs of bytes that need no escape, and each file's part of the
// structured content is that escaped text's slice (escaping works
// character by character and the files' parts end at newlines, so the
// parts' escapes are slices of the whole's). The bytes are those
// json.Marshal writes (TestEncodeReadResult, FuzzAppendJSONString).

// jsonSafe marks the ASCII bytes encoding/json writes as they are, HTML
// escaping on.
var jsonSafe = func() (t [utf8.RuneSelf]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return t
}()

const hexDigits = "0123456789abcdef"

// appendJSONString appends s as encoding/json writes a string with HTML
// escaping: quotes, backslashes and control characters escaped, <, > and
// & as \u003c, \u003e and \u0026, U+2028 and U+2029 escaped, and each
// invalid UTF-8 byte as \ufffd.
func appendJSONString(b []byte, s string) []byte {
	b, _ = appendJSONStringCuts(b, s, nil, nil)
	return b
}

// appendJSONStringCuts is appendJSONString that also records, for each
// offset in cuts (ascending, each at a character boundary of s), where in
// b the escape of s[:cut] ends.
func appendJSONStringCuts(b []byte, s string, cuts, at []int) ([]byte, []int) {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		for len(cuts) > 0 && cuts[0] <= i {
			at = append(at, len(b)+i-start)
			cuts = cuts[1:]
		}
		c := s[i]
		if c < utf8.RuneSelf {
			if jsonSafe[c] {
				i++
				continue
			}
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
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	for range cuts {
		at = append(at, len(b))
	}
	return append(b, '"'), at
}

// appendReadResult appends r as json.Marshal writes it. escaped is the
// answer's text as appendJSONStringCuts wrote it and ends where each
// file's part of it ends there: file i's text is escaped[ends[i-1]:ends[i]]
// (from 1, after the opening quote, for the first).
func appendReadResult(b []byte, r *ReadFileResult, escaped []byte, ends []int) []byte {
	b = append(b, `{"files":`...)
	if r.Files == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
	}
	pos := 1
	for i := range r.Files {
		f := &r.Files[i]
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"path":`...)
		b = appendJSONString(b, f.Path)
		if f.DuplicateOf != "" {
			b = append(b, `,"duplicate_of":`...)
			b = appendJSONString(b, f.DuplicateOf)
		}
		b = append(b, `,"total_lines":`...)
		b = strconv.AppendInt(b, int64(f.TotalLines), 10)
		b = append(b, `,"shown":`...)
		b = appendRanges(b, f.Shown)
		if f.Next != 0 {
			b = append(b, `,"next":`...)
			b = strconv.AppendInt(b, int64(f.Next), 10)
		}
		if f.Cut != "" {
			b = append(b, `,"cut":`...)
			b = appendJSONString(b, f.Cut)
		}
		if f.NotRead {
			b = append(b, `,"not_read":true`...)
		}
		if f.Error != "" {
			b = append(b, `,"error":`...)
			b = appendJSONString(b, f.Error)
		}
		if f.Encoding != "" {
			b = append(b, `,"encoding":`...)
			b = appendJSONString(b, f.Encoding)
		}
		b = append(b, `,"text":"`...)
		b = append(b, escaped[pos:ends[i]]...)
		b = append(b, `"}`...)
		pos = ends[i]
	}
	if r.Files != nil {
		b = append(b, ']')
	}
	b = append(b, `,"budget_tokens":`...)
	b = strconv.AppendInt(b, int64(r.BudgetTokens), 10)
	b = append(b, `,"tokens":`...)
	b = strconv.AppendInt(b, int64(r.Tokens), 10)
	if r.Cut {
		b = append(b, `,"cut":true`...)
	} else {
		b = append(b, `,"cut":false`...)
	}
	if r.Failed != 0 {
		b = append(b, `,"failed":`...)
		b = strconv.AppendInt(b, int64(r.Failed), 10)
	}
	return append(b, '}')
}

// appendRanges appends [][]int as json.Marshal writes it.
func appendRanges(b []byte, rs [][]int) []byte {
	if rs == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for j, rg := range rs {
		if j > 0 {
			b = append(b, ',')
		}
		if rg == nil {
			b = append(b, "null"...)
			continue
		}
		b = append(b, '[')
		for k, v := range rg {
			if k > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendInt(b, int64(v), 10)
		}
		b = append(b, ']')
	}
	return append(b, ']')
}

// readResultCuts returns where each file's text ends in text, when the
// files' texts are text's consecutive parts, as readFile makes them.
func readResultCuts(r *ReadFileResult, text string) ([]int, bool) {
	cuts := make([]int, 0, len(r.Files))
	at := 0
	for i := range r.Files {
		t := r.Files[i].Text
		if at+len(t) > len(text) || text[at:at+len(t)] != t {
			return nil, false
		}
		at += len(t)
		cuts = append(cuts, at)
	}
	return cuts, true
}
