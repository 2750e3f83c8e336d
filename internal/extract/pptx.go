package extract

import (
	"encoding/xml"
	"io"
	"slices"
	"strings"
)

// extractPPTX writes each slide, in presentation order, behind a
// "--- slide N ---" marker: title placeholders as headings, other text
// frames line by line, tables as Markdown tables, charts as their title
// and a table of their data, SmartArt diagrams their text, then the
// speaker notes as a quoted "Notes:" block. Text the slide masters and
// layouts put on the slides (not their placeholders, whose prompts such as
// "Click to edit Master title style" a slide replaces) comes first, once,
// behind "--- slide master ---".
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
	deck := &pptxDeck{z: z, vml: map[string]map[string]string{}}
	if err := deck.masters(slides, out); err != nil {
		return err
	}
	for i, part := range slides {
		if err := b.section("slide"); err != nil {
			return err
		}
		if err := out.Marker("slide", i+1, ""); err != nil {
			return err
		}
		rels, err := z.relList(part)
		if err != nil {
			return err
		}
		if err := deck.part(part, rels, out, pptxSlide); err != nil {
			return err
		}
		if notes := relOfType(rels, "notesSlide"); notes != "" && z.has(notes) {
			notesRels, err := z.relList(notes)
			if err != nil {
				return err
			}
			if err := deck.part(notes, notesRels, out, pptxNotes); err != nil {
				return err
			}
		}
	}
	return out.Err()
}

// relOfType is the target of the first relationship of a type, "" for none.
func relOfType(rels []ooxmlRel, typ string) string {
	for _, r := range rels {
		if r.typ == typ {
			return r.target
		}
	}
	return ""
}

// pptxDeck is what the passes over one presentation's parts share.
type pptxDeck struct {
	z   *zipDoc
	vml map[string]map[string]string // VML drawing part -> its pictures (vmlPictures)
}

// masters writes the text of the slide layouts and masters the slides
// use, in the order the slides first use them, each part once.
func (d *pptxDeck) masters(slides []string, out *textWriter) error {
	var parts []string
	add := func(part string) bool {
		if part == "" || !d.z.has(part) || slices.Contains(parts, part) || len(parts) >= maxSideParts {
			return false
		}
		parts = append(parts, part)
		return true
	}
	for _, slide := range slides {
		if len(parts) >= maxSideParts {
			break
		}
		layout, err := d.z.relByType(slide, "slideLayout")
		if err != nil {
			if err = besideMain(err); err != nil {
				return err
			}
			continue
		}
		if !add(layout) {
			continue
		}
		master, err := d.z.relByType(layout, "slideMaster")
		if err != nil {
			if err = besideMain(err); err != nil {
				return err
			}
			continue
		}
		add(master)
	}
	var texts []string
	held := 0
	for _, part := range parts {
		rels, err := d.z.relList(part)
		if err != nil {
			if err = besideMain(err); err != nil {
				return err
			}
			continue
		}
		text, err := renderText(d.z.b, func(o *textWriter) error { return d.part(part, rels, o, pptxMaster) })
		if err != nil {
			if err = besideMain(err); err != nil {
				return err
			}
			continue
		}
		if strings.TrimSpace(text) != "" && !slices.Contains(texts, text) {
			texts = append(texts, text)
			held += len(text)
			if err := d.z.b.hold(held); err != nil {
				return err
			}
		}
	}
	if len(texts) == 0 {
		return out.Err()
	}
	out.Label("slide master")
	for _, t := range texts {
		out.Text(t)
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

// pptxKind is what a part is to the reader.
type pptxKind int

const (
	pptxSlide  pptxKind = iota
	pptxNotes           // a notes page: only the body placeholder is read, the others repeat the slide image and number
	pptxMaster          // a slide layout or master: only shapes that are not placeholders
)

// part writes the text of one slide, notes page, layout or master.
func (d *pptxDeck) part(part string, rels []ooxmlRel, out *textWriter, kind pptxKind) error {
	s, err := d.z.xml(part)
	if err != nil {
		return err
	}
	defer s.Close()
	ids := make(map[string]string, len(rels))
	for _, r := range rels {
		ids[r.id] = r.target
	}
	w := &pptxWriter{ooxmlWriter: ooxmlWriter{out: out, b: d.z.b}, deck: d, rels: ids, kind: kind, vml: relOfType(rels, "vmlDrawing"), seen: map[string]bool{}}
	if err := walkXMLFallback(s, w.start, w.end, w.text, w.fallback); err != nil {
		return err
	}
	return out.Err()
}

// pptxWriter is the state of one pass over a slide, notes page, layout
// or master.
type pptxWriter struct {
	ooxmlWriter
	deck *pptxDeck
	rels map[string]string // r:id -> part, of the part being read
	kind pptxKind

	shape string          // placeholder type of the current shape ("title", "body", "" for none)
	said  bool            // a notes line was written
	ole   *olePreview     // the embedded object of the open graphic frame
	vml   string          // the part's legacy VML drawing, where older objects keep their pictures
	seen  map[string]bool // chart, diagram and picture parts written from this part: each once
}

// object writes a chart or a diagram a slide's graphic frame holds.
func (w *pptxWriter) object(id string, diagram bool) error {
	part := w.rels[id]
	if w.kind == pptxNotes || part == "" || w.seen[part] || !w.deck.z.has(part) {
		return nil
	}
	w.seen[part] = true
	if diagram {
		return besideMain(writeDiagram(w.deck.z, part, w.out))
	}
	return besideMain(writeChart(w.deck.z, part, w.out, false))
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
	case "chart": // c:chart r:id, in a graphic frame
		return w.object(attr(e, "id"), false)
	case "oleObj", "blip":
		w.fallback(e)
	case "relIds": // dgm:relIds r:dm, a SmartArt diagram's data model
		return w.object(attr(e, "dm"), true)
	default:
		return w.ooxmlWriter.start(e)
	}
	return nil
}

// fallback notes an embedded object (p:oleObj progId) and its picture
// (a:blip r:embed in the object's p:pic), which PowerPoint writes only in
// the mc:Fallback copy when the mc:Choice points at a VML shape instead.
func (w *pptxWriter) fallback(e xml.StartElement) {
	switch e.Name.Local {
	case "oleObj":
		if w.ole == nil {
			w.ole = &olePreview{progID: attr(e, "progId"), shape: attr(e, "spid")}
		}
	case "blip":
		if w.ole != nil && w.ole.preview == "" {
			w.ole.preview = w.rels[attr(e, "embed")]
		}
	}
}

func (w *pptxWriter) end(e xml.EndElement) error {
	switch e.Name.Local {
	case "graphicFrame":
		o := w.ole
		w.ole = nil
		if o == nil || w.kind == pptxNotes {
			return nil
		}
		if o.preview == "" && o.shape != "" && w.vml != "" {
			pics, err := w.deck.vmlPictures(w.vml)
			if err != nil {
				return err
			}
			o.preview = pics[o.shape]
		}
		if o.preview == "" || w.seen[o.preview] {
			return nil
		}
		w.seen[o.preview] = true
		return besideMain(writePreview(w.deck.z, *o, w.out))
	case "p":
		return w.paragraph()
	case "tbl":
		// A table on a notes page is left out, like everything there but
		// the body placeholder's paragraphs.
		if tb := w.tables.pop(); tb != nil && w.kind != pptxNotes {
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
	case w.kind == pptxMaster:
		if w.shape != "" {
			return nil // a placeholder's prompt, or a date or number field
		}
	case w.kind == pptxNotes:
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
