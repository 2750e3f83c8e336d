package extract

import (
	"encoding/binary"
	"fmt"
	"strings"
)

// A slide's text: its shapes' text boxes, comments and notes page, and
// the masters' own text.

// pptComment is a reviewer's comment on a slide.
type pptComment struct{ author, text string }

// pptShapes is the text found in a slide's or notes page's records.
type pptShapes struct {
	master   bool // a master's shapes: placeholders are left out
	texts    []pptText
	used     []bool // which of the list entry's texts a shape referred to
	comments []pptComment
	notesRef uint32 // the slide's notes page (SlideAtom), 0 for none
}

// walk gathers the text of a container's records, depth deep: text boxes
// (ClientTextbox) with their own text or a reference to the list entry's,
// comments, and the SlideAtom's notes reference.
func (r *pptReader) walk(p []byte, depth int, entry pptListEntry, s *pptShapes) error {
	if depth > maxRecordDepth {
		return overLimit("records nested more than %d deep", maxRecordDepth)
	}
	return r.each(p, func(rec pptRec) error {
		switch rec.typ {
		case pptShape:
			if s.master && r.placeholder(rec.body) {
				return nil // a prompt ("Click to edit Master title style") a slide replaces
			}
			return r.walk(rec.body, depth+1, entry, s)
		case pptClientTextbox:
			return r.textbox(rec.body, entry, s)
		case pptSlideAtom:
			if len(rec.body) >= 20 {
				s.notesRef = binary.LittleEndian.Uint32(rec.body[16:])
			}
		case pptCommentRec:
			var author, text string
			err := r.each(rec.body, func(c pptRec) error {
				switch {
				case c.typ == pptCString && c.inst == 0:
					author = oneLine(pptString(c))
				case c.typ == pptCString && c.inst == 1: // 2 is the initials
					text = pptString(c)
				}
				return nil
			})
			if strings.TrimSpace(text) != "" {
				s.comments = append(s.comments, pptComment{author, text})
			}
			return err
		default:
			// A binary tag's data (PowerPoint 2000 and later: comments)
			// is records, though its header says atom.
			if rec.container || rec.typ == pptBinaryTagData {
				return r.walk(rec.body, depth+1, entry, s)
			}
		}
		return nil
	})
}

// placeholder reports a shape (the body of an OfficeArtSpContainer)
// whose client data holds a PlaceholderAtom.
func (r *pptReader) placeholder(shape []byte) bool {
	found := false
	r.each(shape, func(rec pptRec) error {
		if rec.typ == pptClientData {
			r.each(rec.body, func(c pptRec) error {
				found = found || c.typ == pptPlaceholderAtom
				return nil
			})
		}
		return nil
	})
	return found
}

// textbox reads a ClientTextbox: a TextHeaderAtom (the text's type), and
// the text itself or a reference to the list entry's. A '*' where a
// field's atom (slide number, date, header or footer) points is what
// PowerPoint fills in when it shows the slide: it is dropped.
func (r *pptReader) textbox(p []byte, entry pptListEntry, s *pptShapes) error {
	typ := uint32(4)
	first := len(s.texts)
	var fields []uint32
	err := r.each(p, func(t pptRec) error {
		switch t.typ {
		case pptTextHeader:
			if len(t.body) >= 4 {
				typ = binary.LittleEndian.Uint32(t.body)
			}
		case pptTextChars, pptTextBytes:
			s.texts = append(s.texts, pptText{typ, pptString(t)})
		case pptOutlineTextRef:
			if len(t.body) >= 4 {
				if i := binary.LittleEndian.Uint32(t.body); int64(i) < int64(len(entry.texts)) {
					s.texts = append(s.texts, entry.texts[i])
					s.used[i] = true
				}
			}
		case 0x0FD8, 0x0FF7, 0x0FF8, 0x0FF9, 0x0FFA: // slide number, date, header and footer fields
			if len(t.body) >= 4 {
				fields = append(fields, binary.LittleEndian.Uint32(t.body))
			}
		}
		return nil
	})
	if len(fields) > 0 && len(s.texts) > first {
		rs := []rune(s.texts[first].text)
		for _, i := range fields {
			if int64(i) < int64(len(rs)) && rs[i] == '*' {
				rs[i] = 0 // the writer drops it
			}
		}
		s.texts[first].text = string(rs)
	}
	return err
}

// shapes reads the container a list entry points at (a slide or notes
// page, of type typ); with no such container, only the entry's own
// placeholder text is known.
func (r *pptReader) shapes(entry pptListEntry, typ uint16) (*pptShapes, error) {
	s := &pptShapes{used: make([]bool, len(entry.texts)), master: typ == pptMainMaster}
	c, ok := r.record(entry.persistRef, typ)
	if !ok && s.master { // a title master is a SlideContainer
		c, ok = r.record(entry.persistRef, pptSlide)
	}
	if ok {
		if err := r.b.charge(int64(len(c.body))); err != nil {
			return nil, err
		}
		if err := r.walk(c.body, 1, entry, s); err != nil {
			return nil, err
		}
	}
	// Placeholder text no shape referred to is still the slide's, unless
	// a shape held the same text itself. A master's is prompts.
	for i, t := range entry.texts {
		if !s.used[i] && !s.has(t.text) && !s.master {
			s.texts = append(s.texts, t)
		}
	}
	return s, nil
}

func (s *pptShapes) has(text string) bool {
	for _, t := range s.texts {
		if t.text == text {
			return true
		}
	}
	return false
}

// writeMasters writes the text the slide masters put on the slides,
// once, behind "--- slide master ---" as PPTX does: their own text boxes,
// not their placeholders' prompts.
func (r *pptReader) writeMasters(out *textWriter) error {
	seen := map[string]bool{}
	var lines []string
	for _, m := range r.masters {
		s, err := r.shapes(m, pptMainMaster)
		if err != nil {
			return err
		}
		for _, t := range s.texts {
			if text := strings.TrimSpace(t.text); text != "" && !seen[text] {
				seen[text] = true
				lines = append(lines, t.text)
			}
		}
	}
	if len(lines) == 0 {
		return out.Err()
	}
	out.Label("slide master")
	for _, l := range lines {
		out.Line(l)
	}
	return out.Err()
}

// slide writes one slide: its text boxes, comments, then its notes.
func (r *pptReader) slide(entry pptListEntry, notes map[uint32]pptListEntry, out *textWriter) error {
	s, err := r.shapes(entry, pptSlide)
	if err != nil {
		return err
	}
	for _, t := range s.texts {
		if err := r.b.hold(len(t.text)); err != nil {
			return err
		}
		if t.typ == pptTitle || t.typ == pptCenterTitle {
			if err := out.Heading(2, t.text); err != nil {
				return err
			}
			continue
		}
		if err := out.Line(t.text); err != nil {
			return err
		}
	}
	for _, c := range s.comments {
		// Labelled as DOCX labels comments, numbered through the deck.
		r.comments++
		who := ""
		if c.author != "" {
			who = " (" + c.author + ")"
		}
		if err := out.Line(fmt.Sprintf("[comment %d%s]: %s", r.comments, who, oneLine(c.text))); err != nil {
			return err
		}
	}
	n, ok := notes[s.notesRef]
	if s.notesRef == 0 || !ok {
		return out.Err()
	}
	{
		ns, err := r.shapes(n, pptNotes)
		if err != nil {
			return err
		}
		said := false
		for _, t := range ns.texts {
			if t.typ != pptNotesText || strings.TrimSpace(t.text) == "" {
				continue
			}
			if !said {
				out.Blank()
				out.Line("Notes:")
				said = true
			}
			for _, l := range strings.FieldsFunc(t.text, func(r rune) bool { return r == '\r' || r == '\n' || r == '\v' }) {
				out.Line("> " + l)
			}
		}
	}
	return out.Err()
}
