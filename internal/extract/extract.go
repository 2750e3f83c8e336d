// Package extract turns binary documents (PDF, Office Open XML,
// OpenDocument, RTF, EPUB, Jupyter notebooks) into UTF-8 text an agent can
// read: Markdown where structure helps (headings, tables), one section per
// page, sheet or slide behind a marker such as "--- page 3 ---".
//
// Documents are hostile input. Every extraction runs under Limits that
// count work (decompressed bytes, pages, sheets, cells, output text), so
// the outcome is a function of the bytes, never of the machine's load,
// with a wall-time guard far above what that work costs. It ends in text,
// in text cut short at a work limit (Meta.Truncated says what was left
// out), or in a *Refusal naming why: encrypted, unreadable (with the
// cause) or over-limit. Nothing here writes to disk or reads anything but
// the bytes it is given.
package extract

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"runtime/debug"
	"strings"
	"sync"
	"time"
)

// Format is a document format extraction knows, as files.json's
// extracted_from names it.
type Format string

// The formats with an extractor.
const (
	PDF   Format = "pdf"
	DOCX  Format = "docx"
	XLSX  Format = "xlsx"
	PPTX  Format = "pptx"
	ODT   Format = "odt"
	ODS   Format = "ods"
	ODP   Format = "odp"
	RTF   Format = "rtf"
	EPUB  Format = "epub"
	IPYNB Format = "ipynb"
	DOC   Format = "doc" // Word 97-2003, a Compound File (legacy.go)
	XLS   Format = "xls" // Excel 97-2003 and 5/95
	PPT   Format = "ppt" // PowerPoint 97-2003
)

// Refusal reasons, as files.json's reason field carries them.
const (
	ReasonEncrypted  = "encrypted"  // a password or DRM stands between us and the text
	ReasonUnreadable = "unreadable" // malformed or truncated; Err says where
	ReasonOverLimit  = "over-limit" // a Limits bound was reached; Err names it
	ReasonNoText     = "no-text"    // read, but it holds no text (a scan, only images)
)

// Refusal is why a document yields no text. Extract returns it for every
// per-document failure, and for a document with no text at all (only
// section markers would have been written); any other error means the
// caller's context ended or the writer failed, and the run, not the
// document, is in trouble.
type Refusal struct {
	Reason string // one of the Reason constants
	Err    error  // the cause, naming what and where
}

func (r *Refusal) Error() string { return r.Reason + ": " + r.Err.Error() }
func (r *Refusal) Unwrap() error { return r.Err }

func encrypted(format string, args ...any) error {
	return &Refusal{ReasonEncrypted, fmt.Errorf(format, args...)}
}

func unreadable(format string, args ...any) error {
	return &Refusal{ReasonUnreadable, fmt.Errorf(format, args...)}
}

// overLimit is a work limit reached; the cause names it. Text written
// before it is staged with the closing marker "[… rest not extracted:
// <cause>]" (see cutOff).
func overLimit(format string, args ...any) error {
	return &Refusal{ReasonOverLimit, &limitError{cause: fmt.Sprintf(format, args...)}}
}

// cutOff is overLimit where the extractor can say better what the limit
// leaves out than "the rest": left is the marker's phrase, as "pages
// 5001–6000 not extracted: page limit 5000".
func cutOff(left, format string, args ...any) error {
	return &Refusal{ReasonOverLimit, &limitError{cause: fmt.Sprintf(format, args...), left: left}}
}

// limitError is the cause of a refusal at a work limit. When the limit
// came before any text it is the refusal's; when text came first, Extract
// stages that text instead and left says what was left out
// (Meta.Truncated).
type limitError struct {
	cause string // "6000 pages, more than 5000"
	left  string // "pages 5001–6000 not extracted: page limit 5000"; "": the rest
}

func (e *limitError) Error() string { return e.cause }

// leftOut is the phrase that says what a limit refusal leaves out.
func leftOut(r *Refusal) string {
	var lim *limitError
	if errors.As(r.Err, &lim) && lim.left != "" {
		return lim.left
	}
	return "rest not extracted: " + r.Err.Error()
}

// sectionsLeft says which sections a limit of max leaves out of total
// (more than max): "pages 5001–6000 not extracted: page limit 5000".
func sectionsLeft(noun string, max, total int) string {
	which := fmt.Sprintf("%ss %d–%d", noun, max+1, total)
	if total == max+1 {
		which = fmt.Sprintf("%s %d", noun, total)
	}
	return fmt.Sprintf("%s not extracted: %s limit %d", which, noun, max)
}

// timeGuard is the cause of a refusal by the wall clock (Limits.Timeout):
// a guard against a parser stuck or a machine far too slow, not a limit
// on work.
type timeGuard struct{ limit time.Duration }

func (e *timeGuard) Error() string {
	return fmt.Sprintf("stopped by the %v safety guard on wall time, not by a work limit (a parser stuck, or the machine far too slow)", e.limit)
}

// IsLimit reports a refusal at a work limit: input, decompressed or text
// bytes, pages, sheets, cells, zip entries, nesting. The same bytes under
// the same Limits and extractors are refused the same way every time, so a
// caller may remember the outcome instead of extracting the document
// again (a refresh does). The time guard is not one (IsTimeGuard): how
// far a document gets in it depends on the machine and its load; nor is
// anything else (an unreadable, encrypted or empty document, a failing
// reader).
func IsLimit(err error) bool {
	var r *Refusal
	return errors.As(err, &r) && r.Reason == ReasonOverLimit && !IsTimeGuard(r)
}

// IsLasting reports a refusal that the same bytes meet again under the
// same Limits and extractors, which a caller may remember as it would an
// outcome: one at a work limit (IsLimit), an encrypted document, one
// read whole that holds no text. An unreadable document is not (a
// failing reader refuses it the same way), nor the time guard.
func IsLasting(err error) bool {
	var r *Refusal
	return IsLimit(err) || errors.As(err, &r) && (r.Reason == ReasonEncrypted || r.Reason == ReasonNoText)
}

// IsTimeGuard reports a refusal by Limits.Timeout, the safety guard on
// wall time: an outcome that depends on the machine, which a caller
// should report (a document within the work limits is not expected to
// meet it) and never remember.
func IsTimeGuard(err error) bool {
	var guard *timeGuard
	return errors.As(err, &guard)
}

// Limits bound the work one document may cost. A zero field takes its
// default from DefaultLimits. Every limit but Timeout counts work, so
// where a document meets one is the same on any machine under any load.
type Limits struct {
	Timeout         time.Duration // safety guard on wall time per document, far above what the work limits allow
	MaxInputBytes   int64         // the document file itself
	MaxInflateBytes int64         // bytes decompressed from zip entries and read from them
	MaxTextBytes    int64         // extracted text written
	MaxPages        int           // PDF pages, slides, EPUB sections, notebook cells
	MaxSheets       int           // spreadsheet sheets
	MaxCells        int64         // spreadsheet and table cells visited, empty ones included
	MaxPDFMemory    int64         // memory of the sandbox PDFium runs in
}

// DefaultLimits are generous for real documents (a 2,000-page manual, a
// workbook of two million cells) and small enough that a hostile one costs
// a bounded amount of work and a few hundred MB at most. The time guard is
// far above what that work takes: 5,000 PDF pages at the ~9 ms a page
// PDFium takes are 45 s on an idle machine, and a busy one, shared with
// other workers, must not turn that into a different files.json (see
// docs/extract.md).
func DefaultLimits() Limits {
	return Limits{
		Timeout:         10 * time.Minute,
		MaxInputBytes:   256 << 20,
		MaxInflateBytes: 256 << 20,
		MaxTextBytes:    16 << 20,
		MaxPages:        5000,
		MaxSheets:       256,
		MaxCells:        2_000_000,
		MaxPDFMemory:    512 << 20,
	}
}

func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	limitOr(&l.Timeout, d.Timeout)
	limitOr(&l.MaxInputBytes, d.MaxInputBytes)
	limitOr(&l.MaxInflateBytes, d.MaxInflateBytes)
	limitOr(&l.MaxTextBytes, d.MaxTextBytes)
	limitOr(&l.MaxPages, d.MaxPages)
	limitOr(&l.MaxSheets, d.MaxSheets)
	limitOr(&l.MaxCells, d.MaxCells)
	limitOr(&l.MaxPDFMemory, d.MaxPDFMemory)
	return l
}

// limitOr sets a limit that is zero or negative (unset) to its default.
func limitOr[T ~int | ~int64](v *T, def T) {
	if *v <= 0 {
		*v = def
	}
}

// Meta says what produced the text, for files.json.
type Meta struct {
	Format    Format
	Extractor string // the library or our own extractor
	Version   string // its version: a module version, or our extractor's generation
	Sections  int    // pages, sheets, slides, chapters or cells written
	// Truncated says what a work limit left out of a text cut short
	// ("pages 5001–6000 not extracted: page limit 5000"), as the text's
	// closing marker line does; "" for a whole text.
	Truncated string
}

// extractor is one format's implementation. It writes text to out and
// charges its work to b; it returns a *Refusal for anything wrong with the
// document.
type extractor struct {
	name    string
	module  string // Go module whose version names the extractor's; "" for our own
	version string // our own extractor's generation, bumped when its output changes
	run     func(b *budget, src io.ReaderAt, size int64, out *textWriter) error
}

var extractors = map[Format]extractor{
	PDF:   {name: "pdfium", module: "github.com/klippa-app/go-pdfium", run: extractPDF},
	DOCX:  {name: "repoprep-ooxml", version: "2", run: extractDOCX},
	XLSX:  {name: "excelize", module: "github.com/xuri/excelize/v2", run: extractXLSX},
	PPTX:  {name: "repoprep-ooxml", version: "2", run: extractPPTX},
	ODT:   {name: "repoprep-odf", version: "1", run: extractODT},
	ODS:   {name: "repoprep-odf", version: "1", run: extractODS},
	ODP:   {name: "repoprep-odf", version: "1", run: extractODP},
	RTF:   {name: "repoprep-rtf", version: "2", run: extractRTF},
	EPUB:  {name: "repoprep-epub", version: "1", run: extractEPUB},
	IPYNB: {name: "repoprep-ipynb", version: "1", run: extractIPYNB},
	DOC:   {name: "repoprep-doc", version: "1", run: extractDOC},
	XLS:   {name: "repoprep-xls", version: "1", run: extractXLS},
	PPT:   {name: "repoprep-ppt", version: "1", run: extractPPT},
}

// byExt maps lower-case extensions to formats. Macro-enabled and template
// variants share their family's layout.
var byExt = map[string]Format{
	".pdf":  PDF,
	".docx": DOCX, ".docm": DOCX, ".dotx": DOCX, ".dotm": DOCX,
	".xlsx": XLSX, ".xlsm": XLSX, ".xltx": XLSX, ".xltm": XLSX,
	".pptx": PPTX, ".pptm": PPTX, ".ppsx": PPTX, ".ppsm": PPTX, ".potx": PPTX,
	".odt": ODT, ".ott": ODT,
	".ods": ODS, ".ots": ODS,
	".odp": ODP, ".otp": ODP,
	".rtf":   RTF,
	".epub":  EPUB,
	".ipynb": IPYNB,
	".doc":   DOC, ".dot": DOC,
	".xls": XLS, ".xlt": XLS,
	".ppt": PPT, ".pps": PPT, ".pot": PPT,
}

// byMime maps sniffed content types to formats, so a misnamed document is
// still read as what it is.
var byMime = map[string]Format{
	"application/pdf":   PDF,
	"application/x-pdf": PDF,
	"application/vnd.openxmlformats-officedocument.wordprocessingml.document":   DOCX,
	"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet":         XLSX,
	"application/vnd.openxmlformats-officedocument.presentationml.presentation": PPTX,
	"application/vnd.oasis.opendocument.text":                                   ODT,
	"application/vnd.oasis.opendocument.spreadsheet":                            ODS,
	"application/vnd.oasis.opendocument.presentation":                           ODP,
	"text/rtf":             RTF,
	"application/rtf":      RTF,
	"application/epub+zip": EPUB,
	// application/x-ole-storage, sniffed for these too, is not here: the
	// extension then says which one it holds.
	"application/msword":            DOC,
	"application/vnd.ms-excel":      XLS,
	"application/vnd.ms-powerpoint": PPT,
}

// FormatOf names the format of a document from its sniffed content type
// (mime, parameters allowed) and then its name; ok is false for documents
// no extractor reads (legacy .doc/.xls, Pages, DjVu...).
func FormatOf(name, mime string) (f Format, ok bool) {
	if i := strings.IndexByte(mime, ';'); i >= 0 {
		mime = mime[:i]
	}
	if f, ok := byMime[strings.TrimSpace(mime)]; ok {
		return f, true
	}
	f, ok = byExt[strings.ToLower(path.Ext(name))]
	return f, ok
}

// Extract writes the text of the document src (size bytes, in format f) to
// w under lim. A work limit reached after some text was written cuts the
// text short: it ends in a marker line "[… <what was left out>]", and
// Meta.Truncated holds the phrase. It returns a *Refusal when the
// document yields no text (a limit reached before any text, the time
// guard at any point); the caller then discards whatever was written. Any
// other error comes from ctx or w. Safe for concurrent use.
func Extract(ctx context.Context, f Format, src io.ReaderAt, size int64, lim Limits, w io.Writer) (meta Meta, err error) {
	x, ok := extractors[f]
	if !ok {
		return Meta{}, fmt.Errorf("extract: no extractor for format %q", f)
	}
	meta = Meta{Format: f, Extractor: x.name, Version: x.version}
	if x.module != "" {
		meta.Version = moduleVersion(x.module)
	}
	lim = lim.withDefaults()
	if size > lim.MaxInputBytes {
		return meta, overLimit("%d bytes is over the %d-byte input limit", size, lim.MaxInputBytes)
	}
	dctx, cancel := context.WithTimeout(ctx, lim.Timeout)
	defer cancel()
	b := &budget{ctx: dctx, lim: lim}
	out := newTextWriter(w, lim.MaxTextBytes)
	err = runGuarded(func() error { return x.run(b, src, size, out) })
	if err == nil {
		err = out.Close()
	}
	meta.Sections = b.sections
	if b.actual != "" {
		ax := extractors[b.actual]
		meta.Format, meta.Extractor, meta.Version = b.actual, ax.name, ax.version
	}
	var ref *Refusal
	switch {
	case ctx.Err() != nil:
		return meta, ctx.Err() // the run is stopping; not the document's fault
	case dctx.Err() != nil:
		// Never a cut: where the clock stops depends on the machine.
		return meta, &Refusal{ReasonOverLimit, &timeGuard{lim.Timeout}}
	case errors.As(err, &ref) && IsLimit(ref) && out.wrote():
		meta.Truncated = leftOut(ref)
		meta.Sections = max(meta.Sections, 1) // one-section formats count theirs at the end
		return meta, out.truncate(meta.Truncated)
	case errors.As(err, &ref):
		return meta, ref
	case err != nil && out.failed():
		return meta, err // the writer failed: the caller's problem
	case err != nil:
		return meta, unreadable("%v", err)
	case out.content == 0:
		return meta, &Refusal{ReasonNoText, fmt.Errorf("no text in %d %s", max(meta.Sections, 1), sectionNoun(meta.Format))}
	}
	return meta, nil
}

// sectionNoun names what Meta.Sections counts for a format.
func sectionNoun(f Format) string {
	switch f {
	case PDF:
		return "page(s)"
	case XLSX, ODS, XLS:
		return "sheet(s)"
	case PPTX, ODP, PPT:
		return "slide(s)"
	case EPUB:
		return "section(s)"
	case IPYNB:
		return "cell(s)"
	}
	return "document(s)"
}

// runGuarded turns a panic in a parser (ours or a library's) into an
// unreadable document rather than a dead run.
func runGuarded(fn func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = unreadable("parser panic: %v", r)
		}
	}()
	return fn()
}

var buildInfo = sync.OnceValue(func() map[string]string {
	versions := map[string]string{}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Replace != nil {
				d = d.Replace
			}
			versions[d.Path] = d.Version
		}
	}
	return versions
})

// moduleVersion is the version of a dependency this binary was built
// with, "unknown" when the binary carries no module information.
func moduleVersion(mod string) string {
	if v := buildInfo()[mod]; v != "" {
		return v
	}
	return "unknown"
}

// budget charges one document's work against its limits. It is used by
// one goroutine at a time.
type budget struct {
	ctx      context.Context
	lim      Limits
	inflated int64 // bytes read from decompressing readers
	cells    int64
	sections int
	actual   Format // the format read, when the document held another than asked (legacy.go)
}

// errTimeout stands in for the deadline inside parsers; Extract reports
// the time guard by looking at the context itself.
var errTimeout = errors.New("time limit reached")

// alive fails once the time guard has fired or the run is cancelled.
func (b *budget) alive() error {
	if b.ctx.Err() != nil {
		return errTimeout
	}
	return nil
}

// section counts a page, slide or section against MaxPages.
func (b *budget) section(what string) error {
	if b.sections >= b.lim.MaxPages {
		return overLimit("more than %d %ss", b.lim.MaxPages, what) // Meta.Sections: those written
	}
	b.sections++
	return b.alive()
}

// cell counts n cells against MaxCells.
func (b *budget) cell(n int64) error {
	b.cells += n
	if b.cells > b.lim.MaxCells {
		return overLimit("more than %d cells", b.lim.MaxCells)
	}
	return nil
}

// hold refuses a paragraph or cell held in memory that is already larger
// than all the text the document may yield.
func (b *budget) hold(n int) error {
	if int64(n) > b.lim.MaxTextBytes {
		return overLimit("more than %d bytes of text in one paragraph or cell", b.lim.MaxTextBytes)
	}
	return nil
}

// inflate wraps a decompressing reader so what it yields counts against
// MaxInflateBytes and the time limit is checked on every read.
func (b *budget) inflate(r io.Reader) io.Reader { return &inflateReader{r: r, b: b} }

type inflateReader struct {
	r io.Reader
	b *budget
}

func (r *inflateReader) Read(p []byte) (int, error) {
	if err := r.b.alive(); err != nil {
		return 0, err
	}
	if r.b.inflated >= r.b.lim.MaxInflateBytes {
		return 0, overLimit("more than %d bytes decompressed", r.b.lim.MaxInflateBytes)
	}
	if rest := r.b.lim.MaxInflateBytes - r.b.inflated + 1; int64(len(p)) > rest {
		p = p[:rest]
	}
	n, err := r.r.Read(p)
	r.b.inflated += int64(n)
	if r.b.inflated > r.b.lim.MaxInflateBytes {
		return n, overLimit("more than %d bytes decompressed", r.b.lim.MaxInflateBytes)
	}
	return n, err
}
