package extract

import (
	"bytes"
	"io"
	"strings"

	"github.com/richardlehane/mscfb"
)

// The legacy binary Office formats: Word 97-2003, Excel 97-2003 (and
// Excel 5/95) and PowerPoint 97-2003, each a Compound File (OLE2) whose
// streams hold the document's records. Our own readers (doc.go, xls.go,
// ppt.go) read them; mscfb reads the container.
// maxCFBEntries bounds the directory entries looked at; real documents
// have tens, a few thousand with many embedded objects.
const maxCFBEntries = 100_000

// cfbDoc is an opened Compound File: its top-level streams, by upper-cased
// name (Compound File names compare case-insensitively, and some writers
// upper-case them). Streams of embedded objects, in storages below the
// root, are not the document's own text and are not listed.
type cfbDoc struct {
	b       *budget
	size    int64
	streams map[string]*mscfb.File
}

// openCFB opens a legacy document's container. An encrypted OOXML package
// (a Compound File holding EncryptionInfo) under a legacy name is refused
// as encrypted.
func openCFB(b *budget, src io.ReaderAt, size int64) (*cfbDoc, error) {
	head := make([]byte, len(oleMagic))
	if _, err := src.ReadAt(head, 0); err != nil && err != io.EOF {
		return nil, unreadable("read: %v", err)
	}
	if !bytes.Equal(head, oleMagic) {
		return nil, unreadable("not a Compound File (OLE2) document")
	}
	doc, err := mscfb.New(io.NewSectionReader(src, 0, size))
	if err != nil {
		return nil, unreadable("compound file: %v", err)
	}
	d := &cfbDoc{b: b, size: size, streams: map[string]*mscfb.File{}}
	for i, e := range doc.File {
		if i >= maxCFBEntries {
			return nil, overLimit("more than %d compound file entries", maxCFBEntries)
		}
		if len(e.Path) > 0 || e.FileInfo().IsDir() {
			continue
		}
		name := strings.ToUpper(e.Name)
		if name == "ENCRYPTIONINFO" || name == "ENCRYPTEDPACKAGE" {
			return nil, encrypted("password-protected Office document (%s stream)", e.Name)
		}
		if _, dup := d.streams[name]; !dup {
			d.streams[name] = e
		}
	}
	return d, nil
}

// holds names the document a container holds, for a refusal when it is
// not the one expected: content sniffing guesses an OLE file's kind, and
// may guess wrong.
func (d *cfbDoc) holds() string {
	switch {
	case d.has("WordDocument"):
		return "it holds a Word document"
	case d.has("Workbook"), d.has("Book"):
		return "it holds an Excel workbook"
	case d.has("PowerPoint Document"):
		return "it holds a PowerPoint presentation"
	}
	return "it holds no Office document"
}

// kind is the legacy format whose main stream the container holds, "" for
// none.
func (d *cfbDoc) kind() Format {
	switch {
	case d.has("WordDocument"):
		return DOC
	case d.has("Workbook"), d.has("Book"):
		return XLS
	case d.has("PowerPoint Document"):
		return PPT
	}
	return ""
}

// readAs reads a container that holds another legacy document than the
// one asked for (content sniffing guesses an OLE file's kind from its
// class id and may guess wrong: a Word document sniffed as Excel) with the
// reader of what it holds, once, and says so in b.actual; a container
// holding none of them is refused with missing.
func (d *cfbDoc) readAs(want Format, src io.ReaderAt, size int64, out *textWriter, missing error) error {
	k := d.kind()
	if k == "" || k == want || d.b.actual != "" {
		return missing
	}
	d.b.actual = k
	switch k {
	case DOC:
		return extractDOC(d.b, src, size, out)
	case XLS:
		return extractXLS(d.b, src, size, out)
	default:
		return extractPPT(d.b, src, size, out)
	}
}

// has reports a top-level stream.
func (d *cfbDoc) has(name string) bool { return d.streams[strings.ToUpper(name)] != nil }

// stream reads a top-level stream whole; nil without an error when there
// is none. Its declared size is checked against the file (a stream cannot
// hold more than the file it lives in) and charged to MaxInflateBytes
// before anything is allocated.
func (d *cfbDoc) stream(name string) ([]byte, error) {
	f := d.streams[strings.ToUpper(name)]
	if f == nil {
		return nil, nil
	}
	if f.Size > d.size {
		return nil, unreadable("%s stream: %d bytes declared in a %d-byte file", name, f.Size, d.size)
	}
	if err := d.b.charge(f.Size); err != nil {
		return nil, err
	}
	buf := make([]byte, f.Size)
	const chunk = 1 << 16
	for n := 0; n < len(buf); {
		if err := d.b.alive(); err != nil {
			return nil, err
		}
		m, err := f.Read(buf[n:min(n+chunk, len(buf))])
		n += m
		if err != nil && err != io.EOF {
			return nil, unreadable("%s stream: %v", name, err)
		}
		if m == 0 {
			return nil, unreadable("%s stream: %d of %d bytes", name, n, len(buf))
		}
	}
	return buf, nil
}

// charge counts n bytes read out of a container, or walked again in it,
// against MaxInflateBytes: the legacy readers' measure of work, so a
// document whose records point back at the same bytes a million times is
// refused after the limit's worth, not after the clock.
func (b *budget) charge(n int64) error {
	b.inflated += max(n, 0)
	if b.inflated > b.lim.MaxInflateBytes {
		return overLimit("more than %d bytes read from the document's streams", b.lim.MaxInflateBytes)
	}
	return b.alive()
}

// cp1252High maps the bytes 0x80-0x9F of Windows-1252 to Unicode (the rest
// of the code page is Latin-1); the five bytes it leaves undefined map to
// the C1 controls, which the text writer drops.
var cp1252High = [32]rune{
	0x20AC, 0x81, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x8D, 0x017D, 0x8F,
	0x90, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x9D, 0x017E, 0x0178,
}

// cp1252 is one Windows-1252 byte as a rune.
func cp1252(c byte) rune {
	if c >= 0x80 && c < 0xA0 {
		return cp1252High[c-0x80]
	}
	return rune(c)
}
