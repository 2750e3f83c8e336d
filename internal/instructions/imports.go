package instructions

import (
	"bytes"
	"strings"
)

// importScanner finds @path imports in Markdown fed to it line by line. An
// import is '@' at the start of a line or after whitespace, followed by a
// path (a backslash keeps a space in it: `@my\ notes.md`). Imports are not
// looked for in fenced or indented code blocks, nor in code spans, which it
// finds the CommonMark way: a run of n backticks opens a span only if a run
// of exactly n backticks closes it in the same paragraph.
type importScanner struct {
	found []rawImport

	fence     byte // '`' or '~' while inside a fenced block
	fenceLen  int
	inList    bool // the last block line was a list item: indented lines continue it
	para      []byte
	paraLines []int // paraLines[i] is the line number of the i-th line in para
	paraEnds  []int // offset in para just past each line
}

// line takes the next line of the file (without its '\n').
func (sc *importScanner) line(num int, l []byte) {
	if sc.fence != 0 {
		if closesFence(l, sc.fence, sc.fenceLen) {
			sc.fence = 0
		}
		return
	}
	indent, rest := indentOf(l)
	switch {
	case len(bytes.TrimSpace(l)) == 0:
		sc.flush()
		return
	case indent < 4:
		if ch, n := opensFence(rest); n > 0 {
			sc.flush()
			sc.fence, sc.fenceLen = ch, n
			return
		}
		if isListItem(rest) {
			sc.inList = true
		} else if indent == 0 && len(sc.para) == 0 {
			sc.inList = false
		}
	case len(sc.para) == 0 && !sc.inList:
		return // an indented code block: it can only start after a blank line or a block
	}
	if len(sc.para) > 0 && len(sc.para)+len(l) > maxParagraphBytes {
		sc.flush()
	}
	sc.para = append(sc.para, l...)
	sc.para = append(sc.para, '\n')
	sc.paraLines = append(sc.paraLines, num)
	sc.paraEnds = append(sc.paraEnds, len(sc.para))
}

// flush scans the paragraph held so far.
func (sc *importScanner) flush() {
	if len(sc.para) == 0 {
		return
	}
	p := sc.para
	lineAt := func(off int) int {
		for i, end := range sc.paraEnds {
			if off < end {
				return sc.paraLines[i]
			}
		}
		return sc.paraLines[len(sc.paraLines)-1]
	}
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case c == '\\':
			i++ // an escaped character is literal, backticks included
		case c == '`':
			n := runLen(p, i, '`')
			if end := closingRun(p, i+n, n); end >= 0 {
				i = end - 1 // skip the code span
			} else {
				i += n - 1 // no closer: the backticks are literal
			}
		case c == '@' && (i == 0 || isSpace(p[i-1])):
			spec, next := importSpec(p, i+1)
			if spec != "" && len(sc.found) < maxImportsPerText {
				sc.found = append(sc.found, rawImport{line: lineAt(i), spec: spec})
			}
			i = next - 1
		}
	}
	sc.para, sc.paraLines, sc.paraEnds = sc.para[:0], sc.paraLines[:0], sc.paraEnds[:0]
}

// importSpec reads the path after '@' at p[i:] and returns it ("" when it
// is not a path) and the offset after it. A fragment (#section) is dropped.
// A path starts with "./", "~/", "/" or a letter, digit, '.', '_' or '-':
// "@@x", "@(x)" and a lone "@" are not imports.
func importSpec(p []byte, i int) (string, int) {
	var b strings.Builder
	j := i
	for j < len(p) {
		c := p[j]
		if c == '\\' && j+1 < len(p) && p[j+1] == ' ' {
			b.WriteByte(' ')
			j += 2
			continue
		}
		if isSpace(c) {
			break
		}
		b.WriteByte(c)
		j++
	}
	spec := b.String()
	if k := strings.IndexByte(spec, '#'); k >= 0 {
		spec = spec[:k]
	}
	switch {
	case spec == "" || spec == "/":
		return "", j
	case strings.HasPrefix(spec, "./"), strings.HasPrefix(spec, "~/"), strings.HasPrefix(spec, "/"):
		return spec, j
	}
	c := spec[0]
	if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '-' || c >= 0x80 {
		return spec, j
	}
	return "", j
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// runLen counts the run of ch starting at p[i].
func runLen(p []byte, i int, ch byte) int {
	n := 0
	for i+n < len(p) && p[i+n] == ch {
		n++
	}
	return n
}

// closingRun finds, from p[from:], a run of exactly n backticks and returns
// the offset just past it, or -1.
func closingRun(p []byte, from, n int) int {
	for i := from; i < len(p); {
		if p[i] != '`' {
			i++
			continue
		}
		m := runLen(p, i, '`')
		if m == n {
			return i + m
		}
		i += m
	}
	return -1
}

// indentOf measures leading whitespace (a tab to the next multiple of 4).
func indentOf(l []byte) (int, []byte) {
	col := 0
	for i, c := range l {
		switch c {
		case ' ':
			col++
		case '\t':
			col += 4 - col%4
		default:
			return col, l[i:]
		}
	}
	return col, nil
}

// opensFence reports a code fence opener (``` or ~~~, three or more; a
// backtick fence's info string has no backtick).
func opensFence(rest []byte) (byte, int) {
	if len(rest) < 3 || rest[0] != '`' && rest[0] != '~' {
		return 0, 0
	}
	ch := rest[0]
	n := runLen(rest, 0, ch)
	if n < 3 || ch == '`' && bytes.IndexByte(rest[n:], '`') >= 0 {
		return 0, 0
	}
	return ch, n
}

// closesFence reports a closing fence: at most three spaces of indent, a run
// of at least n of the opening character, then only whitespace.
func closesFence(l []byte, ch byte, n int) bool {
	indent, rest := indentOf(l)
	if indent >= 4 || len(rest) == 0 || rest[0] != ch {
		return false
	}
	m := runLen(rest, 0, ch)
	return m >= n && len(bytes.TrimSpace(rest[m:])) == 0
}

// isListItem reports a bullet ("- ", "* ", "+ ") or ordered ("1. ", "2) ")
// list marker.
func isListItem(rest []byte) bool {
	if len(rest) >= 2 && (rest[0] == '-' || rest[0] == '*' || rest[0] == '+') && (rest[1] == ' ' || rest[1] == '\t') {
		return true
	}
	i := 0
	for i < len(rest) && i < 9 && '0' <= rest[i] && rest[i] <= '9' {
		i++
	}
	return i > 0 && i+1 < len(rest) && (rest[i] == '.' || rest[i] == ')') && (rest[i+1] == ' ' || rest[i+1] == '\t')
}
