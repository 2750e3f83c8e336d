package extract

import (
	"encoding/binary"
	"io"
)

// extractDOC reads a Word 97-2003 document (.doc, .dot). The FIB at the
// start of the WordDocument stream locates the piece table (the CLX, in
// the 0Table or 1Table stream), whose pieces map character positions to
// 8-bit (Windows-1252) or UTF-16 text in WordDocument. The text is laid
// out as DOCX's: headers, the body (then its text boxes), footnotes and
// endnotes, comments, footers, each part behind a label when there is
// more than a body:
//
//	--- header ---
//	ACME Corp
//
//	--- body ---
//	The rollout starts in May.[^1]
//
//	--- footnotes ---
//	[^1]: After the freeze.
//
// Notes are numbered in the order the body refers to them, footnotes and
// endnotes in one sequence; headers and footers are written once each.
// Paragraph properties (PAPX) give tables, which become Markdown tables,
// heading styles and list items; fields keep their result and drop their
// code; pictures and objects are dropped. Word 6/95 documents that were
// not fast-saved are read as plain paragraphs.
func extractDOC(b *budget, src io.ReaderAt, size int64, out *textWriter) error {
	d, err := openCFB(b, src, size)
	if err != nil {
		return err
	}
	wd, err := d.stream("WordDocument")
	if err != nil {
		return err
	}
	if wd == nil {
		return d.readAs(DOC, src, size, out, unreadable("no WordDocument stream: not a Word document (%s)", d.holds()))
	}
	fib, err := readFIB(wd)
	if err != nil {
		return err
	}
	if fib.flags&fibEncrypted != 0 {
		return encrypted("password-protected Word document (fEncrypted is set in the FIB)")
	}
	var pieces []docPiece
	var table []byte
	if fib.nFib < 106 {
		// Word 6/95: no piece table unless fast-saved, and paragraph
		// properties in an older form: the text is read as paragraphs.
		if pieces, err = word6Pieces(fib, wd); err != nil {
			return err
		}
	} else {
		tableName := "0Table"
		if fib.flags&fibWhichTable != 0 {
			tableName = "1Table"
		}
		if table, err = d.stream(tableName); err != nil {
			return err
		}
		if table == nil {
			return unreadable("no %s stream", tableName)
		}
		if pieces, err = docPieces(fib, wd, table); err != nil {
			return err
		}
	}
	// Properties, styles, note numbers and comment authors only add
	// structure: when they are missing or broken the text is still read.
	w := &docWriter{out: out, b: b, wd: wd, pieces: pieces,
		paps:    readBtePapx(fib.papx.in(table), wd),
		stis:    readStyles(fib.styles.in(table)),
		notes:   readNoteRefs(fib.footnoteRefs.in(table), fib.endnoteRefs.in(table)),
		authors: readCommentAuthors(fib.commentRefs.in(table), fib.commentOwners.in(table)),
	}
	parts := fib.parts()
	headers, footers, err := w.sides(parts[docHeaders], fib.headers.in(table), parts[docHeaderBoxes])
	if err != nil {
		return err
	}
	if len(headers) > 0 {
		docSides(out, "header", headers)
		out.Label("body")
	}
	for _, p := range []struct {
		part  int
		mode  docMode
		label string
	}{
		{docMain, docInBody, ""}, {docBoxes, docInBody, ""}, {docFootnotes, docInFootnotes, "footnotes"},
		{docEndnotes, docInEndnotes, "endnotes"}, {docComments, docInComments, "comments"},
	} {
		w.mode, w.label, w.count = p.mode, p.label, 0
		if err := w.story(parts[p.part].start, parts[p.part].end); err != nil {
			return err
		}
	}
	docSides(out, "footer", footers)
	b.sections = 1
	return out.Err()
}

// docSpan is a part of the document's text: characters [start, end).
type docSpan struct{ start, end int64 }

// The parts of a document, in the order their character counts follow
// one another in the FIB.
const (
	docMain = iota
	docFootnotes
	docHeaders
	docMacros // unused since Word 97
	docComments
	docEndnotes
	docBoxes
	docHeaderBoxes
	docParts
)

// parts are the character spans of the document's parts.
func (f docFIB) parts() [docParts]docSpan {
	var spans [docParts]docSpan
	cp := int64(0)
	for i, n := range f.ccp {
		spans[i] = docSpan{cp, cp + max(n, 0)}
		cp = spans[i].end
	}
	return spans
}

// The FIB flags read.
const (
	fibComplex    = 0x0004 // fast-saved: the text is in pieces
	fibEncrypted  = 0x0100
	fibWhichTable = 0x0200
)

// docRange is an offset and a length in the table stream, as the FIB
// gives them.
type docRange struct{ fc, lcb uint32 }

// in is the range's bytes, nil when it is empty or lies outside p.
func (r docRange) in(p []byte) []byte {
	end := int64(r.fc) + int64(r.lcb)
	if r.lcb == 0 || end > int64(len(p)) {
		return nil
	}
	return p[r.fc:end]
}

// docFIB is what is read from the File Information Block.
type docFIB struct {
	nFib    uint16
	flags   uint16
	ccp     [docParts]int64
	styles  docRange // STSH: the style sheet
	headers docRange // PlcfHdd: where each header and footer starts
	papx    docRange // PlcBtePapx: where paragraph properties are
	clx     docRange // the piece table
	// PlcffndRef, PlcfendRef, PlcfandRef: where the body refers to notes
	// and comments; GrpXstAtnOwners: the comments' authors.
	footnoteRefs, endnoteRefs, commentRefs, commentOwners docRange
	fcMin                                                 int64 // Word 6/95: where the text starts
}

// readFIB reads the FIB: FibBase, then the counted arrays fibRgW,
// fibRgLw (the character counts) and fibRgFcLcb (offsets into the table
// stream), each length checked against the stream.
func readFIB(wd []byte) (docFIB, error) {
	var f docFIB
	if len(wd) < 34 {
		return f, unreadable("WordDocument stream of %d bytes: no FIB", len(wd))
	}
	id := binary.LittleEndian.Uint16(wd)
	if id != 0xA5EC && id != 0xA5DC { // Word 97 and later; Word 6/95
		return f, unreadable("not a Word 6-2003 document (FIB identifier %#04x)", id)
	}
	f.nFib = binary.LittleEndian.Uint16(wd[2:])
	f.flags = binary.LittleEndian.Uint16(wd[10:])
	if f.flags&fibEncrypted != 0 {
		return f, nil // the rest is encrypted
	}
	if f.nFib < 106 {
		// Word 6/95: a fixed layout, the text from fcMin on and its
		// character counts at 0x34.
		if len(wd) < 0x54 {
			return f, unreadable("FIB cut short")
		}
		f.fcMin = int64(binary.LittleEndian.Uint32(wd[0x18:]))
		for i := range f.ccp {
			f.ccp[i] = int64(int32(binary.LittleEndian.Uint32(wd[0x34+4*i:])))
		}
		return f, nil
	}
	pos := 34 + 2*int(binary.LittleEndian.Uint16(wd[32:])) // past fibRgW
	if pos+2 > len(wd) {
		return f, unreadable("FIB cut short")
	}
	cslw := int(binary.LittleEndian.Uint16(wd[pos:]))
	lw := pos + 2
	pos = lw + 4*cslw
	if pos+2 > len(wd) {
		return f, unreadable("FIB cut short")
	}
	for i := range f.ccp {
		if 3+i < cslw {
			f.ccp[i] = int64(int32(binary.LittleEndian.Uint32(wd[lw+4*(3+i):])))
		}
	}
	pairs := int(binary.LittleEndian.Uint16(wd[pos:]))
	blob := pos + 2
	if blob+8*pairs > len(wd) {
		return f, unreadable("FIB cut short")
	}
	pair := func(i int) docRange {
		if i >= pairs {
			return docRange{}
		}
		p := wd[blob+8*i:]
		return docRange{binary.LittleEndian.Uint32(p), binary.LittleEndian.Uint32(p[4:])}
	}
	f.styles, f.headers, f.papx, f.clx = pair(1), pair(11), pair(13), pair(33)
	f.footnoteRefs, f.commentRefs, f.commentOwners, f.endnoteRefs = pair(2), pair(4), pair(36), pair(46)
	return f, nil
}

// docPiece is a run of characters stored together: characters
// [cp, cpEnd) are at byte fc of WordDocument, one byte each
// (Windows-1252) when compressed, else two (UTF-16LE).
type docPiece struct {
	cp, cpEnd  int64
	fc         int64
	compressed bool
}

// maxPieces bounds the piece table: a document edited for years and
// fast-saved each time has thousands.
const maxPieces = 1 << 20

// docPieces reads the piece table: the CLX is a run of property blocks
// (clxt 1) and then the PlcPcd (clxt 2): n+1 character positions and n
// 8-byte piece descriptors. A piece whose text runs past the stream is
// cut at its end.
func docPieces(fib docFIB, wd, table []byte) ([]docPiece, error) {
	clx := fib.clx.in(table)
	if clx == nil {
		return nil, unreadable("no piece table (CLX at %d+%d in a %d-byte table stream)", fib.clx.fc, fib.clx.lcb, len(table))
	}
	pos := 0
	for pos < len(clx) && clx[pos] == 1 { // a Prc: clxt, cbGrpprl, grpprl
		if pos+3 > len(clx) {
			return nil, unreadable("piece table cut short")
		}
		n := int(int16(binary.LittleEndian.Uint16(clx[pos+1:])))
		if n < 0 {
			return nil, unreadable("piece table: negative property size")
		}
		pos += 3 + n
	}
	if pos+5 > len(clx) || clx[pos] != 2 {
		return nil, unreadable("piece table: no PlcPcd")
	}
	lcb := int64(binary.LittleEndian.Uint32(clx[pos+1:]))
	plc := clx[pos+5:]
	if lcb > int64(len(plc)) || lcb < 16 || (lcb-4)%12 != 0 {
		return nil, unreadable("piece table: PlcPcd of %d bytes", lcb)
	}
	n := int((lcb - 4) / 12)
	if n > maxPieces {
		return nil, overLimit("a piece table of %d pieces, more than %d", n, maxPieces)
	}
	pcds := plc[4*(n+1):]
	pieces := make([]docPiece, 0, n)
	prev := int64(0)
	for i := range n {
		cp := int64(binary.LittleEndian.Uint32(plc[4*i:]))
		cpEnd := int64(binary.LittleEndian.Uint32(plc[4*i+4:]))
		if cp < prev || cpEnd < cp {
			return nil, unreadable("piece table: character positions out of order at piece %d", i)
		}
		prev = cpEnd
		raw := binary.LittleEndian.Uint32(pcds[8*i+2:])
		p := docPiece{cp: cp, cpEnd: cpEnd, fc: int64(raw & 0x3FFFFFFF), compressed: raw&0x40000000 != 0}
		width := int64(2)
		if p.compressed {
			p.fc /= 2
			width = 1
		}
		if avail := (int64(len(wd)) - p.fc) / width; p.cpEnd-p.cp > avail {
			p.cpEnd = p.cp + max(avail, 0)
		}
		if p.cpEnd > p.cp {
			pieces = append(pieces, p)
		}
	}
	return pieces, nil
}

// word6Pieces is the text of a Word 6/95 document that was not
// fast-saved: one run of 8-bit characters (Windows-1252 is assumed) from
// fcMin on. A fast-saved one, whose text is in pieces, is refused.
func word6Pieces(fib docFIB, wd []byte) ([]docPiece, error) {
	if fib.flags&fibComplex != 0 {
		return nil, unreadable("a fast-saved Word 6/95 document (nFib %d): only Word 97 and later are read", fib.nFib)
	}
	var n int64
	for _, c := range fib.ccp {
		n += max(c, 0)
	}
	n = min(n, int64(len(wd))-fib.fcMin)
	if n <= 0 {
		return nil, unreadable("Word 6/95 text at %d past the %d-byte WordDocument stream", fib.fcMin, len(wd))
	}
	return []docPiece{{cp: 0, cpEnd: n, fc: fib.fcMin, compressed: true}}, nil
}
