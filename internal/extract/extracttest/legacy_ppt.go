package extracttest

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf16"
)

// PPTSlide is one slide of a generated presentation.
type PPTSlide struct {
	Title   string   // the title placeholder
	Body    []string // the body placeholder's paragraphs
	Boxes   []string // text boxes of the slide's own
	Notes   string   // the speaker notes
	Comment string   // a reviewer's comment
}

// PPTOptions shape a generated presentation.
type PPTOptions struct {
	Encrypted bool   // the Current User header token of an encrypted file (nothing is really encrypted)
	Stale     string // a first save whose slide 1 holds this text, superseded by a second
	Master    string // a text box of the slide master's own, beside its title placeholder's prompt
}

// pptRecord is a record: version and instance, type, length, body.
func pptRecord(typ uint16, inst uint16, body []byte) []byte {
	return append(le.AppendUint32(le.AppendUint16(le.AppendUint16(nil, inst<<4), typ), uint32(len(body))), body...)
}

// pptContainer is a container record (version 0xF) of children.
func pptContainer(typ uint16, inst uint16, children ...[]byte) []byte {
	r := pptRecord(typ, inst, bytes.Join(children, nil))
	r[0] |= 0x0F
	return r
}

// pptText is a TextHeaderAtom and the text: TextBytesAtom when every
// character is Latin-1, else TextCharsAtom.
func pptText(typ uint32, s string) []byte {
	head := pptRecord(0x0F9F, 0, le.AppendUint32(nil, typ))
	u := utf16.Encode([]rune(s))
	var b []byte
	for _, c := range u {
		if c > 0xFF {
			b = nil
			for _, c := range u {
				b = le.AppendUint16(b, c)
			}
			return append(head, pptRecord(0x0FA0, 0, b)...)
		}
		b = append(b, byte(c))
	}
	return append(head, pptRecord(0x0FA8, 0, b)...)
}

// pptDrawing is a PPDrawing whose shapes each hold one text box of
// records.
func pptDrawing(boxes ...[]byte) []byte {
	var shapes [][]byte
	for _, b := range boxes {
		shapes = append(shapes, pptShape(false, b))
	}
	return pptContainer(0x040C, 0, pptContainer(0xF002, 0, pptContainer(0xF003, 0, shapes...)))
}

// pptShape is a shape holding a text box; a placeholder's client data
// holds a PlaceholderAtom.
func pptShape(placeholder bool, box []byte) []byte {
	var data []byte
	if placeholder {
		data = pptContainer(0xF011, 0, pptRecord(0x0BC3, 0, []byte{0, 0, 0, 0, 0x0D, 0, 0, 0}))
	}
	return pptContainer(0xF004, 0, data, pptContainer(0xF00D, 0, box))
}

// PPT builds a PowerPoint 97 presentation: the DocumentContainer with
// the slide and notes lists (titles and bodies as placeholder text
// there), a SlideContainer per slide whose drawing refers to that text
// and holds the text boxes (plus a slide-number field, "*", that readers
// drop), a NotesContainer per slide with notes, the persist directory,
// the UserEditAtom, and the Current User stream pointing at it.
func PPT(t testing.TB, slides []PPTSlide, opt PPTOptions) []byte {
	t.Helper()
	n := len(slides)
	// Persist ids: 1 the document, 2.. the slides, then the notes pages.
	notesID := map[int]uint32{}
	for i, s := range slides {
		if s.Notes != "" {
			notesID[i] = uint32(2 + n + len(notesID))
		}
	}
	masterID := uint32(2 + n + len(notesID)) // the last id, when there is a master
	var slideList, notesList [][]byte
	for i, s := range slides {
		persist := make([]byte, 20)
		le.PutUint32(persist, uint32(2+i))
		le.PutUint32(persist[12:], uint32(256+i))
		slideList = append(slideList, pptRecord(0x03F3, 0, persist), pptText(0, s.Title), pptText(1, strings.Join(s.Body, "\r")))
		if s.Notes != "" {
			persist := make([]byte, 20)
			le.PutUint32(persist, notesID[i])
			le.PutUint32(persist[12:], uint32(512+i))
			notesList = append(notesList, pptRecord(0x03F3, 0, persist))
		}
	}
	var masterList []byte
	if opt.Master != "" {
		persist := make([]byte, 20)
		le.PutUint32(persist, masterID)
		le.PutUint32(persist[12:], 0x80000000)
		masterList = pptContainer(0x0FF0, 1, pptRecord(0x03F3, 0, persist))
	}
	doc := pptContainer(0x03E8, 0, pptRecord(0x03E9, 0, make([]byte, 40)),
		pptContainer(0x0FF0, 0, slideList...), masterList, pptContainer(0x0FF0, 2, notesList...))
	slide := func(i int, s PPTSlide) []byte {
		atom := make([]byte, 24)
		if s.Notes != "" {
			le.PutUint32(atom[16:], uint32(512+i))
		}
		ref := func(k uint32) []byte { return pptRecord(0x0F9E, 0, le.AppendUint32(nil, k)) }
		boxes := [][]byte{ref(0), ref(1)}
		for _, b := range s.Boxes {
			boxes = append(boxes, pptText(4, b))
		}
		boxes = append(boxes, append(pptText(4, "*"), pptRecord(0x0FD8, 0, le.AppendUint32(nil, 0))...))
		children := [][]byte{pptRecord(0x03EF, 0, atom), pptDrawing(boxes...)}
		if s.Comment != "" {
			comment := pptContainer(0x2EE0, 0, pptRecord(0x0FBA, 0, utf16le("A. Reviewer")), pptRecord(0x0FBA, 1, utf16le(s.Comment)))
			blob := pptRecord(0x138B, 0, comment) // records, though the header says atom
			children = append(children, pptContainer(0x1388, 0, pptContainer(0x138A, 0, pptRecord(0x0FBA, 0, utf16le("___PPT10")), blob)))
		}
		return pptContainer(0x03EE, 0, children...)
	}
	var ppd []byte
	offsets := map[uint32]uint32{}
	put := func(id uint32, rec []byte) {
		offsets[id] = uint32(len(ppd))
		ppd = append(ppd, rec...)
	}
	edit := func(last uint32, ids []uint32) uint32 {
		dir := le.AppendUint32(nil, ids[0]|uint32(len(ids))<<20)
		for _, id := range ids {
			dir = le.AppendUint32(dir, offsets[id])
		}
		dirAt := uint32(len(ppd))
		ppd = append(ppd, pptRecord(0x1772, 0, dir)...)
		ue := make([]byte, 28)
		le.PutUint32(ue[8:], last)
		le.PutUint32(ue[12:], dirAt)
		le.PutUint32(ue[16:], 1) // docPersistIdRef
		le.PutUint32(ue[20:], uint32(2+n+len(notesID)))
		if opt.Encrypted {
			ue = le.AppendUint32(ue, uint32(2+n+len(notesID)))
		}
		at := uint32(len(ppd))
		ppd = append(ppd, pptRecord(0x0FF5, 0, ue)...)
		return at
	}
	last := uint32(0)
	if opt.Stale != "" && n > 0 {
		stale := slides[0]
		stale.Title, stale.Body = opt.Stale, []string{opt.Stale}
		put(1, doc)
		put(2, slide(0, stale))
		last = edit(0, []uint32{1, 2})
	}
	put(1, doc)
	ids := []uint32{1}
	for i, s := range slides {
		put(uint32(2+i), slide(i, s))
		ids = append(ids, uint32(2+i))
	}
	for i, s := range slides {
		if id, ok := notesID[i]; ok {
			put(id, pptContainer(0x03F0, 0, pptRecord(0x03F1, 0, make([]byte, 8)), pptDrawing(pptText(2, s.Notes))))
			ids = append(ids, id)
		}
	}
	if opt.Master != "" {
		drawing := pptContainer(0x040C, 0, pptContainer(0xF002, 0, pptContainer(0xF003, 0,
			pptShape(true, pptText(0, "Click to edit Master title style")), pptShape(false, pptText(4, opt.Master)))))
		put(masterID, pptContainer(0x03F8, 0, drawing))
		ids = append(ids, masterID)
	}
	current := edit(last, ids)
	token := uint32(0xE391C05F)
	if opt.Encrypted {
		token = 0xF3D1C4DF
	}
	user := le.AppendUint32(le.AppendUint32(le.AppendUint32(nil, 0x14), token), current)
	user = append(le.AppendUint16(le.AppendUint16(user, 4), 0x03F4), 3, 0, 0, 0)
	user = append(user, "user"...)
	user = le.AppendUint32(user, 8)
	return CFB(t, CFBStream{"PowerPoint Document", ppd}, CFBStream{"Current User", pptRecord(0x0FF6, 0, user)})
}

func utf16le(s string) []byte {
	var b []byte
	for _, c := range utf16.Encode([]rune(s)) {
		b = le.AppendUint16(b, c)
	}
	return b
}
