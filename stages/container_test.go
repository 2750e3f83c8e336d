package stages

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gabriel-vasile/mimetype"

	xt "github.com/repoprep/repoprep/internal/extract/extracttest"
)

// containerShape is a zip-based file whose head alone says "zip" or "JAR".
type containerShape struct {
	name     string
	content  []byte
	category string
	reason   string
	mime     string // what classify reports
	mismatch bool
	format   string // extracted_from; "" when no text is extracted
	text     string // a line the staged text holds
}

func containerShapes(t testing.TB) []containerShape {
	const (
		epub = "application/epub+zip"
		odt  = "application/vnd.oasis.opendocument.text"
		xlsx = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
	)
	return []containerShape{
		// Tika's testEPUB.epub: META-INF/ first, so mimetype calls it a JAR.
		{"books/testEPUB.epub", xt.EPUBAfterMetaInf(t), "document", "ebook", epub, false, "epub", "It was a bright cold day"},
		// testEPUB_multi-metadata-vals.epub: mimetype is the last entry.
		{"books/multi.epub", xt.EPUBMimetypeLast(t), "document", "ebook", epub, false, "epub", "| clock | 13 |"},
		// testODTStyles3.odt: content.xml first, mimetype deflated after it.
		{"docs/testODTStyles3.odt", xt.ODTMimetypeNotFirst(t), "document", "office", odt, false, "odt", "# Release notes"},
		// readxl's workbook: [Content_Types].xml last, past 32 KiB.
		{"data/readxl.xlsx", xt.XLSXContentTypesLast(t), "document", "office", xlsx, false, "xlsx", "| Servers \\| cloud | 1200.5 |"},
		// Content decides before the name, for documents too.
		{"notes.txt", xt.ODTMimetypeNotFirst(t), "document", "office", odt, true, "odt", "# Release notes"},
		// Archives stay archives.
		{"lib/app.jar", xt.JAR(t, false), "data", "archive", "application/java-archive", false, "", ""},
		{"lib/big.jar", xt.JAR(t, true), "data", "archive", "application/java-archive", false, "", ""},
		{"dist/bundle.zip", xt.Zip(t, xt.Part{Name: "a.txt", Body: "hello"}, xt.Part{Name: "META-INF/container.xml", Body: "<container/>"}),
			"data", "archive", "application/zip", false, "", ""},
	}
}

// TestContainerTriage: a zip-family head no longer decides alone. Valid
// EPUB, ODT and XLSX files whose markers are not where a head sniffer
// looks are documents, and their text is extracted; JARs and plain zips
// stay archives. Before extract.Container, the first five were
// data/archive with no text.
func TestContainerTriage(t *testing.T) {
	setSniffLimit()
	for _, tt := range containerShapes(t) {
		t.Run(tt.name, func(t *testing.T) {
			if mt := mimetype.Detect(tt.content[:min(len(tt.content), sniffBytes)]); !isZipFamily(mt) {
				t.Fatalf("the head sniffs as %s: the fixture no longer hides its markers", mt)
			}
			rec, staged, err := normalizeOne(t, tt.name, tt.content, 1<<20)
			if err != nil {
				t.Fatal(err)
			}
			if rec.Category != tt.category || rec.Reason != tt.reason || rec.Mime != tt.mime || rec.ExtMismatch != tt.mismatch {
				t.Errorf("%s = %s/%s mime %s mismatch=%v, want %s/%s mime %s mismatch=%v (err %q)", tt.name,
					rec.Category, rec.Reason, rec.Mime, rec.ExtMismatch, tt.category, tt.reason, tt.mime, tt.mismatch, rec.Err)
			}
			if rec.ExtractedFrom != tt.format || rec.Staged != (tt.format != "") {
				t.Errorf("extracted_from %q staged=%v, want %q (err %q)", rec.ExtractedFrom, rec.Staged, tt.format, rec.Err)
			}
			if tt.text != "" && !strings.Contains(staged, tt.text) {
				t.Errorf("staged text lacks %q:\n%s", tt.text, staged)
			}
		})
	}
}

// TestContainerAgainstFile compares with file(1): libmagic, like
// mimetype, reads the head, so it names the documents whose markers come
// first and calls the reordered ones plain zips. Where it names a
// document, it must be the one we name.
func TestContainerAgainstFile(t *testing.T) {
	fileCmd, err := exec.LookPath("file")
	if err != nil {
		t.Skip("file(1) not installed")
	}
	canonical := []containerShape{
		{name: "a.epub", content: xt.EPUB(t, false), mime: "application/epub+zip"},
		{name: "a.odt", content: xt.ODT(t, false), mime: "application/vnd.oasis.opendocument.text"},
		{name: "a.xlsx", content: xt.XLSX(t), mime: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"},
	}
	dir := t.TempDir()
	env := &Env{Src: openRoot(t, dir), Rules: defaultRules(t)}
	for _, tt := range append(canonical, containerShapes(t)...) {
		t.Run(tt.name, func(t *testing.T) {
			name := strings.ReplaceAll(tt.name, "/", "_")
			must(t, os.WriteFile(filepath.Join(dir, name), tt.content, 0o644))
			rec := NewRecord(name, name, int64(len(tt.content)))
			must(t, env.Sniff(t.Context(), rec))
			out, err := exec.Command(fileCmd, "--mime-type", "-b", filepath.Join(dir, name)).Output()
			if err != nil {
				t.Fatal(err)
			}
			theirs := strings.TrimSpace(string(out))
			if rec.Mime != tt.mime {
				t.Errorf("we say %s, want %s", rec.Mime, tt.mime)
			}
			switch {
			case theirs == rec.Mime:
			case theirs == "application/zip" || theirs == "application/java-archive":
				t.Logf("file(1) says %s, we say %s", theirs, rec.Mime) // a reordered document, or a JAR libmagic calls a zip
			default:
				t.Errorf("file(1) says %s, we say %s", theirs, rec.Mime)
			}
		})
	}
}
