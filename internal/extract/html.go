package extract

import (
	"io"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// htmlText writes an (X)HTML document as Markdown-flavoured text with the
// tokenizer (never a tree, so nesting costs nothing): h1-h6 become
// headings, li items, tables Markdown tables, pre keeps its white space;
// head, script and style are left out, and so are images.
func htmlText(b *budget, r io.Reader, out *textWriter) error {
	z := html.NewTokenizer(r)
	h := &htmlWriter{out: out, b: b}
	for n := 0; ; n++ {
		if n&1023 == 0 {
			if err := b.alive(); err != nil {
				return err
			}
		}
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			if z.Err() == io.EOF {
				h.flush()
				return out.Err()
			}
			return z.Err()
		case html.TextToken:
			if err := h.text(z.Text()); err != nil {
				return err
			}
		case html.StartTagToken, html.SelfClosingTagToken:
			name, _ := z.TagName()
			if err := h.start(atom.Lookup(name), tt == html.SelfClosingTagToken); err != nil {
				return err
			}
		case html.EndTagToken:
			name, _ := z.TagName()
			if err := h.end(atom.Lookup(name)); err != nil {
				return err
			}
		}
		if err := out.Err(); err != nil {
			return err
		}
	}
}

type htmlWriter struct {
	out     *textWriter
	b       *budget
	line    strings.Builder
	prefix  string // "- " for the first line of a list item
	heading int
	skip    atom.Atom // inside head, script, style...: the element that ends the skip
	pre     int
	lists   int
	tables  tableStack[*htmlTable]
}

// flush ends the current line of inline text.
func (h *htmlWriter) flush() {
	text := h.line.String()
	h.line.Reset()
	if h.tables.addToCell(text) {
		return
	}
	if strings.TrimSpace(text) == "" {
		return
	}
	switch {
	case h.heading > 0:
		h.out.Heading(h.heading, text)
	case h.prefix != "":
		h.out.Line(h.prefix + strings.TrimSpace(text))
		h.prefix = ""
	case h.pre > 0:
		h.out.Text(text)
		h.out.EndLine()
	default:
		h.out.Line(strings.TrimSpace(text))
	}
}

func (h *htmlWriter) text(t []byte) error {
	if h.skip != 0 {
		return nil
	}
	if h.pre > 0 {
		h.line.Write(t)
	} else {
		s := oneLineKeepEnds(string(t)) // the tokenizer has unescaped entities
		if h.line.Len() == 0 || strings.HasSuffix(h.line.String(), " ") {
			s = strings.TrimLeft(s, " ")
		}
		h.line.WriteString(s)
	}
	return h.b.hold(h.line.Len())
}

// oneLineKeepEnds collapses white space like oneLine but keeps one space
// at either end, where inline elements meet.
func oneLineKeepEnds(s string) string {
	if s == "" {
		return ""
	}
	core := oneLine(s)
	if core == "" {
		return " "
	}
	if isSpace(s[0]) {
		core = " " + core
	}
	if isSpace(s[len(s)-1]) {
		core += " "
	}
	return core
}

func isSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f' }

func (h *htmlWriter) start(a atom.Atom, selfClosing bool) error {
	if h.skip != 0 {
		return nil
	}
	switch a {
	case atom.Head, atom.Script, atom.Style, atom.Noscript, atom.Template, atom.Svg, atom.Math, atom.Title:
		if !selfClosing {
			h.skip = a
		}
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		h.flush()
		h.heading = int(a.String()[1] - '0')
	case atom.Br:
		if h.pre > 0 {
			h.line.WriteByte('\n')
		} else {
			h.flush()
		}
	case atom.Pre:
		h.flush()
		h.pre++
	case atom.Ul, atom.Ol:
		h.flush()
		h.lists++
	case atom.Li:
		h.flush()
		h.prefix = strings.Repeat("  ", min(max(h.lists-1, 0), 8)) + "- "
	case atom.Table:
		h.flush()
		return h.tables.push(&htmlTable{})
	case atom.Tr:
		h.flush()
		if err := h.closeRow(); err != nil {
			return err
		}
		h.openRow()
	case atom.Td, atom.Th:
		h.flush()
		if err := h.closeCell(); err != nil {
			return err
		}
		h.openRow()
		if t := h.tables.top(); t != nil {
			t.inCell = true
		}
		return h.tables.startCell(h.b)
	case atom.P, atom.Div, atom.Section, atom.Article, atom.Blockquote, atom.Dl, atom.Dt, atom.Dd,
		atom.Figure, atom.Figcaption, atom.Header, atom.Footer, atom.Nav, atom.Aside, atom.Main, atom.Hr:
		h.flush()
	}
	return nil
}

func (h *htmlWriter) end(a atom.Atom) error {
	if h.skip != 0 {
		if a == h.skip {
			h.skip = 0
		}
		return nil
	}
	switch a {
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		h.flush()
		h.heading = 0
	case atom.Pre:
		h.flush()
		h.pre = max(h.pre-1, 0)
	case atom.Ul, atom.Ol:
		h.flush()
		h.lists = max(h.lists-1, 0)
	case atom.Td, atom.Th:
		h.flush()
		return h.closeCell()
	case atom.Tr:
		h.flush()
		return h.closeRow()
	case atom.Table:
		h.flush()
		if err := h.closeRow(); err != nil {
			return err
		}
		if tb := h.tables.pop(); tb != nil {
			return tb.write(h.out)
		}
	case atom.Li, atom.P, atom.Div, atom.Section, atom.Article, atom.Blockquote, atom.Dl, atom.Dt, atom.Dd,
		atom.Figure, atom.Figcaption, atom.Header, atom.Footer, atom.Nav, atom.Aside, atom.Main:
		h.flush()
	}
	return nil
}

// htmlTable is an HTML table being read. Unlike XML, HTML leaves end tags
// out (<td>a<td>b, a row without </tr>, a table closed inside a cell) and
// has stray ones (a </td> with no cell open), so the writer tracks which
// row and cell are open: a new cell ends the open one, a new row or the
// table's end ends the open row, and an end tag with nothing open does
// nothing, as an HTML parser's implied end tags do.
type htmlTable struct {
	openTable
	inRow, inCell bool
}

// openRow starts a row of the innermost table unless one is open.
func (h *htmlWriter) openRow() {
	if t := h.tables.top(); t != nil && !t.inRow {
		h.tables.startRow()
		t.inRow = true
	}
}

// closeCell ends the innermost table's open cell, if any.
func (h *htmlWriter) closeCell() error {
	t := h.tables.top()
	if t == nil || !t.inCell {
		return nil
	}
	t.inCell = false
	return h.tables.endCell(h.b)
}

// closeRow ends the innermost table's open cell and row, if any.
func (h *htmlWriter) closeRow() error {
	if err := h.closeCell(); err != nil {
		return err
	}
	t := h.tables.top()
	if t == nil || !t.inRow {
		return nil
	}
	t.inRow = false
	return h.tables.endRow(h.b)
}
