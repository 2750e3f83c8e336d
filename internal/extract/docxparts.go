package extract

import (
	"bytes"
	"cmp"
	"encoding/base64"
	"encoding/xml"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net/mail"
	"path"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/net/html/charset"
)

// docxParts are the parts of a Word document beside its body that hold
// text, found through the body's relationships or, for a package whose
// relationships leave a kind out, through [Content_Types].xml. Either
// being unreadable leaves the document its body.
type docxParts struct {
	headers, footers              []string
	footnotes, endnotes, comments string
	types                         map[string]string // content types by lower-case part name
}

// docxSideTypes are the content types of those parts, by relationship type.
var docxSideTypes = map[string]string{
	"application/vnd.openxmlformats-officedocument.wordprocessingml.header+xml":    "header",
	"application/vnd.openxmlformats-officedocument.wordprocessingml.footer+xml":    "footer",
	"application/vnd.openxmlformats-officedocument.wordprocessingml.footnotes+xml": "footnotes",
	"application/vnd.openxmlformats-officedocument.wordprocessingml.endnotes+xml":  "endnotes",
	"application/vnd.openxmlformats-officedocument.wordprocessingml.comments+xml":  "comments",
}

func docxPartsOf(z *zipDoc, main string) (docxParts, error) {
	var p docxParts
	add := func(kind, part string) {
		switch kind {
		case "header":
			if !slices.Contains(p.headers, part) && len(p.headers) < maxSideParts {
				p.headers = append(p.headers, part)
			}
		case "footer":
			if !slices.Contains(p.footers, part) && len(p.footers) < maxSideParts {
				p.footers = append(p.footers, part)
			}
		case "footnotes":
			p.footnotes = cmp.Or(p.footnotes, part)
		case "endnotes":
			p.endnotes = cmp.Or(p.endnotes, part)
		case "comments":
			p.comments = cmp.Or(p.comments, part)
		}
	}
	rels, err := z.relList(main)
	if err = besideMain(err); err != nil {
		return p, err
	}
	for _, r := range rels {
		if z.has(r.target) {
			add(r.typ, r.target)
		}
	}
	if p.types, err = z.contentTypes(); besideMain(err) != nil {
		return p, err
	}
	if p.types == nil {
		p.types = map[string]string{}
	}
	// Parts declared beside the body (not a glossary's, in a folder of
	// its own) of a kind the relationships named none of.
	byRels := p
	var declared []string
	for part, ct := range p.types {
		if docxSideTypes[ct] != "" && path.Dir(part) == strings.ToLower(path.Dir(main)) && z.has(part) {
			declared = append(declared, part)
		}
	}
	partOrder(declared)
	for _, part := range declared {
		kind := docxSideTypes[p.types[part]]
		switch {
		case kind == "header" && len(byRels.headers) > 0, kind == "footer" && len(byRels.footers) > 0,
			kind == "footnotes" && byRels.footnotes != "", kind == "endnotes" && byRels.endnotes != "",
			kind == "comments" && byRels.comments != "":
			continue
		}
		add(kind, part)
	}
	partOrder(p.headers)
	partOrder(p.footers)
	return p, nil
}

// docxDoc is what the passes over one Word document's parts share.
type docxDoc struct {
	z        *zipDoc
	styles   map[string]int
	types    map[string]string
	notes    map[string]int  // "footnote 3" -> the number its reference shows
	seen     map[string]bool // chart, diagram, altChunk and picture parts written: each once
	comments int             // comments numbered so far
}

// maxNotes bounds the notes numbered; a reference past it shows the note's
// own id ("[^footnote-5001]").
const maxNotes = 10_000

// noteLabel is the label of a footnote or endnote: its number in the
// order the body refers to them, footnotes and endnotes in one sequence
// (as Markdown has one kind of note), numbered at first sight.
func (d *docxDoc) noteLabel(kind, id string) string {
	key := kind + " " + id
	if n, ok := d.notes[key]; ok {
		return strconv.Itoa(n)
	}
	if len(d.notes) >= maxNotes {
		return kind + "-" + id
	}
	d.notes[key] = len(d.notes) + 1
	return strconv.Itoa(len(d.notes))
}

// sides renders header or footer parts and returns their texts, each
// once: the default, first-page and even-page headers of many sections
// are mostly the same few.
func (d *docxDoc) sides(parts []string) ([]string, error) {
	var texts []string
	held := 0
	for _, part := range parts {
		text, err := renderText(d.z.b, func(out *textWriter) error { return d.read(part, docxBody, "", out) })
		if err != nil {
			if err = besideMain(err); err != nil {
				return nil, err
			}
			continue
		}
		if strings.TrimSpace(text) != "" && !slices.Contains(texts, text) {
			texts = append(texts, text)
			held += len(text)
			if err := d.z.b.hold(held); err != nil {
				return nil, err
			}
		}
	}
	return texts, nil
}

// writeSides writes header or footer texts under one label.
func writeSides(out *textWriter, name string, texts []string) error {
	if len(texts) == 0 {
		return out.Err()
	}
	out.Label(name)
	for _, t := range texts {
		out.Text(t)
		out.Blank()
	}
	return out.Err()
}

// startNote begins a footnote or endnote in footnotes.xml or
// endnotes.xml: its first paragraph is labelled "[^N]: ". The separator
// lines Word keeps there as notes are left out.
func (w *docxWriter) startNote(e xml.StartElement) {
	switch attr(e, "type") {
	case "separator", "continuationSeparator", "continuationNotice":
		w.ignore = true
		return
	}
	w.ignore = false
	w.lead = "[^" + w.doc.noteLabel(e.Name.Local, attr(e, "id")) + "]: "
}

// startComment begins a comment in comments.xml: its first paragraph is
// labelled "[comment N (Author)]: ", N counting the comments in order.
func (w *docxWriter) startComment(e xml.StartElement) {
	w.doc.comments++
	who := oneLine(attr(e, "author"))
	if len(who) > 200 {
		who = who[:200]
	}
	w.lead = "[comment " + strconv.Itoa(w.doc.comments) + "]: "
	if who != "" {
		w.lead = "[comment " + strconv.Itoa(w.doc.comments) + " (" + who + ")]: "
	}
}

// noteLine writes a paragraph of a note or comment: the first behind the
// label, the others indented under it, as Markdown continues a footnote.
func (w *docxWriter) noteLine(text string) error {
	text = strings.TrimSpace(text)
	if w.ignore || text == "" {
		return w.out.Err()
	}
	w.heading()
	if w.lead != "" {
		text, w.lead = w.lead+text, ""
	} else {
		text = "    " + text
	}
	return w.out.Line(strings.ReplaceAll(text, "\n", "\n    "))
}

// heading writes the label of a notes or comments part before its first
// line: a part of separators only, or of empty comments, writes nothing.
func (w *docxWriter) heading() {
	if w.label != "" {
		w.out.Label(w.label)
		w.label = ""
	}
}

// docxObject is a chart, SmartArt diagram or embedded object anchored in
// a paragraph, written after the paragraph's text.
type docxObject struct {
	part    string
	diagram bool
	ole     olePreview // an embedded object: part is ""
}

// anchor queues a chart or diagram part for the end of the paragraph;
// each part is written once, however often it is anchored.
func (w *docxWriter) anchor(part string, diagram bool) {
	if part == "" || w.doc.seen[part] || !w.doc.z.has(part) {
		return
	}
	w.doc.seen[part] = true
	w.after = append(w.after, docxObject{part: part, diagram: diagram})
}

// writeObjects writes the charts and diagrams of the paragraph just
// ended: in the text, or as lines of the table cell the paragraph is in.
func (w *docxWriter) writeObjects() error {
	objs := w.after
	w.after = nil
	nested := w.tables.innermost() != nil
	for _, o := range objs {
		write := func(out *textWriter) error {
			if o.part == "" {
				return writePreview(w.doc.z, o.ole, out)
			}
			if o.diagram {
				return writeDiagram(w.doc.z, o.part, out)
			}
			return writeChart(w.doc.z, o.part, out, nested)
		}
		if err := besideMain(w.place(write)); err != nil {
			return err
		}
	}
	return w.out.Err()
}

// place writes a block (a chart, an altChunk) where the reader is: into
// the current table cell, else into the text.
func (w *docxWriter) place(write func(*textWriter) error) error {
	if w.tables.innermost() == nil {
		w.heading()
		return write(w.out)
	}
	text, err := renderText(w.b, write)
	if err != nil {
		return err
	}
	w.tables.addToCell(text)
	return w.b.hold(len(text))
}

// altChunk writes a part Word imports as it opens the document (w:altChunk):
// HTML, MHT (HTML in a MIME message), plain text or RTF. Other kinds (a
// whole other document) are left out.
func (w *docxWriter) altChunk(part string) error {
	z := w.doc.z
	if part == "" || w.doc.seen[part] || !z.has(part) {
		return nil
	}
	w.doc.seen[part] = true
	kind := strings.ToLower(path.Ext(part))
	switch ct, _, _ := mime.ParseMediaType(w.doc.types[strings.ToLower(part)]); ct {
	case "text/html", "application/xhtml+xml":
		kind = ".html"
	case "message/rfc822", "multipart/related":
		kind = ".mht"
	case "text/plain":
		kind = ".txt"
	case "application/rtf", "text/rtf":
		kind = ".rtf"
	}
	var read func(r io.Reader, out *textWriter) error
	switch kind {
	case ".html", ".htm", ".xhtml", ".xht":
		read = func(r io.Reader, out *textWriter) error { return htmlChunk(z.b, r, "", out) }
	case ".mht", ".mhtml":
		read = func(r io.Reader, out *textWriter) error { return mhtText(z.b, r, out) }
	case ".txt":
		read = func(r io.Reader, out *textWriter) error {
			_, err := io.Copy(textSink{out}, r)
			return err
		}
	case ".rtf":
		read = func(r io.Reader, out *textWriter) error {
			data, err := io.ReadAll(r) // RTF is read from an io.ReaderAt; the inflate budget bounds it
			if err != nil {
				return err
			}
			sections := z.b.sections
			defer func() { z.b.sections = sections }()
			return extractRTF(z.b, bytes.NewReader(data), int64(len(data)), out)
		}
	default:
		return nil
	}
	return besideMain(w.place(func(out *textWriter) error {
		rc, err := z.open(part)
		if err != nil {
			return err
		}
		defer rc.Close()
		out.Blank()
		if err := read(rc, out); err != nil {
			return err
		}
		out.Blank()
		return out.Err()
	}))
}

// textSink writes plain text through a textWriter.
type textSink struct{ out *textWriter }

func (s textSink) Write(p []byte) (int, error) {
	if err := s.out.Text(string(p)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// htmlChunk reads HTML in the character set its content type, its meta
// tag or its bytes say (UTF-8 when nothing does).
func htmlChunk(b *budget, r io.Reader, contentType string, out *textWriter) error {
	if cr, err := charset.NewReader(r, contentType); err == nil {
		r = cr
	}
	return htmlText(b, r, out)
}

// maxMIMEParts bounds the parts of an MHT message looked at for its HTML.
const maxMIMEParts = 64

// mhtText reads the HTML of an MHT file (a MIME message, as Word and
// browsers save a page with its pictures): the first text/html part, or
// the body when the message is not multipart.
func mhtText(b *budget, r io.Reader, out *textWriter) error {
	msg, err := mail.ReadMessage(r)
	if err != nil {
		return unreadable("altChunk MHT: %v", err)
	}
	ct, params, err := mime.ParseMediaType(msg.Header.Get("Content-Type"))
	if err != nil || !strings.HasPrefix(ct, "multipart/") {
		return htmlChunk(b, decodeTransfer(msg.Body, msg.Header.Get("Content-Transfer-Encoding")), msg.Header.Get("Content-Type"), out)
	}
	mr := multipart.NewReader(msg.Body, params["boundary"])
	for range maxMIMEParts {
		part, err := mr.NextPart() // quoted-printable is decoded here
		if err != nil {
			return nil // no HTML part: nothing to read
		}
		if t, _, _ := mime.ParseMediaType(part.Header.Get("Content-Type")); t == "text/html" {
			return htmlChunk(b, decodeTransfer(part, part.Header.Get("Content-Transfer-Encoding")), part.Header.Get("Content-Type"), out)
		}
	}
	return nil
}

// decodeTransfer undoes a transfer encoding (multipart has undone
// quoted-printable already, and says so by dropping the header).
func decodeTransfer(r io.Reader, encoding string) io.Reader {
	switch strings.ToLower(strings.TrimSpace(encoding)) {
	case "base64":
		return base64.NewDecoder(base64.StdEncoding, r)
	case "quoted-printable":
		return quotedprintable.NewReader(r)
	}
	return r
}
