package extract

import (
	"encoding/xml"
	"io"
	"strings"
)

// extractPPTX writes each slide, in presentation order, behind a
// "--- slide N ---" marker: title placeholders as headings, other text
// frames line by line, tables as Markdown tables, then the speaker notes
// as a quoted "Notes:" block.
func extractPPTX(b *budget, src io.ReaderAt, size int64, out *textWriter) error {
	z, err := openZip(b, src, size)
	if err != nil {
		return err
	}
	main, err := z.mainPart("ppt/presentation.xml")
	if err != nil {
		return err
	}
	slides, err := pptxSlides(z, main)
	if err != nil {
		return err
	}
	for i, part := range slides {
		if err := b.section("slide"); err != nil {
			return err
		}
		if err := out.Marker("slide", i+1, ""); err != nil {
			return err
		}
		if err := pptxPart(z, part, out, false); err != nil {
			return err
		}
		notes, err := z.relByType(part, "notesSlide")
		if err != nil {
			return err
		}
		if notes != "" && z.has(notes) {
			if err := pptxPart(z, notes, out, true); err != nil {
				return err
			}
		}
	}
	return out.Err()
}

// pptxSlides lists slide parts in the order of presentation.xml's sldIdLst.
func pptxSlides(z *zipDoc, main string) ([]string, error) {
	rels, err := z.rels(main)
	if err != nil {
		return nil, err
	}
	s, err := z.xml(main)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	var slides []string
	for {
		tok, err := s.next()
		if err == io.EOF {
			return slides, nil
		}
		if err != nil {
			return nil, err
		}
		e, ok := tok.(xml.StartElement)
		if !ok || e.Name.Local != "sldId" {
			continue
		}
		for _, a := range e.Attr {
			if a.Name.Local == "id" && a.Name.Space != "" { // r:id, not the numeric id
				if part := rels[a.Value]; part != "" && z.has(part) {
					slides = append(slides, part)
				}
			}
		}
	}
}

// pptxPart writes the text of one slide or notes page. For notes only the
// body placeholder is read: the others repeat the slide image and number.
func pptxPart(z *zipDoc, part string, out *textWriter, notes bool) error {
	s, err := z.xml(part)
	if err != nil {
		return err
	}
	defer s.Close()
	w := &pptxWriter{out: out, b: z.b, notes: notes}
	if err := walkXML(s, w.start, w.end, w.text); err != nil {
		return err
	}
	return out.Err()
}

type pptxWriter struct {
	out   *textWriter
	b     *budget
	notes bool

	shape  string // placeholder type of the current shape ("title", "body", "" for none)
	para   strings.Builder
	inText bool
	said   bool // a notes line was written
	tables []*docxTable
}

func (w *pptxWriter) start(e xml.StartElement) error {
	switch e.Name.Local {
	case "sp":
		w.shape = ""
	case "ph":
		w.shape = attr(e, "type")
		if w.shape == "" {
			w.shape = "body" // a placeholder with only an idx is a body
		}
	case "p":
		w.para.Reset()
	case "t":
		w.inText = true
	case "br":
		w.para.WriteByte('\n')
	case "tbl":
		w.tables = append(w.tables, &docxTable{})
		if len(w.tables) > maxTableDepth {
			return overLimit("tables nested more than %d deep", maxTableDepth)
		}
	case "tr":
		if t := w.table(); t != nil {
			t.row = t.row[:0]
		}
	case "tc":
		if t := w.table(); t != nil {
			t.cell.Reset()
			return w.b.cell(1)
		}
	}
	return nil
}

func (w *pptxWriter) table() *docxTable {
	if len(w.tables) == 0 {
		return nil
	}
	return w.tables[len(w.tables)-1]
}

func (w *pptxWriter) text(t []byte) error {
	if !w.inText {
		return nil
	}
	w.para.Write(t)
	return w.b.hold(w.para.Len())
}

func (w *pptxWriter) end(e xml.EndElement) error {
	switch e.Name.Local {
	case "t":
		w.inText = false
	case "p":
		return w.paragraph()
	case "tc":
		if t := w.table(); t != nil {
			t.row = append(t.row, t.cell.String())
			return w.b.hold(t.cell.Len())
		}
	case "tr":
		if t := w.table(); t != nil {
			return t.tb.add(append([]string(nil), t.row...), w.b)
		}
	case "tbl":
		if len(w.tables) == 0 {
			return nil
		}
		t := w.tables[len(w.tables)-1]
		w.tables = w.tables[:len(w.tables)-1]
		if outer := w.table(); outer != nil {
			for _, row := range t.tb.rows {
				addCellLine(&outer.cell, strings.Join(row, " ; "))
			}
			return nil
		}
		if !w.notes {
			return t.tb.write(w.out)
		}
	}
	return nil
}

func (w *pptxWriter) paragraph() error {
	text := w.para.String()
	if t := w.table(); t != nil {
		addCellLine(&t.cell, text)
		return nil
	}
	if strings.TrimSpace(text) == "" {
		return w.out.Err()
	}
	switch {
	case w.notes:
		if w.shape != "body" {
			return nil
		}
		if !w.said {
			w.out.Blank()
			w.out.Line("Notes:")
			w.said = true
		}
		for _, l := range strings.Split(text, "\n") {
			w.out.Line("> " + l)
		}
		return w.out.Err()
	case w.shape == "title" || w.shape == "ctrTitle":
		return w.out.Heading(2, text)
	}
	return w.out.Line(text)
}
