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
	var slides []string
	for e, err := range z.starts(main) {
		if err != nil {
			return nil, err
		}
		if e.Name.Local != "sldId" {
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
	return slides, nil
}

// pptxPart writes the text of one slide or notes page. For notes only the
// body placeholder is read: the others repeat the slide image and number.
func pptxPart(z *zipDoc, part string, out *textWriter, notes bool) error {
	s, err := z.xml(part)
	if err != nil {
		return err
	}
	defer s.Close()
	w := &pptxWriter{ooxmlWriter: ooxmlWriter{out: out, b: z.b}, notes: notes}
	if err := walkXML(s, w.start, w.end, w.text); err != nil {
		return err
	}
	return out.Err()
}

// pptxWriter is the state of one pass over a slide or notes part.
type pptxWriter struct {
	ooxmlWriter
	notes bool

	shape string // placeholder type of the current shape ("title", "body", "" for none)
	said  bool   // a notes line was written
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
	case "br":
		w.para.WriteByte('\n')
	default:
		return w.ooxmlWriter.start(e)
	}
	return nil
}

func (w *pptxWriter) end(e xml.EndElement) error {
	switch e.Name.Local {
	case "p":
		return w.paragraph()
	case "tbl":
		// A table on a notes page is left out, like everything there but
		// the body placeholder's paragraphs.
		if tb := w.tables.pop(); tb != nil && !w.notes {
			return tb.write(w.out)
		}
	default:
		return w.ooxmlWriter.end(e)
	}
	return nil
}

// paragraph ends an a:p: into the current table cell, into the quoted
// notes, or out as a line (a heading in a title placeholder).
func (w *pptxWriter) paragraph() error {
	text := w.para.String()
	if w.tables.addToCell(text) {
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
