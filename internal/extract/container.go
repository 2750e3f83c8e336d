package extract

import (
	"archive/zip"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"path"
	"strings"
)

// Container bounds: the work one zip costs whatever it claims. Real
// documents hold tens to a few thousand entries in a directory of a few
// hundred KiB; a JAR of 60,000 classes stays under both.
const (
	maxContainerEntries  = 65_536
	maxContainerDirBytes = 4 << 20
	maxMimetypeBytes     = 256     // "mimetype": the longest ODF media type is 60 bytes
	maxContentTypesBytes = 1 << 20 // [Content_Types].xml: a few KiB in practice
	maxContainerXMLBytes = 64 << 10
	// maxContainerReadBytes caps every byte Container reads from the
	// file: the end-record search, the directory and the (compressed)
	// marker parts, with room for bufio's 4 KiB reads.
	maxContainerReadBytes = maxContainerDirBytes + 2*maxContentTypesBytes + 2*maxContainerXMLBytes + 256<<10
)

// containerMime is the content type Container reports for each format: the
// family's own (what byMime and rules/defaults/extensions.toml know), so a
// template or macro-enabled variant is read and triaged like its family.
var containerMime = map[Format]string{
	DOCX: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
	XLSX: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
	PPTX: "application/vnd.openxmlformats-officedocument.presentationml.presentation",
	ODT:  "application/vnd.oasis.opendocument.text",
	ODS:  "application/vnd.oasis.opendocument.spreadsheet",
	ODP:  "application/vnd.oasis.opendocument.presentation",
	EPUB: "application/epub+zip",
}

// byMimetypeEntry reads the "mimetype" entry of ODF and EPUB packages.
var byMimetypeEntry = map[string]Format{
	"application/vnd.oasis.opendocument.text":                  ODT,
	"application/vnd.oasis.opendocument.text-template":         ODT,
	"application/vnd.oasis.opendocument.spreadsheet":           ODS,
	"application/vnd.oasis.opendocument.spreadsheet-template":  ODS,
	"application/vnd.oasis.opendocument.presentation":          ODP,
	"application/vnd.oasis.opendocument.presentation-template": ODP,
	"application/epub+zip":                                     EPUB,
}

// byMainPart reads the content type of an OOXML package's main part, in
// lower case. The binary workbook (.xlsb) is left out: no extractor
// reads it.
var byMainPart = map[string]Format{
	"application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml":   DOCX,
	"application/vnd.openxmlformats-officedocument.wordprocessingml.template.main+xml":   DOCX,
	"application/vnd.ms-word.document.macroenabled.main+xml":                             DOCX,
	"application/vnd.ms-word.template.macroenabledtemplate.main+xml":                     DOCX,
	"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml":         XLSX,
	"application/vnd.openxmlformats-officedocument.spreadsheetml.template.main+xml":      XLSX,
	"application/vnd.ms-excel.sheet.macroenabled.main+xml":                               XLSX,
	"application/vnd.ms-excel.template.macroenabled.main+xml":                            XLSX,
	"application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml": PPTX,
	"application/vnd.openxmlformats-officedocument.presentationml.slideshow.main+xml":    PPTX,
	"application/vnd.openxmlformats-officedocument.presentationml.template.main+xml":     PPTX,
	"application/vnd.ms-powerpoint.presentation.macroenabled.main+xml":                   PPTX,
	"application/vnd.ms-powerpoint.slideshow.macroenabled.main+xml":                      PPTX,
	"application/vnd.ms-powerpoint.template.macroenabled.main+xml":                       PPTX,
}

// byConventionalPart names an OOXML package by its main part's usual name,
// for packages whose [Content_Types].xml names no main part we know.
var byConventionalPart = [...]struct {
	part   string
	format Format
}{{"word/document.xml", DOCX}, {"xl/workbook.xml", XLSX}, {"ppt/presentation.xml", PPTX}}

// Container names the document format of a zip by its contents, whatever
// the order of its entries: content sniffing sees only the head, and the
// markers of a valid EPUB, ODT or XLSX may sit anywhere. OOXML is told by
// [Content_Types].xml (its main part's content type, else the
// conventional main part's presence), ODF and EPUB by the "mimetype"
// entry, EPUB also by META-INF/container.xml naming a package document
// that is there. mime is the family's content type, as byMime knows it.
// A JAR, an APK or a plain zip is no document: ok is false.
//
// Only the central directory is read (archive/zip reads it from the end),
// and at most the three small marker parts are inflated; a directory of
// more than 65,536 entries or 4 MiB is not looked at, and no call reads
// more than maxContainerReadBytes of r. Safe for concurrent use.
func Container(r io.ReaderAt, size int64) (f Format, mime string, ok bool) {
	defer func() {
		if recover() != nil { // a hostile file is not a document; never a dead run
			f, mime, ok = "", "", false
		}
	}()
	return container(r, size)
}

// container is Container without the recover, for the fuzz target to see
// a panic.
func container(r io.ReaderAt, size int64) (Format, string, bool) {
	cr := &cappedReaderAt{r: r, left: maxContainerReadBytes}
	entries, dirBytes, found := zipEnd(cr, size)
	if !found || entries > maxContainerEntries || dirBytes > maxContainerDirBytes {
		return "", "", false
	}
	zr, err := zip.NewReader(cr, size)
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) || len(zr.File) > maxContainerEntries {
		return "", "", false
	}
	f, ok := containerFormat(zr.File)
	if !ok {
		return "", "", false
	}
	return f, containerMime[f], true
}

// containerFormat decides from the entries, reading the markers in order
// of cost: the tiny "mimetype", then [Content_Types].xml, then
// container.xml.
func containerFormat(files []*zip.File) (Format, bool) {
	const contentTypes, epubContainer = "[Content_Types].xml", "META-INF/container.xml"
	lim := Limits{MaxInflateBytes: maxMimetypeBytes + maxContentTypesBytes + maxContainerXMLBytes}.withDefaults()
	z := &zipDoc{b: &budget{ctx: context.Background(), lim: lim}, files: map[string]*zip.File{}, lower: map[string]*zip.File{}}
	var conventional Format
	for _, file := range files {
		name := strings.TrimPrefix(strings.ReplaceAll(file.Name, `\`, "/"), "/")
		switch {
		case name == "mimetype" && file.UncompressedSize64 <= maxMimetypeBytes:
			z.keepMarker("mimetype", file)
		case sameFold(name, contentTypes) && file.UncompressedSize64 <= maxContentTypesBytes:
			z.keepMarker(contentTypes, file)
		case name == epubContainer && file.UncompressedSize64 <= maxContainerXMLBytes:
			z.keepMarker(epubContainer, file)
		case conventional == "":
			for _, c := range byConventionalPart {
				if sameFold(name, c.part) {
					conventional = c.format
				}
			}
		}
	}
	if z.has("mimetype") {
		if f, ok := mimetypeFormat(z); ok {
			return f, true
		}
	}
	if z.has(contentTypes) {
		if f, ok := mainPartFormat(z, contentTypes, files); ok {
			return f, true
		}
		if conventional != "" {
			return conventional, true
		}
	}
	if z.has(epubContainer) && hasOPF(z, epubContainer, files) {
		return EPUB, true
	}
	return "", false
}

// keepMarker registers one marker part under its canonical name, the first of
// its name winning as in openZip.
func (z *zipDoc) keepMarker(name string, f *zip.File) {
	if _, dup := z.files[name]; !dup {
		z.files[name] = f
		z.lower[strings.ToLower(name)] = f
	}
}

// mimetypeFormat reads the "mimetype" entry. Writers add a line end now
// and then (one of Tika's EPUBs ends it in CRLF), so space is trimmed.
func mimetypeFormat(z *zipDoc) (Format, bool) {
	rc, err := z.open("mimetype")
	if err != nil {
		return "", false
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, maxMimetypeBytes))
	if err != nil {
		return "", false
	}
	f, ok := byMimetypeEntry[strings.TrimSpace(string(b))]
	return f, ok
}

// mainPartFormat finds a main document content type we know in
// [Content_Types].xml: an Override for a part that is in the package, or
// a Default by extension.
func mainPartFormat(z *zipDoc, part string, files []*zip.File) (Format, bool) {
	for e, err := range z.starts(part) {
		if err != nil {
			return "", false
		}
		f, ok := byMainPart[strings.ToLower(strings.TrimSpace(attr(e, "ContentType")))]
		switch {
		case !ok:
		case e.Name.Local == "Default":
			return f, true
		case e.Name.Local == "Override" && hasEntry(files, attr(e, "PartName")):
			return f, true
		}
	}
	return "", false
}

// hasOPF reports whether container.xml names a package document (an OPF
// rootfile) that the zip holds.
func hasOPF(z *zipDoc, part string, files []*zip.File) bool {
	for e, err := range z.starts(part) {
		if err != nil {
			return false
		}
		if e.Name.Local != "rootfile" {
			continue
		}
		p := attr(e, "full-path")
		opf := attr(e, "media-type") == "application/oebps-package+xml" || strings.EqualFold(path.Ext(p), ".opf")
		if opf && hasEntry(files, p) {
			return true
		}
	}
	return false
}

// hasEntry looks a part name up among the entries, case-insensitively as
// OOXML part names compare. One pass: it runs at most once or twice per
// zip, cheaper than indexing every name.
func hasEntry(files []*zip.File, name string) bool {
	name = strings.TrimPrefix(name, "/")
	if name == "" {
		return false
	}
	for _, f := range files {
		if sameFold(strings.TrimPrefix(strings.ReplaceAll(f.Name, `\`, "/"), "/"), name) {
			return true
		}
	}
	return false
}

// sameFold is strings.EqualFold for ASCII part names, its length test
// first: most entries differ in length from every marker.
func sameFold(a, b string) bool { return len(a) == len(b) && strings.EqualFold(a, b) }

// The end-of-central-directory records (APPNOTE 4.3.16, 4.3.14, 4.3.15).
const (
	endLen      = 22
	end64LocLen = 20
	end64Len    = 56
	endSig      = 0x06054b50
	end64LocSig = 0x07064b50
	end64Sig    = 0x06064b50
)

// zipEnd reads what the end-of-central-directory record (or its zip64
// form) claims: how many entries the directory holds and its size, so
// Container can refuse a huge directory before archive/zip allocates for
// it. It searches as archive/zip does: the last 1 KiB, then the last
// 65 KiB (a record followed by a comment of up to 64 KiB).
func zipEnd(r io.ReaderAt, size int64) (entries, dirBytes uint64, ok bool) {
	for _, span := range [...]int64{1 << 10, 65 << 10} {
		span = min(span, size)
		buf := make([]byte, span)
		if n, _ := r.ReadAt(buf, size-span); int64(n) < span {
			return 0, 0, false
		}
		at := findEnd(buf)
		if at < 0 {
			if span == size {
				return 0, 0, false
			}
			continue
		}
		rec := buf[at:]
		entries = uint64(binary.LittleEndian.Uint16(rec[10:]))
		dirBytes = uint64(binary.LittleEndian.Uint32(rec[12:]))
		if entries != 0xffff && dirBytes != 0xffffffff && binary.LittleEndian.Uint32(rec[16:]) != 0xffffffff {
			return entries, dirBytes, true
		}
		if e, d, ok := zipEnd64(r, size-span+int64(at)); ok {
			return e, d, true
		}
		return entries, dirBytes, true // no zip64 locator: archive/zip reads the 32-bit values too
	}
	return 0, 0, false
}

// zipEnd64 reads the zip64 end record through the locator just before
// the end record at endAt.
func zipEnd64(r io.ReaderAt, endAt int64) (entries, dirBytes uint64, ok bool) {
	if endAt < end64LocLen {
		return 0, 0, false
	}
	loc := make([]byte, end64LocLen)
	if _, err := r.ReadAt(loc, endAt-end64LocLen); err != nil || binary.LittleEndian.Uint32(loc) != end64LocSig {
		return 0, 0, false
	}
	at := binary.LittleEndian.Uint64(loc[8:])
	if at > uint64(endAt) {
		return 0, 0, false
	}
	rec := make([]byte, end64Len)
	if _, err := r.ReadAt(rec, int64(at)); err != nil || binary.LittleEndian.Uint32(rec) != end64Sig {
		return 0, 0, false
	}
	return binary.LittleEndian.Uint64(rec[32:]), binary.LittleEndian.Uint64(rec[40:]), true
}

// findEnd finds the last end record in b whose comment fits in b.
func findEnd(b []byte) int {
	for i := len(b) - endLen; i >= 0; i-- {
		if binary.LittleEndian.Uint32(b[i:]) == endSig && i+endLen+int(binary.LittleEndian.Uint16(b[i+20:])) <= len(b) {
			return i
		}
	}
	return -1
}

// errReadCap stops a reader that has read all Container may read.
var errReadCap = errors.New("container: read cap reached")

// cappedReaderAt refuses reads past a total of left bytes: archive/zip
// reads directory headers until one is malformed, so the end record's
// claims alone do not bound its work. Used by one goroutine.
type cappedReaderAt struct {
	r    io.ReaderAt
	left int64
}

func (c *cappedReaderAt) ReadAt(p []byte, off int64) (int, error) {
	if int64(len(p)) > c.left {
		return 0, errReadCap
	}
	c.left -= int64(len(p))
	return c.r.ReadAt(p, off)
}
