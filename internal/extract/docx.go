package extract

import (
	"cmp"
	"encoding/xml"
	"io"
	"regexp"
	"strconv"
	"strings"
)

// extractDOCX reads a Word document: its headers, then its body
// (word/document.xml, as a stream: paragraphs become lines, heading styles
// Markdown headings, numbered or bulleted paragraphs list items, tables
// Markdown tables, charts and SmartArt their text, altChunk HTML and RTF
// their text), its footnotes and endnotes, its comments, then its
// footers:
//
//	--- header ---
//	ACME Corp — Internal
//
//	--- body ---
//	The rollout starts in May.[^1]
//
//	--- footnotes ---
//	[^1]: After the freeze.
//
//	--- comments ---
//	[comment 1 (Ana)]: Which May?
//
//	--- footer ---
//	Page 1
//
// Notes are numbered in the order the body refers to them, footnotes and
// endnotes in one sequence; headers and footers are written once each,
// however many sections repeat them. Deleted revisions, field codes and
// the fallback copies of alternate content are left out.
func extractDOCX(b *budget, src io.ReaderAt, size int64, out *textWriter) error {
	z, err := openZip(b, src, size)
	if err != nil {
		return err
	}
	main, err := z.mainPart("word/document.xml")
	if err != nil {
		return err
	}
	styles, err := docxHeadingStyles(z)
	if err != nil {
		return err
	}
	parts, err := docxPartsOf(z, main)
	if err != nil {
		return err
	}
	d := &docxDoc{z: z, styles: styles, types: parts.types, notes: map[string]int{}, seen: map[string]bool{}}
	headers, err := d.sides(parts.headers)
	if err != nil {
		return err
	}
	if len(headers) > 0 {
		writeSides(out, "header", headers)
		out.Label("body")
	}
	if err := d.read(main, docxBody, "", out); err != nil {
		return err
	}
	for _, p := range []struct {
		part, name string
		mode       docxMode
	}{{parts.footnotes, "footnotes", docxNotes}, {parts.endnotes, "endnotes", docxNotes}, {parts.comments, "comments", docxComments}} {
		if p.part == "" {
			continue
		}
		if err := besideMain(d.read(p.part, p.mode, p.name, out)); err != nil {
			return err
		}
	}
	footers, err := d.sides(parts.footers)
	if err != nil {
		return err
	}
	writeSides(out, "footer", footers)
	b.sections = 1
	return out.Err()
}

// docxMode is what a part is to the reader.
type docxMode int

const (
	docxBody     docxMode = iota // document.xml, a header or a footer
	docxNotes                    // footnotes.xml or endnotes.xml
	docxComments                 // comments.xml
)

// read writes one part of the document; a notes or comments part writes
// its label (name) before its first line.
func (d *docxDoc) read(part string, mode docxMode, name string, out *textWriter) error {
	rels, err := d.z.rels(part)
	if err = besideMain(err); err != nil {
		return err
	}
	s, err := d.z.xml(part)
	if err != nil {
		return err
	}
	defer s.Close()
	w := &docxWriter{ooxmlWriter: ooxmlWriter{out: out, b: d.z.b}, doc: d, rels: rels, mode: mode, label: name}
	if err := walkXML(s, w.start, w.end, w.text); err != nil {
		return err
	}
	if err := w.writeObjects(); err != nil { // anchored in a paragraph never closed
		return err
	}
	return out.Err()
}

// walkXML calls start, end and text for each token of a part, leaving out
// the mc:Fallback copies of alternate content (the mc:Choice is read).
func walkXML(s *xmlStream, start func(xml.StartElement) error, end func(xml.EndElement) error, text func([]byte) error) error {
	return walkXMLFallback(s, start, end, text, nil)
}

// walkXMLFallback is walkXML that shows fallback the start elements of
// the mc:Fallback copies, for what only they hold (the picture of an
// embedded object whose mc:Choice names none).
func walkXMLFallback(s *xmlStream, start func(xml.StartElement) error, end func(xml.EndElement) error, text func([]byte) error, fallback func(xml.StartElement)) error {
	skip := 0
	for {
		tok, err := s.next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if skip > 0 || t.Name.Local == "Fallback" {
				skip++
				if fallback != nil {
					fallback(t)
				}
				continue
			}
			if err := start(t); err != nil {
				return err
			}
		case xml.EndElement:
			if skip > 0 {
				skip--
				continue
			}
			if err := end(t); err != nil {
				return err
			}
		case xml.CharData:
			if skip == 0 {
				if err := text(t); err != nil {
					return err
				}
			}
		}
	}
}

var headingStyleName = regexp.MustCompile(`(?i)^heading\s*([1-9])$`)

// docxHeadingStyles maps paragraph style ids to heading levels, from each
// style's name ("heading 2", "Title") or outline level.
func docxHeadingStyles(z *zipDoc) (map[string]int, error) {
	levels := map[string]int{}
	if !z.has("word/styles.xml") {
		return levels, nil
	}
	var id string
	for e, err := range z.starts("word/styles.xml") {
		if err != nil {
			return nil, err
		}
		switch e.Name.Local {
		case "style":
			id = attr(e, "styleId")
		case "name":
			name := attr(e, "val")
			if m := headingStyleName.FindStringSubmatch(name); m != nil {
				levels[id] = int(m[1][0] - '0')
			} else if strings.EqualFold(name, "title") {
				levels[id] = 1
			}
		case "outlineLvl":
			if n, err := strconv.Atoi(attr(e, "val")); err == nil && n >= 0 && n < 9 && id != "" {
				if _, named := levels[id]; !named {
					levels[id] = n + 1
				}
			}
		}
	}
	return levels, nil
}

// docxLevel is the heading level of a paragraph style, falling back on
// ids such as "Heading2" when styles.xml says nothing.
func docxLevel(styles map[string]int, id string) int {
	if l, ok := styles[id]; ok {
		return l
	}
	if m := headingStyleName.FindStringSubmatch(id); m != nil {
		return int(m[1][0] - '0')
	}
	if strings.EqualFold(id, "title") {
		return 1
	}
	return 0
}

// docxWriter is the state of one pass over a part.
type docxWriter struct {
	ooxmlWriter
	doc   *docxDoc
	rels  map[string]string // r:id -> part, of the part being read
	mode  docxMode
	label string       // the part's label, until its first line is written
	lead  string       // a note's or comment's label, until its first paragraph
	after []docxObject // charts, diagrams and objects of the open paragraph
	ole   *olePreview  // the w:object being read
	// ignore: in a note that is a separator line, not text
	ignore bool

	style   string
	list    bool
	level   int
	outline int
	inPara  bool
	outer   []docxPara // paragraphs a text box's paragraphs interrupted
	inPPr   bool       // inside paragraph properties, where w:tab is a tab stop
}

// docxPara is a paragraph set aside while a text box inside it is read.
type docxPara struct {
	text           string
	style          string
	list           bool
	level, outline int
}

func (w *docxWriter) start(e xml.StartElement) error {
	switch e.Name.Local {
	case "p":
		if w.inPara {
			// A w:p inside an open w:p: what a text box in a paragraph
			// does, and what a document of nothing but opening w:p
			// tags does two million times.
			if len(w.outer) >= maxTableDepth {
				return overLimit("paragraphs nested more than %d deep (a w:p inside a w:p, as a text box nests them)", maxTableDepth)
			}
			w.outer = append(w.outer, docxPara{w.para.String(), w.style, w.list, w.level, w.outline})
		}
		w.inPara = true
		w.para.Reset()
		w.style, w.list, w.level, w.outline = "", false, 0, 0
	case "pPr":
		w.inPPr = true
	case "pStyle":
		w.style = attr(e, "val")
	case "numPr":
		w.list = true
	case "ilvl":
		w.level, _ = strconv.Atoi(attr(e, "val"))
	case "outlineLvl":
		if n, err := strconv.Atoi(attr(e, "val")); err == nil && n < 9 {
			w.outline = n + 1
		}
	case "tab":
		if !w.inPPr {
			w.para.WriteByte('\t')
		}
	case "br", "cr":
		w.para.WriteByte('\n')
	case "noBreakHyphen":
		w.para.WriteByte('-')
	case "footnoteReference", "endnoteReference":
		w.para.WriteString("[^" + w.doc.noteLabel(strings.TrimSuffix(e.Name.Local, "Reference"), attr(e, "id")) + "]")
		return w.b.hold(w.para.Len())
	case "footnote", "endnote":
		if w.mode == docxNotes {
			w.startNote(e)
		}
	case "comment":
		if w.mode == docxComments {
			w.startComment(e)
		}
	case "chart": // c:chart r:id, in a drawing
		w.anchor(w.rels[attr(e, "id")], false)
	case "relIds": // dgm:relIds r:dm, a SmartArt diagram's data model
		w.anchor(w.rels[attr(e, "dm")], true)
	case "altChunk":
		return w.altChunk(w.rels[attr(e, "id")])
	case "object": // w:object: an embedded object and its picture
		w.ole = &olePreview{}
	case "OLEObject", "objectEmbed": // o:OLEObject ProgID, w:objectEmbed w:progId
		if w.ole != nil && w.ole.progID == "" {
			w.ole.progID = cmp.Or(attr(e, "ProgID"), attr(e, "progId"))
		}
	case "imagedata", "blip": // v:imagedata r:id, a:blip r:embed
		if w.ole != nil && w.ole.preview == "" {
			w.ole.preview = w.rels[cmp.Or(attr(e, "id"), attr(e, "embed"))]
		}
	default:
		return w.ooxmlWriter.start(e)
	}
	return nil
}

func (w *docxWriter) end(e xml.EndElement) error {
	switch e.Name.Local {
	case "pPr":
		w.inPPr = false
	case "p":
		err := w.paragraph()
		if err == nil {
			err = w.writeObjects()
		}
		w.inPara = false
		if n := len(w.outer); n > 0 {
			// Back to the paragraph the text box sat in.
			o := w.outer[n-1]
			w.outer = w.outer[:n-1]
			w.para.Reset()
			w.para.WriteString(o.text)
			w.style, w.list, w.level, w.outline = o.style, o.list, o.level, o.outline
			w.inPara = true
		}
		return err
	case "footnote", "endnote", "comment":
		w.lead, w.ignore = "", false
	case "object":
		if w.ole != nil && w.ole.preview != "" && !w.doc.seen[w.ole.preview] && len(w.after) < maxSideParts {
			w.doc.seen[w.ole.preview] = true
			w.after = append(w.after, docxObject{ole: *w.ole})
		}
		w.ole = nil
	case "tbl":
		if len(w.tables) == 1 {
			w.heading() // the outermost table is written now
		}
		return w.ooxmlWriter.end(e)
	default:
		return w.ooxmlWriter.end(e)
	}
	return nil
}

// paragraph ends a w:p: into the current table cell, or out as a line.
func (w *docxWriter) paragraph() error {
	text := w.para.String()
	if w.tables.addToCell(text) {
		return nil
	}
	if w.mode != docxBody {
		return w.noteLine(text)
	}
	if strings.TrimSpace(text) == "" {
		return w.out.Err()
	}
	level := docxLevel(w.doc.styles, w.style)
	if level == 0 {
		level = w.outline
	}
	switch {
	case level > 0:
		return w.out.Heading(level, text)
	case w.list:
		return w.out.Line(strings.Repeat("  ", min(max(w.level, 0), 8)) + "- " + strings.TrimSpace(text))
	}
	return w.out.Line(text)
}
