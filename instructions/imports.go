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
	fenceBase int   // the container's content indent when the fence opened
	items     []int // content indent of each open list item, outermost first
	itemEmpty bool  // the innermost item's first line had no content
	para      []byte
	paraLines []int // paraLines[i] is the line number of the i-th line in para
	paraEnds  []int // offset in para just past each line
}

// line takes the next line of the file (without its '\n'). It follows
// CommonMark's block structure as far as code needs: list items (nested,
// each with its content indent), fences, indented code (four columns past
// the enclosing item's content), ATX and setext headings; a code span
// cannot cross from one block into the next.
func (sc *importScanner) line(num int, l []byte) {
	indent, rest := indentOf(l)
	blank := len(bytes.TrimSpace(l)) == 0
	if sc.fence != 0 {
		switch {
		case closesFence(l, sc.fence, sc.fenceLen, sc.fenceBase):
			sc.fence = 0
			return
		case blank || indent >= sc.fenceBase:
			return
		}
		sc.fence = 0 // a line left of the list item's content ends the item and its fence
	}
	if blank {
		sc.flush()
		if sc.itemEmpty && len(sc.items) > 0 {
			sc.items = sc.items[:len(sc.items)-1] // an item that starts empty ends at a blank line
		}
		sc.itemEmpty = false
		return
	}
	sc.itemEmpty = false
	// The deepest open item this line is indented into.
	k := len(sc.items)
	for k > 0 && indent < sc.items[k-1] {
		k--
	}
	base := 0
	if k > 0 {
		base = sc.items[k-1]
	}
	inPara := len(sc.para) > 0
	switch {
	case indent-base >= 4:
		if !inPara {
			sc.items = sc.items[:k]
			return // indented code: it cannot interrupt a paragraph
		}
		sc.add(num, rest) // a paragraph's continuation, however indented
	case isListItem(rest) && (!inPara || len(sc.items) > 0 || canInterrupt(rest)):
		sc.flush()
		sc.items = sc.items[:k]
		for isListItem(rest) {
			w := markerWidth(rest)
			sc.items = append(sc.items, indent+w)
			indent += w
			rest = rest[min(w, len(rest)):]
		}
		if len(bytes.TrimSpace(rest)) == 0 {
			sc.itemEmpty = true
			return
		}
		sc.block(num, rest, indent)
	case isFence(rest) || isHeading(rest):
		sc.flush()
		sc.items = sc.items[:k]
		sc.block(num, rest, base)
	case inPara && k == len(sc.items) && isSetextUnderline(rest):
		sc.flush() // the paragraph above was a heading; this line is not text
	case inPara:
		sc.add(num, rest) // continuation, lazily into the open item if need be
	default:
		sc.items = sc.items[:k]
		sc.add(num, rest)
	}
}

// block starts the block a line opens at content indent base: a fence, a
// heading, or a paragraph.
func (sc *importScanner) block(num int, rest []byte, base int) {
	if ch, n := opensFence(rest); n > 0 {
		sc.fence, sc.fenceLen, sc.fenceBase = ch, n, base
		return
	}
	sc.add(num, rest)
	if isHeading(rest) {
		sc.flush()
	}
}

// add appends a line to the paragraph being collected.
func (sc *importScanner) add(num int, l []byte) {
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

// closesFence reports a closing fence: at most three spaces of indent past
// base, a run of at least n of the opening character, then only whitespace.
func closesFence(l []byte, ch byte, n, base int) bool {
	indent, rest := indentOf(l)
	if indent < base || indent-base >= 4 || len(rest) == 0 || rest[0] != ch {
		return false
	}
	m := runLen(rest, 0, ch)
	return m >= n && len(bytes.TrimSpace(rest[m:])) == 0
}

// isListItem reports a bullet ("- ", "* ", "+ ") or ordered ("1. ", "2) ")
// list marker, or one alone on its line (an empty item).
func isListItem(rest []byte) bool {
	endsMarker := func(i int) bool { return i == len(rest) || rest[i] == ' ' || rest[i] == '\t' }
	if len(rest) >= 1 && (rest[0] == '-' || rest[0] == '*' || rest[0] == '+') && endsMarker(1) {
		return true
	}
	i := 0
	for i < len(rest) && i < 9 && '0' <= rest[i] && rest[i] <= '9' {
		i++
	}
	return i > 0 && i < len(rest) && (rest[i] == '.' || rest[i] == ')') && endsMarker(i+1)
}

// markerWidth is how far a list marker moves the item's content: the marker,
// then one to four spaces (one when more follow, or none at the line's end).
func markerWidth(rest []byte) int {
	m := 1
	if rest[0] >= '0' && rest[0] <= '9' {
		for m < len(rest) && rest[m] >= '0' && rest[m] <= '9' {
			m++
		}
		m++ // '.' or ')'
	}
	spaces := 0
	for m+spaces < len(rest) && rest[m+spaces] == ' ' {
		spaces++
	}
	if spaces == 0 || spaces > 4 || m+spaces == len(rest) {
		return m + 1
	}
	return m + spaces
}

// isHeading reports an ATX heading: one to six '#' then a space or the end.
func isHeading(rest []byte) bool {
	n := runLen(rest, 0, '#')
	return n >= 1 && n <= 6 && (n == len(rest) || rest[n] == ' ' || rest[n] == '\t')
}

func isFence(rest []byte) bool { _, n := opensFence(rest); return n > 0 }

// isSetextUnderline reports a line of '=' or '-' only (trailing spaces
// allowed), which turns the paragraph above it into a heading.
func isSetextUnderline(rest []byte) bool {
	t := bytes.TrimRight(rest, " \t")
	return len(t) > 0 && (runLen(t, 0, '=') == len(t) || runLen(t, 0, '-') == len(t))
}

// canInterrupt reports a list marker that may interrupt a paragraph: one
// with content, and, when ordered, numbered 1.
func canInterrupt(rest []byte) bool {
	w := markerWidth(rest)
	if w >= len(rest) || len(bytes.TrimSpace(rest[w:])) == 0 {
		return false
	}
	return rest[0] < '0' || rest[0] > '9' || (rest[0] == '1' && (rest[1] == '.' || rest[1] == ')'))
}
