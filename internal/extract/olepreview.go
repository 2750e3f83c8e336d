package extract

import (
	"encoding/binary"
	"errors"
	"io"
	"strings"
	"unicode/utf16"

	"golang.org/x/text/encoding/charmap"
)

// An object embedded in a document (a file shown as an icon, a worksheet,
// a PDF) is stored beside the picture Office shows for it, a Windows
// metafile (EMF or WMF) that draws its icon label or its first page with
// text records. That text is what a reader of the document sees of the
// object, so it is written where the object sits:
//
//	[embedded Package: Setup.exe]
//
// The object itself is not opened.

const (
	maxPreviewBytes = 16 << 20 // a preview larger than this is not read
	maxPreviewText  = 64 << 10 // text kept from one preview
)

// olePreview is an embedded object being read: its kind and its picture.
type olePreview struct {
	progID  string // "Package", "Excel.Sheet.12", "AcroExch.Document.11"
	preview string // the picture's part
	shape   string // the VML shape that holds the picture, when the object names one (spid)
}

// writePreview writes the text the object's picture draws, if it is a
// metafile that draws any.
func writePreview(z *zipDoc, o olePreview, out *textWriter) error {
	part := o.preview
	f := z.lookup(part)
	if f == nil || f.UncompressedSize64 > maxPreviewBytes {
		return out.Err()
	}
	rc, err := z.open(part)
	if err != nil {
		return err
	}
	defer rc.Close()
	data, err := io.ReadAll(io.LimitReader(rc, maxPreviewBytes))
	if err != nil {
		return err
	}
	text := oneLine(metafileText(data))
	if text == "" {
		return out.Err()
	}
	kind := oneLine(o.progID)
	if kind == "" || len(kind) > 64 {
		kind = "object"
	}
	return out.Line("[embedded " + kind + ": " + text + "]")
}

// metafileText is the text an EMF or WMF picture draws, its runs joined by
// spaces, at most maxPreviewText bytes; "" for anything else.
func metafileText(b []byte) string {
	var runs strings.Builder
	add := func(s string) bool {
		if strings.TrimSpace(s) == "" {
			return true
		}
		if runs.Len() > 0 {
			runs.WriteByte(' ')
		}
		runs.WriteString(s)
		return runs.Len() < maxPreviewText
	}
	switch {
	case len(b) >= 8 && binary.LittleEndian.Uint32(b) == 1: // EMR_HEADER
		emfText(b, add)
	case len(b) >= 22 && binary.LittleEndian.Uint32(b) == 0x9AC6CDD7: // placeable WMF
		wmfText(b[22:], add)
	case len(b) >= 4 && (binary.LittleEndian.Uint16(b) == 1 || binary.LittleEndian.Uint16(b) == 2) && binary.LittleEndian.Uint16(b[2:]) == 9:
		wmfText(b, add)
	}
	s := runs.String()
	if len(s) > maxPreviewText {
		s = s[:maxPreviewText]
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}

// emfText reads EMF records (MS-EMF 2.3): EMR_EXTTEXTOUTA and W carry an
// EmrText at offset 36 whose string is at offString from the record.
func emfText(b []byte, add func(string) bool) {
	le := binary.LittleEndian
	for off := 0; off+8 <= len(b); {
		typ, size := le.Uint32(b[off:]), int(le.Uint32(b[off+4:]))
		if size < 8 || size > len(b)-off {
			return
		}
		rec := b[off : off+size]
		off += size
		if (typ != 83 && typ != 84) || len(rec) < 52 {
			if typ == 14 { // EMR_EOF
				return
			}
			continue
		}
		n, at := int(le.Uint32(rec[44:])), int(le.Uint32(rec[48:]))
		width := 1
		if typ == 84 {
			width = 2
		}
		if n <= 0 || at < 0 || at > len(rec) || n > (len(rec)-at)/width {
			continue
		}
		s := rec[at : at+n*width]
		var text string
		if typ == 84 {
			units := make([]uint16, n)
			for i := range units {
				units[i] = le.Uint16(s[2*i:])
			}
			text = string(utf16.Decode(units))
		} else {
			text = ansi(s)
		}
		if !add(text) {
			return
		}
	}
}

// wmfText reads WMF records (MS-WMF 2.3) after the header: META_TEXTOUT
// and META_EXTTEXTOUT carry ANSI strings.
func wmfText(b []byte, add func(string) bool) {
	le := binary.LittleEndian
	if len(b) < 18 {
		return
	}
	for off := int(le.Uint16(b[2:])) * 2; off+6 <= len(b); {
		size, fn := int(le.Uint32(b[off:]))*2, le.Uint16(b[off+4:])
		if size < 6 || size > len(b)-off {
			return
		}
		rec := b[off : off+size]
		off += size
		var s []byte
		switch fn {
		case 0x0000: // META_EOF
			return
		case 0x0521: // META_TEXTOUT: length, string
			if len(rec) < 8 {
				continue
			}
			n := int(le.Uint16(rec[6:]))
			if n > len(rec)-8 {
				continue
			}
			s = rec[8 : 8+n]
		case 0x0A32: // META_EXTTEXTOUT: y, x, length, options, [rectangle], string
			if len(rec) < 14 {
				continue
			}
			n, opts, at := int(le.Uint16(rec[10:])), le.Uint16(rec[12:]), 14
			if opts&0x0006 != 0 { // ETO_OPAQUE, ETO_CLIPPED: a rectangle comes first
				at += 8
			}
			if at > len(rec) || n > len(rec)-at {
				continue
			}
			s = rec[at : at+n]
		default:
			continue
		}
		if !add(ansi(s)) {
			return
		}
	}
}

// ansi decodes a metafile's 8-bit string. Its code page is the font's,
// which the records before it set; Windows-1252 reads the common case.
func ansi(s []byte) string {
	out, err := charmap.Windows1252.NewDecoder().Bytes(s)
	if err != nil {
		return ""
	}
	return strings.TrimRight(string(out), "\x00")
}

// vmlPictures maps the shapes of a legacy VML drawing (v:shape id) to the
// parts of their pictures (v:imagedata o:relid), where PowerPoint 2007
// keeps the pictures of embedded objects. Each drawing is read once; one
// that is not XML has none.
func (d *pptxDeck) vmlPictures(part string) (map[string]string, error) {
	if pics, ok := d.vml[part]; ok {
		return pics, nil
	}
	pics := map[string]string{}
	d.vml[part] = pics
	if !d.z.has(part) {
		return pics, nil
	}
	rels, err := d.z.rels(part)
	if err != nil {
		return pics, err
	}
	var shape string
	for e, err := range d.z.starts(part) {
		var ref *Refusal
		if errors.As(err, &ref) && ref.Reason == ReasonUnreadable {
			return pics, nil // VML is not always XML: what was read stands
		}
		if err != nil {
			return pics, err
		}
		switch e.Name.Local {
		case "shape":
			shape = attr(e, "id")
		case "imagedata":
			if p := rels[attr(e, "relid")]; shape != "" && p != "" && len(pics) < maxZipEntries {
				pics[shape] = p
			}
		}
	}
	return pics, nil
}
