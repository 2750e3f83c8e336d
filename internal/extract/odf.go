package extract

import (
	"encoding/xml"
	"io"
	"strconv"
	"strings"
)

// OpenDocument text, spreadsheets and presentations share content.xml's
// vocabulary; one walker reads all three, in the mode of the format.
type odfMode int

const (
	odfText odfMode = iota
	odfSheets
	odfSlides
)

func extractODT(b *budget, src io.ReaderAt, size int64, out *textWriter) error {
	return extractODF(b, src, size, out, odfText)
}

func extractODS(b *budget, src io.ReaderAt, size int64, out *textWriter) error {
	return extractODF(b, src, size, out, odfSheets)
}

func extractODP(b *budget, src io.ReaderAt, size int64, out *textWriter) error {
	return extractODF(b, src, size, out, odfSlides)
}

// extractODF reads content.xml as a stream: headings by outline level,
// list items, tables as Markdown tables (repeated rows and columns
// expanded only where content follows: sheets end in a million repeated
// empty cells), sheets and slides behind markers, slide notes quoted.
// Notes, annotations and tracked deletions are left out of text documents.
func extractODF(b *budget, src io.ReaderAt, size int64, out *textWriter, mode odfMode) error {
	z, err := openZip(b, src, size)
	if err != nil {
		return err
	}
	if err := odfEncrypted(z); err != nil {
		return err
	}
	s, err := z.xml("content.xml")
	if err != nil {
		return err
	}
	defer s.Close()
	w := &odfWriter{out: out, b: b, mode: mode}
	if err := walkXML(s, w.start, w.end, w.text); err != nil {
		return err
	}
	if mode == odfText {
		b.sections = 1
	}
	return out.Err()
}

// odfEncrypted refuses a package whose manifest declares encrypted parts
// (a password-protected document).
func odfEncrypted(z *zipDoc) error {
	if !z.has("META-INF/manifest.xml") {
		return nil
	}
	for e, err := range z.starts("META-INF/manifest.xml") {
		if err != nil {
			return err
		}
		if e.Name.Local == "encryption-data" {
			return encrypted("password-protected OpenDocument (the manifest lists encrypted parts)")
		}
	}
	return nil
}

type odfPara struct {
	text    strings.Builder
	heading int
	item    string // list item prefix for the first line, "" when none
}

// odfTable is an open table with the repeats of the row and cell being
// read: ODF writes a run of equal rows or cells once, with a count.
type odfTable struct {
	openTable
	rowRepeat    int
	cellRepeat   int
	pendingEmpty int // empty cells not yet written: only content after them makes them count
}

type odfWriter struct {
	out  *textWriter
	b    *budget
	mode odfMode

	paras     []*odfPara
	tables    tableStack[*odfTable]
	lists     int  // list nesting depth
	newItem   bool // the next paragraph starts a list item
	skip      int  // depth inside a subtree left out
	slides    int
	sheets    int
	frame     string // presentation:class of the current frame
	inNotes   bool
	saidNotes bool
}

func repeatAttr(e xml.StartElement, local string) int {
	n, err := strconv.Atoi(attr(e, local))
	if err != nil || n < 1 {
		return 1
	}
	return n
}

func (w *odfWriter) start(e xml.StartElement) error {
	if w.skip > 0 {
		w.skip++
		return nil
	}
	switch e.Name.Local {
	case "note", "annotation", "tracked-changes", "notes-configuration":
		w.skip = 1
	case "h":
		level, _ := strconv.Atoi(attr(e, "outline-level"))
		w.paras = append(w.paras, &odfPara{heading: max(level, 1)})
		w.itemPrefix()
	case "p":
		w.paras = append(w.paras, &odfPara{})
		w.itemPrefix()
	case "list":
		w.lists++
	case "list-item", "list-header":
		w.newItem = e.Name.Local == "list-item"
	case "s":
		if p := w.para(); p != nil {
			p.text.WriteString(strings.Repeat(" ", min(repeatAttr(e, "c"), 100)))
		}
	case "tab":
		if p := w.para(); p != nil {
			p.text.WriteByte('\t')
		}
	case "line-break":
		if p := w.para(); p != nil {
			p.text.WriteByte('\n')
		}
	case "table":
		if len(w.tables) == 0 && w.mode == odfSheets {
			w.sheets++
			if w.sheets > w.b.lim.MaxSheets {
				return overLimit("more than %d sheets", w.b.lim.MaxSheets)
			}
			if err := w.b.section("sheet"); err != nil {
				return err
			}
			w.out.Marker("sheet", w.sheets, attr(e, "name"))
		}
		if err := w.tables.push(&odfTable{}); err != nil {
			return err
		}
	case "table-row":
		if t := w.tables.top(); t != nil {
			t.row, t.pendingEmpty = t.row[:0], 0
			t.rowRepeat = repeatAttr(e, "number-rows-repeated")
		}
	case "table-cell", "covered-table-cell":
		if t := w.tables.top(); t != nil {
			t.cell.Reset()
			t.cellRepeat = repeatAttr(e, "number-columns-repeated")
		}
	case "page":
		if w.mode == odfSlides && len(w.tables) == 0 {
			w.slides++
			if err := w.b.section("slide"); err != nil {
				return err
			}
			w.saidNotes = false
			w.out.Marker("slide", w.slides, "")
		}
	case "frame":
		w.frame = attr(e, "class")
	case "notes":
		w.inNotes = true
	}
	return w.out.Err()
}

// itemPrefix marks the paragraph just opened as a list item's first.
func (w *odfWriter) itemPrefix() {
	if w.lists > 0 && w.newItem {
		w.para().item = strings.Repeat("  ", min(w.lists-1, 8)) + "- "
		w.newItem = false
	}
}

func (w *odfWriter) para() *odfPara {
	if len(w.paras) == 0 {
		return nil
	}
	return w.paras[len(w.paras)-1]
}

func (w *odfWriter) text(t []byte) error {
	p := w.para()
	if w.skip > 0 || p == nil {
		return nil
	}
	// White space in ODF text collapses like HTML's; text:s, text:tab
	// and text:line-break carry the meant ones.
	s := strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' || r == '\t' {
			return ' '
		}
		return r
	}, string(t))
	p.text.WriteString(s)
	return w.b.hold(p.text.Len())
}

func (w *odfWriter) end(e xml.EndElement) error {
	if w.skip > 0 {
		w.skip--
		return nil
	}
	switch e.Name.Local {
	case "h", "p":
		if len(w.paras) == 0 {
			return nil
		}
		p := w.paras[len(w.paras)-1]
		w.paras = w.paras[:len(w.paras)-1]
		return w.paragraph(p)
	case "list":
		w.lists--
	case "table-cell", "covered-table-cell":
		if t := w.tables.top(); t != nil {
			return w.cellEnd(t)
		}
	case "table-row":
		if t := w.tables.top(); t != nil {
			return w.rowEnd(t)
		}
	case "table":
		tb := w.tables.pop()
		if tb == nil {
			return nil // nested: its rows went into the outer table's cell
		}
		if w.mode == odfSheets && tb.empty() {
			return w.out.Line("(empty)")
		}
		return tb.write(w.out)
	case "frame":
		w.frame = ""
	case "notes":
		w.inNotes = false
	}
	return w.out.Err()
}

func (w *odfWriter) cellEnd(t *odfTable) error {
	v := t.cell.String()
	if strings.TrimSpace(v) == "" {
		t.pendingEmpty += t.cellRepeat
		return nil
	}
	n := t.pendingEmpty + t.cellRepeat
	if err := w.b.cell(int64(n)); err != nil {
		return err
	}
	for range t.pendingEmpty {
		t.row = append(t.row, "")
	}
	for range t.cellRepeat {
		t.row = append(t.row, v)
	}
	t.pendingEmpty = 0
	return w.b.hold(len(v) * t.cellRepeat)
}

// rowEnd adds a row as many times as it repeats; an empty row, however
// often it repeats, adds nothing.
func (w *odfWriter) rowEnd(t *odfTable) error {
	if len(t.row) == 0 {
		return nil
	}
	if err := w.b.cell(int64(len(t.row)) * int64(t.rowRepeat-1)); err != nil {
		return err
	}
	for range t.rowRepeat {
		if err := t.tb.add(append([]string(nil), t.row...), w.b); err != nil {
			return err
		}
	}
	return nil
}

func (w *odfWriter) paragraph(p *odfPara) error {
	text := p.text.String()
	if outer := w.para(); outer != nil && w.tables.top() == nil {
		// A paragraph inside another (a text box in a paragraph): its
		// text joins the outer one.
		outer.text.WriteString(" " + text)
		return nil
	}
	if t := w.tables.top(); t != nil {
		addCellLine(&t.cell, text)
		return w.b.hold(t.cell.Len())
	}
	if strings.TrimSpace(text) == "" {
		return w.out.Err()
	}
	switch {
	case w.inNotes:
		if !w.saidNotes {
			w.out.Blank()
			w.out.Line("Notes:")
			w.saidNotes = true
		}
		return w.out.Line("> " + oneLine(text))
	case p.heading > 0:
		return w.out.Heading(p.heading, text)
	case w.mode == odfSlides && (w.frame == "title" || w.frame == "subtitle"):
		level := 2
		if w.frame == "subtitle" {
			level = 3
		}
		return w.out.Heading(level, text)
	case p.item != "":
		return w.out.Line(p.item + strings.TrimSpace(text))
	}
	return w.out.Line(text)
}
