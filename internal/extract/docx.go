package extract

import (
	"encoding/xml"
	"io"
	"regexp"
	"strconv"
	"strings"
)

// extractDOCX reads word/document.xml as a stream: paragraphs become
// lines, heading styles Markdown headings, numbered or bulleted paragraphs
// list items, tables Markdown tables. Deleted revisions, field codes and
// the fallback copies of alternate content are left out. Headers, footers,
// footnotes and comments are not read.
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
	s, err := z.xml(main)
	if err != nil {
		return err
	}
	defer s.Close()
	w := &docxWriter{ooxmlWriter: ooxmlWriter{out: out, b: b}, styles: styles}
	if err := walkXML(s, w.start, w.end, w.text); err != nil {
		return err
	}
	b.sections = 1
	return out.Err()
}

// walkXML calls start, end and text for each token of a part, leaving out
// the mc:Fallback copies of alternate content (the mc:Choice is read).
func walkXML(s *xmlStream, start func(xml.StartElement) error, end func(xml.EndElement) error, text func([]byte) error) error {
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

// docxWriter is the state of one pass over document.xml.
type docxWriter struct {
	ooxmlWriter
	styles map[string]int

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
	if strings.TrimSpace(text) == "" {
		return w.out.Err()
	}
	level := docxLevel(w.styles, w.style)
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
