package stages

import (
	"bytes"
	"context"
	"io"
	"path"
	"strings"
	"sync"

	"github.com/gabriel-vasile/mimetype"
	"github.com/go-enry/go-enry/v2"

	"github.com/repoprep/repoprep/internal/extract"
	"github.com/repoprep/repoprep/internal/textenc"
)

// sniffBytes is how much of each file classify reads. mimetype's default of
// 4 KiB misses Office Open XML markers that sit further into the ZIP
// (mimetype issues #81 and #180 upstream); 32 KiB catches most of them and keeps the
// read bounded however large the file. A zip whose markers sit further
// still, or behind a META-INF/ that makes it look like a JAR, is named by
// its central directory (containerType).
const sniffBytes = 32 << 10

var setSniffLimit = sync.OnceFunc(func() { mimetype.SetLimit(sniffBytes) })

// Classify sniffs the leading bytes, so a misnamed extension can't hide a
// binary, and records when the extension promises something else.
func (e *Env) Classify(ctx context.Context, rec *Record) error {
	if rec.Skip() || rec.Category != "" || e.decidedByPath(rec) {
		return nil // decidedByPath: vendored or excluded by path, no need to read
	}
	if rec.Size == 0 {
		// Nothing to sniff. An empty file the name gives meaning to
		// (__init__.py) is text of no encoding; triage names its kind.
		rec.isText = e.meaningfulEmpty(rec)
		return nil
	}
	setSniffLimit()
	c := rec.loaded() // read by Process (load), which opens exactly the files that get here
	head := c.data[:min(len(c.data), sniffBytes)]
	rec.state().head = head
	mt := mimetype.Detect(head)
	if isZipFamily(mt) {
		mt = containerType(c, mt)
	}
	rec.Mime = e.mime(mt.String())
	rec.isText = isTextMime(mt)
	if !rec.isText && mt.Is(octetStream) {
		// UTF-16/32 without a BOM has NULs, which mimetype takes for binary.
		if cs, ok := textenc.WideText(head, int64(len(head)) == rec.Size); ok {
			rec.Mime, rec.isText = e.mime("text/plain; charset="+cs), true
		} else if fewControls(head) {
			rec.Mime, rec.isText = "text/plain", true
		}
	}
	rec.ExtMismatch = e.extMismatch(path.Base(rec.Path), mt, rec.isText)
	return nil
}

// isZipFamily reports a head that sniffs as a plain zip or a JAR: what a
// valid EPUB, ODT or XLSX looks like when its marker entries are not
// first (a JAR is only "META-INF/ comes first", as many EPUBs have it).
func isZipFamily(mt *mimetype.MIME) bool {
	return mt.Is("application/zip") || mt.Is("application/java-archive")
}

// containerType asks the zip's central directory what it holds
// (extract.Container): a document's type when its markers say so, else
// the sniffed type. Only zip-family files pay for it, a read of the end
// of the file and its directory, bounded however large the zip.
func containerType(c *content, sniffed *mimetype.MIME) *mimetype.MIME {
	size := c.info.Size()
	var r io.ReaderAt = c.f
	if int64(len(c.data)) >= size {
		r = bytes.NewReader(c.data[:size]) // the whole file is in hand
	}
	if _, mime, ok := extract.Container(r, size); ok {
		if mt := mimetype.Lookup(mime); mt != nil {
			return mt
		}
	}
	return sniffed
}

// mime is the run's one copy of a media type: mimetype gives each file
// its own, and a record is kept per file. Safe for concurrent use. The
// types are mimetype's and textenc's charsets, but for a charset an HTML
// or XML file declares: at worst one copy a file, as without it.
func (e *Env) mime(s string) string {
	if v, ok := e.mimes.Load(s); ok {
		return v.(string)
	}
	v, _ := e.mimes.LoadOrStore(s, s)
	return v.(string)
}

func isTextMime(mt *mimetype.MIME) bool {
	for m := mt; m != nil; m = m.Parent() {
		if m.Is("text/plain") {
			return true
		}
	}
	return false
}

const octetStream = "application/octet-stream"

// extMismatch reports whether the content contradicts what the name promises:
// a ".txt" that is a ZIP, a ".jpg" that is text, a ".dat" or extensionless
// file that is a PNG or a SQLite database.
func (e *Env) extMismatch(base string, mt *mimetype.MIME, isText bool) bool {
	specific := !isText && !mt.Is(octetStream) // a binary format mimetype knows
	class, known := e.Rules.ByExt(base)
	if known && e.Rules.Triage.ZipOnlyExt(base) && !isZipFamily(mt) {
		known = false // a .key that is not a Keynote zip: a key, whose content decides
	}
	_, safe := enry.GetLanguageByExtension(base)
	switch {
	case known && class.Content == "binary":
		return isText || specific && !e.mimeFitsExt(mt, base, class.Mimes)
	case known && class.Content == "text", !known && safe:
		return specific
	default:
		// Generic or unknown extensions (.dat, .bin, none) promise nothing,
		// but a recognisable format behind them is worth flagging. An
		// extensionless executable is normal on Unix, so it is not.
		if !specific {
			return false
		}
		if c, ok := e.Rules.ByMime(mt.String()); ok && c.Reason == "compiled" && path.Ext(base) == "" {
			return false
		}
		return true
	}
}

// mimeFitsExt reports whether the detected type (or one of its parents) is
// the format the extension names.
func (e *Env) mimeFitsExt(mt *mimetype.MIME, base string, classMimes []string) bool {
	ext := strings.ToLower(path.Ext(base))
	if a, ok := e.Rules.Triage.ExtAliases[ext]; ok {
		ext = a
	}
	for m := mt; m != nil; m = m.Parent() {
		if m.Extension() == ext {
			return true
		}
	}
	// Zip-based containers (.docx, .jar, .apk) may sniff as plain zip when
	// their markers sit past the head; accept the container for them.
	if e.Rules.Triage.ZipContainers[ext] && mt.Is("application/zip") {
		return true
	}
	// Formats of one family share a class (OLE .doc/.xls/.ppt, and a
	// password-protected .docx that sniffs as .doc, mimetype issue #474).
	for _, cm := range classMimes {
		if mt.Is(cm) {
			return true
		}
	}
	return false
}

// fewControls reports a head mimetype called binary for a handful of
// control bytes in text: one byte of the WHATWG "binary data" set (0x00–0x08,
// 0x0B, 0x0E–0x1A, 0x1C–0x1F) anywhere in the head makes it
// application/octet-stream, and Lisp sources with a ^C in a string, vim
// keymaps with literal ^V, rc files with ^_ markers have them. Text has no
// NUL and such bytes are rare in it; binary data without one NUL in its
// head is rarer still (random bytes have one every 256). Normalize still
// decides: what no charset reads as text is refused as binary there.
func fewControls(head []byte) bool {
	controls := 0
	for _, c := range head {
		switch {
		case c == 0:
			return false
		case c <= 0x08, c == 0x0b, c >= 0x0e && c <= 0x1a, c >= 0x1c && c <= 0x1f:
			controls++
		}
	}
	return controls > 0 && controls*maxControlsPer <= len(head)
}

// maxControlsPer: at most one control byte per this many bytes of head.
const maxControlsPer = 256
