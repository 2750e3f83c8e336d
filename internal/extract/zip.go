package extract

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"iter"
	"path"
	"strings"

	"github.com/richardlehane/mscfb"
)

// maxZipEntries bounds the central directory: real documents hold tens to
// a few thousand parts.
const maxZipEntries = 20_000

// oleMagic starts a Compound File (OLE2): legacy .doc/.xls/.ppt, and the
// envelope Office puts around a password-protected OOXML file.
var oleMagic = []byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1}

// zipDoc is a zip-based document (OOXML, ODF, EPUB) whose parts are read
// under the budget: a part is refused before it is inflated when its
// declared size exceeds what is left, and archive/zip refuses a part that
// inflates past its declared size, so a zip bomb costs nothing.
type zipDoc struct {
	b     *budget
	files map[string]*zip.File
	lower map[string]*zip.File // OOXML part names are case-insensitive
}

func openZip(b *budget, src io.ReaderAt, size int64) (*zipDoc, error) {
	head := make([]byte, len(oleMagic))
	if _, err := src.ReadAt(head, 0); err != nil && err != io.EOF {
		return nil, unreadable("read: %v", err)
	}
	if bytes.Equal(head, oleMagic) {
		return nil, oleRefusal(src, size)
	}
	zr, err := zip.NewReader(src, size)
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) { // odd names are fine: nothing is written by them
		return nil, unreadable("not a zip container: %v", err)
	}
	if len(zr.File) > maxZipEntries {
		return nil, overLimit("%d zip entries, more than %d", len(zr.File), maxZipEntries)
	}
	z := &zipDoc{b: b, files: make(map[string]*zip.File, len(zr.File)), lower: make(map[string]*zip.File, len(zr.File))}
	for _, f := range zr.File {
		name := strings.TrimPrefix(strings.ReplaceAll(f.Name, `\`, "/"), "/")
		if _, dup := z.files[name]; !dup {
			z.files[name] = f
			z.lower[strings.ToLower(name)] = f
		}
	}
	return z, nil
}

// oleRefusal explains a Compound File where a zip container was expected:
// Office wraps an encrypted OOXML package in one (EncryptionInfo and
// EncryptedPackage streams); anything else is a legacy binary document.
func oleRefusal(src io.ReaderAt, size int64) error {
	doc, err := mscfb.New(io.NewSectionReader(src, 0, size))
	if err != nil {
		return unreadable("compound file: %v", err)
	}
	for i := 0; i < 10_000; i++ {
		e, err := doc.Next()
		if err != nil {
			break
		}
		// Compound File names compare case-insensitively; some writers
		// upper-case them (ENCRYPTEDPACKAGE).
		if strings.EqualFold(e.Name, "EncryptionInfo") || strings.EqualFold(e.Name, "EncryptedPackage") {
			return encrypted("password-protected Office document (%s stream)", e.Name)
		}
	}
	return unreadable("a legacy binary (OLE2) Office file, not a zip-based one")
}

func (z *zipDoc) lookup(name string) *zip.File {
	if f, ok := z.files[name]; ok {
		return f
	}
	return z.lower[strings.ToLower(name)]
}

func (z *zipDoc) has(name string) bool { return z.lookup(name) != nil }

// open inflates one part under the budget.
func (z *zipDoc) open(name string) (io.ReadCloser, error) {
	f := z.lookup(name)
	if f == nil {
		return nil, unreadable("no %s in the container", name)
	}
	if left := z.b.lim.MaxInflateBytes - z.b.inflated; f.UncompressedSize64 > uint64(left) {
		return nil, overLimit("%s inflates to %d bytes, over the %d-byte limit", name, f.UncompressedSize64, z.b.lim.MaxInflateBytes)
	}
	rc, err := f.Open()
	if err != nil {
		return nil, unreadable("%s: %v", name, err)
	}
	return struct {
		io.Reader
		io.Closer
	}{z.b.inflate(rc), rc}, nil
}

// xml opens a part as a stream of XML tokens.
func (z *zipDoc) xml(name string) (*xmlStream, error) {
	rc, err := z.open(name)
	if err != nil {
		return nil, err
	}
	d := xml.NewDecoder(rc)
	return &xmlStream{d: d, b: z.b, c: rc, part: name}, nil
}

// xmlStream reads one XML part token by token (never building a tree, so
// nesting costs no stack) and checks the time limit as it goes.
type xmlStream struct {
	d    *xml.Decoder
	b    *budget
	c    io.Closer
	part string
	n    int
}

// next returns the next token, io.EOF at the end, or a refusal.
func (s *xmlStream) next() (xml.Token, error) {
	if s.n++; s.n&1023 == 0 {
		if err := s.b.alive(); err != nil {
			return nil, err
		}
	}
	tok, err := s.d.Token()
	if err == io.EOF {
		return nil, io.EOF
	}
	if err != nil {
		var ref *Refusal
		if errors.As(err, &ref) || errors.Is(err, errTimeout) {
			return nil, err
		}
		return nil, unreadable("%s: %v", s.part, err)
	}
	return tok, nil
}

func (s *xmlStream) Close() error { return s.c.Close() }

// starts yields the start elements of a part in document order, for the
// small parts read for one fact or one list (relationships, manifests,
// styles). An error (the part missing or over the budget, bad XML, the
// time limit) is yielded once, last. The part is closed when the loop
// ends, however it ends.
func (z *zipDoc) starts(part string) iter.Seq2[xml.StartElement, error] {
	return func(yield func(xml.StartElement, error) bool) {
		s, err := z.xml(part)
		if err != nil {
			yield(xml.StartElement{}, err)
			return
		}
		defer s.Close()
		for {
			tok, err := s.next()
			if err == io.EOF {
				return
			}
			if err != nil {
				yield(xml.StartElement{}, err)
				return
			}
			if e, ok := tok.(xml.StartElement); ok && !yield(e, nil) {
				return
			}
		}
	}
}

// attr finds an attribute by local name.
func attr(e xml.StartElement, local string) string {
	for _, a := range e.Attr {
		if a.Name.Local == local {
			return a.Value
		}
	}
	return ""
}

// rels reads an OOXML relationships part: id -> target part name, resolved
// against the directory of the part the relationships belong to.
func (z *zipDoc) rels(part string) (map[string]string, error) {
	dir, base := path.Split(part)
	name := dir + "_rels/" + base + ".rels"
	out := map[string]string{}
	if !z.has(name) {
		return out, nil
	}
	for e, err := range z.starts(name) {
		if err != nil {
			return nil, err
		}
		if e.Name.Local == "Relationship" && attr(e, "TargetMode") != "External" {
			out[attr(e, "Id")] = resolvePart(dir, attr(e, "Target"))
		}
	}
	return out, nil
}

// relsByType finds the first relationship of a type (its URI's last
// segment, such as "officeDocument" or "notesSlide").
func (z *zipDoc) relByType(part, typ string) (string, error) {
	dir, base := path.Split(part)
	name := dir + "_rels/" + base + ".rels"
	if !z.has(name) {
		return "", nil
	}
	for e, err := range z.starts(name) {
		if err != nil {
			return "", err
		}
		if e.Name.Local == "Relationship" && path.Base(attr(e, "Type")) == typ {
			return resolvePart(dir, attr(e, "Target")), nil
		}
	}
	return "", nil
}

// resolvePart resolves a relationship target: absolute from the package
// root when it starts with '/', else relative to dir.
func resolvePart(dir, target string) string {
	if strings.HasPrefix(target, "/") {
		return strings.TrimPrefix(path.Clean(target), "/")
	}
	return strings.TrimPrefix(path.Clean("/"+dir+target), "/")
}

// mainPart finds the package's main document through _rels/.rels, or
// falls back to the conventional name.
func (z *zipDoc) mainPart(fallback string) (string, error) {
	p, err := z.relByType("", "officeDocument")
	if err != nil {
		return "", err
	}
	if p == "" || !z.has(p) {
		if !z.has(fallback) {
			return "", unreadable("no main document part (%s)", fallback)
		}
		return fallback, nil
	}
	return p, nil
}
