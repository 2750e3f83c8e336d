package extract

import (
	"encoding/binary"
	"io"
	"unicode/utf16"
)

// extractPPT reads a PowerPoint 97-2003 presentation (.ppt, .pps, .pot).
// The "PowerPoint Document" stream is a tree of records; the Current User
// stream points at the last edit, whose persist directory maps object ids
// to record offsets (a document saved incrementally keeps its stale
// copies, which this leaves unread). The DocumentContainer lists the
// slides in order (SlideListWithText) with their placeholder text; each
// slide's drawing holds its other text boxes and refers to the
// placeholder text in list order. Each slide is written behind a
// "--- slide N ---" marker like PPTX (after the masters' own text, once,
// behind "--- slide master ---"): titles as headings, other text line
// by line, comments as "[comment] …", the speaker notes as a quoted
// "Notes:" block. Master slides are not read.
func extractPPT(b *budget, src io.ReaderAt, size int64, out *textWriter) error {
	d, err := openCFB(b, src, size)
	if err != nil {
		return err
	}
	if d.has("EncryptedSummary") {
		return encrypted("password-protected PowerPoint presentation (EncryptedSummary stream)")
	}
	ppd, err := d.stream("PowerPoint Document")
	if err != nil {
		return err
	}
	if ppd == nil {
		return d.readAs(PPT, src, size, out, unreadable("no PowerPoint Document stream: not a PowerPoint presentation (%s)", d.holds()))
	}
	user, err := d.stream("Current User")
	if err != nil {
		return err
	}
	r := &pptReader{b: b, ppd: ppd, persist: map[uint32]uint32{}}
	doc, err := r.document(user)
	if err != nil {
		return err
	}
	slides, total, notes, err := r.slideLists(doc)
	if err != nil {
		return err
	}
	if err := r.writeMasters(out); err != nil {
		return err
	}
	notesByID := make(map[uint32]pptListEntry, len(notes))
	for _, n := range notes {
		notesByID[n.slideID] = n
	}
	for i, s := range slides {
		if err := b.section("slide"); err != nil {
			return err
		}
		if err := out.Marker("slide", i+1, ""); err != nil {
			return err
		}
		if err := r.slide(s, notesByID, out); err != nil {
			return err
		}
	}
	if total > len(slides) {
		// Past the page limit the first MaxPages slides are read, and the
		// text is cut short there (Extract) unless they held none.
		return cutOff(sectionsLeft("slide", len(slides), total), "%d slides, more than %d", total, len(slides))
	}
	return out.Err()
}

// Record types read.
const (
	pptDocument          = 0x03E8
	pptSlide             = 0x03EE
	pptSlideAtom         = 0x03EF
	pptNotes             = 0x03F0
	pptSlidePersistAtom  = 0x03F3
	pptOutlineTextRef    = 0x0F9E
	pptTextHeader        = 0x0F9F
	pptTextChars         = 0x0FA0
	pptTextBytes         = 0x0FA8
	pptCString           = 0x0FBA
	pptSlideListWithText = 0x0FF0
	pptUserEdit          = 0x0FF5
	pptPersistDirectory  = 0x1772
	pptCommentRec        = 0x2EE0
	pptBinaryTagData     = 0x138B
	pptMainMaster        = 0x03F8
	pptPlaceholderAtom   = 0x0BC3
	pptShape             = 0xF004
	pptClientData        = 0xF011
	pptClientTextbox     = 0xF00D
)

// Text types (TextHeaderAtom) that are titles, and the notes' body.
const (
	pptTitle       = 0
	pptNotesText   = 2
	pptCenterTitle = 6
)

// maxRecordDepth bounds records nested in records; a slide's groups of
// shapes nest ten or so deep.
const maxRecordDepth = 64

// pptRec is one record: its header's instance and type, and its body.
type pptRec struct {
	inst, typ uint16
	container bool
	body      []byte
}

// pptRecAt reads the record at off in p; ok is false when its header or
// body runs past p.
func pptRecAt(p []byte, off int64) (r pptRec, next int64, ok bool) {
	if off < 0 || off+8 > int64(len(p)) {
		return r, 0, false
	}
	h := binary.LittleEndian.Uint16(p[off:])
	r.inst, r.container = h>>4, h&0xF == 0xF
	r.typ = binary.LittleEndian.Uint16(p[off+2:])
	end := off + 8 + int64(binary.LittleEndian.Uint32(p[off+4:]))
	if end > int64(len(p)) {
		return r, 0, false
	}
	r.body = p[off+8 : end]
	return r, end, true
}

// pptReader reads one presentation's records.
type pptReader struct {
	b        *budget
	ppd      []byte
	persist  map[uint32]uint32 // persist object id to its offset in ppd
	masters  []pptListEntry    // the slide masters, as the master list gives them
	records  int
	comments int // written so far
}

// each calls fn on each record in p, a container's body, and charges it
// to the budget; a record running past p ends the walk.
func (r *pptReader) each(p []byte, fn func(pptRec) error) error {
	for off := int64(0); ; {
		rec, next, ok := pptRecAt(p, off)
		if !ok {
			return nil
		}
		r.records++
		if r.records%1024 == 0 {
			if err := r.b.alive(); err != nil {
				return err
			}
		}
		if err := fn(rec); err != nil {
			return err
		}
		off = next
	}
}

// record is the record a persist object id points at, of type typ.
func (r *pptReader) record(id uint32, typ uint16) (pptRec, bool) {
	off, ok := r.persist[id]
	if !ok {
		return pptRec{}, false
	}
	rec, _, ok := pptRecAt(r.ppd, int64(off))
	return rec, ok && rec.typ == typ
}

// maxEdits bounds the chain of incremental saves followed.
const maxEdits = 10_000

// document finds the DocumentContainer of the last edit. The Current User
// stream gives its UserEditAtom, each edit points at the one before, and
// their persist directories, newest first, map ids to offsets. Without a
// usable Current User stream the stream's top-level records are scanned
// for the same atoms.
func (r *pptReader) document(user []byte) (pptRec, error) {
	edit := int64(-1)
	if len(user) >= 20 {
		switch token := binary.LittleEndian.Uint32(user[12:]); token {
		case 0xF3D1C4DF:
			return pptRec{}, encrypted("password-protected PowerPoint presentation (Current User header token)")
		case 0xE391C05F:
			edit = int64(binary.LittleEndian.Uint32(user[16:]))
		}
	}
	docRef, ok := uint32(0), false
	seen := map[int64]bool{}
	for edit >= 0 && !seen[edit] && len(seen) < maxEdits {
		seen[edit] = true
		rec, _, found := pptRecAt(r.ppd, edit)
		if !found || rec.typ != pptUserEdit || len(rec.body) < 20 {
			break
		}
		if len(rec.body) >= 32 {
			return pptRec{}, encrypted("password-protected PowerPoint presentation (an encryption session in the last edit)")
		}
		if !ok {
			docRef, ok = binary.LittleEndian.Uint32(rec.body[16:]), true
		}
		dir, _, found := pptRecAt(r.ppd, int64(binary.LittleEndian.Uint32(rec.body[12:])))
		if found && dir.typ == pptPersistDirectory {
			if err := r.persistDirectory(dir.body, false); err != nil {
				return pptRec{}, err
			}
		}
		edit = int64(binary.LittleEndian.Uint32(rec.body[8:]))
		if edit == 0 {
			break // the first save
		}
	}
	if ok {
		if doc, found := r.record(docRef, pptDocument); found {
			return doc, nil
		}
	}
	return r.scanDocument()
}

// scanDocument finds the DocumentContainer by walking the stream's
// top-level records in order, later persist directories and edits
// overriding earlier ones; the last DocumentContainer seen is the
// fallback.
func (r *pptReader) scanDocument() (pptRec, error) {
	clear(r.persist)
	var doc pptRec
	docRef, found := uint32(0), false
	if err := r.b.charge(int64(len(r.ppd))); err != nil {
		return doc, err
	}
	err := r.each(r.ppd, func(rec pptRec) error {
		switch rec.typ {
		case pptDocument:
			doc = rec
		case pptUserEdit:
			if len(rec.body) >= 32 {
				return encrypted("password-protected PowerPoint presentation (an encryption session in an edit)")
			}
			if len(rec.body) >= 20 {
				docRef, found = binary.LittleEndian.Uint32(rec.body[16:]), true
			}
		case pptPersistDirectory:
			return r.persistDirectory(rec.body, true)
		}
		return nil
	})
	if err != nil {
		return doc, err
	}
	if found {
		if d, ok := r.record(docRef, pptDocument); ok {
			return d, nil
		}
	}
	if doc.body == nil {
		return doc, unreadable("no DocumentContainer: not a PowerPoint 97-2003 presentation")
	}
	return doc, nil
}

// maxPersist bounds the persist directory: a deck's slides, notes,
// masters and embedded objects number in the thousands.
const maxPersist = 1 << 20

// persistDirectory adds a PersistDirectoryAtom's entries: runs of
// consecutive ids (20 bits of id, 12 of count) and their offsets. Entries
// already known come from a newer edit and stay, unless newer is set.
func (r *pptReader) persistDirectory(p []byte, newer bool) error {
	if err := r.b.charge(int64(len(p))); err != nil {
		return err
	}
	for pos := 0; pos+4 <= len(p); {
		h := binary.LittleEndian.Uint32(p[pos:])
		id, n := h&0xFFFFF, int(h>>20)
		pos += 4
		for i := 0; i < n && pos+4 <= len(p); i++ {
			if len(r.persist) >= maxPersist {
				return overLimit("more than %d persist objects", maxPersist)
			}
			if _, known := r.persist[id+uint32(i)]; newer || !known {
				r.persist[id+uint32(i)] = binary.LittleEndian.Uint32(p[pos:])
			}
			pos += 4
		}
	}
	return nil
}

// pptText is one text box's text and its type (title, body, notes...).
type pptText struct {
	typ  uint32
	text string
}

// pptListEntry is a slide or notes page as SlideListWithText lists it:
// the persist id of its container, its id, and its placeholder text.
type pptListEntry struct {
	persistRef, slideID uint32
	texts               []pptText
}

// slideLists reads the DocumentContainer's SlideListWithText of slides
// (instance 0) and of notes pages (instance 2). It keeps the first
// MaxPages slides (and as many notes pages) and counts them all.
func (r *pptReader) slideLists(doc pptRec) (slides []pptListEntry, total int, notes []pptListEntry, err error) {
	if err := r.b.charge(int64(len(doc.body))); err != nil {
		return nil, 0, nil, err
	}
	err = r.each(doc.body, func(list pptRec) error {
		if list.typ != pptSlideListWithText || list.inst > 2 {
			return nil
		}
		entries := &notes
		switch list.inst {
		case 0:
			entries = &slides
		case 1:
			entries = &r.masters
		}
		typ := uint32(4) // "other" until a TextHeaderAtom says
		kept := false    // the current entry is kept: its text goes with it
		return r.each(list.body, func(rec pptRec) error {
			switch rec.typ {
			case pptSlidePersistAtom:
				if list.inst == 0 {
					total++
				}
				kept = len(rec.body) >= 16 && len(*entries) < r.b.lim.MaxPages
				if kept {
					*entries = append(*entries, pptListEntry{
						persistRef: binary.LittleEndian.Uint32(rec.body),
						slideID:    binary.LittleEndian.Uint32(rec.body[12:]),
					})
				}
			case pptTextHeader:
				if len(rec.body) >= 4 {
					typ = binary.LittleEndian.Uint32(rec.body)
				}
			case pptTextChars, pptTextBytes:
				if n := len(*entries); kept && n > 0 {
					e := &(*entries)[n-1]
					e.texts = append(e.texts, pptText{typ, pptString(rec)})
				}
			}
			return nil
		})
	})
	return slides, total, notes, err
}

// pptString decodes a TextCharsAtom or CString (UTF-16LE) or a
// TextBytesAtom (the low bytes of UTF-16 code units: Latin-1).
func pptString(rec pptRec) string {
	if rec.typ == pptTextBytes {
		rs := make([]rune, len(rec.body))
		for i, c := range rec.body {
			rs[i] = rune(c)
		}
		return string(rs)
	}
	u := make([]uint16, len(rec.body)/2)
	for i := range u {
		u[i] = binary.LittleEndian.Uint16(rec.body[2*i:])
	}
	return string(utf16.Decode(u))
}
