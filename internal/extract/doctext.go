package extract

import (
	"bytes"
	"encoding/binary"
	"sort"
	"strconv"
	"strings"
	"unicode/utf16"
)

// docWriter turns a part's characters into paragraphs, tables and lines.
type docWriter struct {
	out     *textWriter
	b       *budget
	wd      []byte
	pieces  []docPiece
	paps    *docPapx
	stis    []uint16 // style id (sti) of each style, by istd
	notes   docNotes
	authors []string // each comment's author, in order

	mode  docMode
	label string // the part's label, until its first line is written
	lead  string // a note's or comment's label, until its first paragraph
	count int    // notes or comments begun in the part

	para   strings.Builder
	high   rune   // a UTF-16 high surrogate waiting for its pair
	fields []bool // the fields open around the text: true once in their result
	deeper int    // fields open past maxFieldDepth, not tracked
	tables tableStack[*openTable]
	inCell bool // without paragraph properties: the last mark ended a cell
}

// maxFieldDepth bounds the fields tracked as nested; the text of deeper
// ones is read as if it were their result.
const maxFieldDepth = 64

// story writes the characters [start, end) of the document.
func (w *docWriter) story(start, end int64) error {
	i := sort.Search(len(w.pieces), func(i int) bool { return w.pieces[i].cpEnd > start })
	for ; i < len(w.pieces) && w.pieces[i].cp < end; i++ {
		p := w.pieces[i]
		from, to := max(p.cp, start), min(p.cpEnd, end)
		width := int64(2)
		if p.compressed {
			width = 1
		}
		if err := w.b.charge(width * (to - from)); err != nil {
			return err
		}
		for cp := from; cp < to; cp++ {
			fc := p.fc + width*(cp-p.cp)
			var c rune
			if p.compressed {
				c = cp1252(w.wd[fc])
			} else {
				c = rune(binary.LittleEndian.Uint16(w.wd[fc:]))
			}
			if err := w.char(c, cp, fc); err != nil {
				return err
			}
		}
	}
	return w.endStory()
}

// endStory writes what a story left open: its last paragraph, its tables.
func (w *docWriter) endStory() error {
	if w.para.Len() > 0 {
		if err := w.paragraph(w.para.String(), docProps{}); err != nil {
			return err
		}
	}
	w.para.Reset()
	w.fields, w.deeper = w.fields[:0], 0
	w.high = 0
	return w.closeTables(0)
}

// char handles the character at cp, byte fc of WordDocument.
func (w *docWriter) char(c rune, cp, fc int64) error {
	switch c {
	case 0x13: // field begin: its code follows
		if len(w.fields) < maxFieldDepth {
			w.fields = append(w.fields, false)
		} else {
			w.deeper++
		}
		return nil
	case 0x14: // field separator: its result follows
		if n := len(w.fields); n > 0 && w.deeper == 0 {
			w.fields[n-1] = true
		}
		return nil
	case 0x15: // field end
		if n := len(w.fields); w.deeper > 0 {
			w.deeper--
		} else if n > 0 {
			w.fields = w.fields[:n-1]
		}
		return nil
	}
	for _, result := range w.fields {
		if !result {
			return nil // inside a field's code
		}
	}
	if utf16.IsSurrogate(c) {
		if c < 0xDC00 {
			w.high = c
		} else if w.high != 0 {
			w.para.WriteRune(utf16.DecodeRune(w.high, c))
			w.high = 0
		}
		return nil
	}
	w.high = 0
	if c == 0x07 && w.paps == nil {
		// The mark ending a table cell or row, without the paragraph
		// properties that tell which: cells apart by tabs, and two
		// marks in a row (the last cell's, the row's) end a line.
		if w.inCell {
			w.inCell = false
			return w.endParagraph(fc, false)
		}
		w.inCell = true
		w.para.WriteByte('\t')
		return nil
	}
	w.inCell = false
	switch c {
	case 0x02: // a note's reference: in the body, or opening the note itself
		w.mark(w.notes.number(w.mode, cp, w.count))
	case 0x05: // a comment's reference: opening the comment in its part
		w.mark(0)
	case 0x0D: // paragraph mark
		return w.endParagraph(fc, false)
	case 0x07: // the mark ending a table cell or row
		return w.endParagraph(fc, true)
	case 0x0B, 0x0C, 0x0E: // line, page (or section) and column breaks
		w.para.WriteByte('\n')
	case 0x09:
		w.para.WriteByte('\t')
	case 0x1E: // non-breaking hyphen
		w.para.WriteByte('-')
	case 0xA0:
		w.para.WriteByte(' ')
	default:
		// 0x01 pictures, 0x08 drawn objects, 0x1F optional hyphens: not
		// text.
		if c < 0x20 {
			return nil
		}
		w.para.WriteRune(c)
	}
	return w.b.hold(w.para.Len())
}

// endParagraph ends the paragraph whose mark is at byte fc: into the
// tables its properties put it in, or out as a line.
func (w *docWriter) endParagraph(fc int64, cellMark bool) error {
	text := w.para.String()
	w.para.Reset()
	props := w.paps.at(fc)
	depth := props.depth()
	if err := w.closeTables(depth); err != nil {
		return err
	}
	if depth == 0 {
		return w.paragraph(text, props)
	}
	for len(w.tables) < depth {
		if err := w.tables.push(&openTable{}); err != nil {
			return err
		}
		w.tables.startRow()
		if err := w.tables.startCell(w.b); err != nil {
			return err
		}
	}
	rowEnd := props.ttp && depth == 1 || props.innerTtp && depth > 1
	cellEnd := cellMark && depth == 1 || props.innerCell && depth > 1
	switch {
	case rowEnd:
		if err := w.tables.endRow(w.b); err != nil {
			return err
		}
		w.tables.startRow()
	case cellEnd:
		w.tables.addToCell(text)
		if err := w.tables.endCell(w.b); err != nil {
			return err
		}
		return w.tables.startCell(w.b)
	default:
		w.tables.addToCell(text)
	}
	return nil
}

// closeTables closes the tables nested deeper than depth; an outermost
// one is written.
func (w *docWriter) closeTables(depth int) error {
	for len(w.tables) > depth {
		t := w.tables.innermost()
		if len(t.row) > 0 { // a row whose end mark never came
			if err := w.tables.endRow(w.b); err != nil {
				return err
			}
		}
		if tb := w.tables.pop(); tb != nil {
			if !tb.empty() {
				w.startPart()
			}
			if err := tb.write(w.out); err != nil {
				return err
			}
		}
	}
	return nil
}

// paragraph writes a paragraph outside tables: a heading for the heading
// styles, a list item, or a line; the first of a note or comment after
// its label.
func (w *docWriter) paragraph(text string, props docProps) error {
	if strings.TrimSpace(text) == "" {
		return w.out.Err()
	}
	w.startPart()
	if w.lead != "" {
		text, w.lead = w.lead+strings.TrimSpace(text), ""
		return w.out.Line(text)
	}
	if w.mode != docInBody {
		return w.out.Line(text)
	}
	if level := w.headingLevel(props.istd); level > 0 {
		return w.out.Heading(level, text)
	}
	if props.list {
		return w.out.Line(strings.Repeat("  ", min(props.level, 8)) + "- " + strings.TrimSpace(text))
	}
	return w.out.Line(text)
}

// headingLevel is 1-9 for the built-in heading styles (sti 1-9), 1 for
// Title (sti 62), 0 for any other style.
func (w *docWriter) headingLevel(istd uint16) int {
	if int(istd) >= len(w.stis) {
		return 0
	}
	switch sti := w.stis[istd]; {
	case sti >= 1 && sti <= 9:
		return int(sti)
	case sti == 62:
		return 1
	}
	return 0
}

// mark handles a note's (number > 0) or comment's reference mark: in
// the body it stays as "[^N]"; in a notes or comments part it begins the
// next one, whose first paragraph gets its label.
func (w *docWriter) mark(number int) {
	switch w.mode {
	case docInBody:
		if number > 0 {
			w.para.WriteString("[^" + strconv.Itoa(number) + "]")
		}
	case docInFootnotes, docInEndnotes:
		w.lead = "[^" + strconv.Itoa(number) + "]: "
		w.count++
	case docInComments:
		who := ""
		if w.count < len(w.authors) && w.authors[w.count] != "" {
			who = " (" + w.authors[w.count] + ")"
		}
		w.count++
		w.lead = "[comment " + strconv.Itoa(w.count) + who + "]: "
	}
}

// startPart writes the part's label before its first line.
func (w *docWriter) startPart() {
	if w.label != "" {
		w.out.Label(w.label)
		w.label = ""
	}
}

// maxDocSides bounds the distinct headers and footers kept: a document of
// many sections may have six of each kind a section.
const maxDocSides = 64

// sides reads the headers and footers: PlcfHdd splits the header part
// into six separator stories (for notes, left out) and then six per
// section: even and odd header, even and odd footer, first-page header and
// footer. Each is rendered on its own and kept once. Without PlcfHdd the
// whole part is one header; text boxes in headers are one more.
func (w *docWriter) sides(part docSpan, plc []byte, boxes docSpan) (headers, footers []string, err error) {
	seen := map[string]bool{}
	keep := func(span docSpan, footer bool) error {
		if span.start >= span.end || len(seen) >= maxDocSides {
			return nil
		}
		text, err := w.render(span)
		if err != nil || text == "" || seen[text] {
			return err
		}
		seen[text] = true
		if footer {
			footers = append(footers, text)
		} else {
			headers = append(headers, text)
		}
		return nil
	}
	if n := len(plc)/4 - 1; n < 1 {
		err = keep(part, false)
	} else {
		for i := 6; i < n && err == nil; i++ {
			from := part.start + int64(binary.LittleEndian.Uint32(plc[4*i:]))
			to := part.start + int64(binary.LittleEndian.Uint32(plc[4*i+4:]))
			k := (i - 6) % 6
			err = keep(docSpan{from, min(to, part.end)}, k == 2 || k == 3 || k == 5)
		}
	}
	if err == nil {
		err = keep(boxes, false)
	}
	return headers, footers, err
}

// render writes a span on its own, for a header or footer compared before
// it is written.
func (w *docWriter) render(span docSpan) (string, error) {
	var buf bytes.Buffer
	out := w.out
	w.out = newTextWriter(&buf, w.b.lim.MaxTextBytes)
	w.mode = docInBody
	err := w.story(span.start, span.end)
	if err == nil {
		err = w.out.Close()
	}
	w.out = out
	return strings.TrimSpace(buf.String()), err
}

// docMode is what a part is to the writer.
type docMode int

const (
	docInBody      docMode = iota // the body, a header or a footer
	docInFootnotes                // footnotes
	docInEndnotes                 // endnotes
	docInComments                 // comments
)

// docSides writes the headers or footers under their label, each a block.
func docSides(out *textWriter, name string, texts []string) {
	if len(texts) == 0 {
		return
	}
	out.Label(name)
	for _, t := range texts {
		out.Text(t)
		out.Blank()
	}
}
