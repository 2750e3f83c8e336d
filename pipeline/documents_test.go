package pipeline

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	xt "github.com/repoprep/repoprep/internal/extract/extracttest"
	"github.com/repoprep/repoprep/snapshot"
)

// TestDocumentsExtracted runs the pipeline over a tree of documents: each
// readable one is staged as text under its own path with extracted_from,
// goes through dedup and the secret scan like any text (a credential
// planted in a Word document is found and redacted, its copy elsewhere is
// a duplicate), hostile ones are refused with their reason and cause, a
// legacy format stays unstaged as before, and verify finds the snapshot
// whole.
func TestDocumentsExtracted(t *testing.T) {
	t.Parallel() // changes no package state: see TestMain
	s := plantedSecrets(t)
	docx := xt.DOCX(t, "Deploy key: "+s["aws"], "DATABASE_URL=postgres://app:"+s["pgpass"]+"@db.internal/app")
	src := t.TempDir()
	files := map[string]string{
		"docs/spec.docx":         string(docx),
		"docs/archive/spec.docx": string(docx),
		"sheets/budget.xlsx":     string(xt.XLSX(t)),
		"slides/deck.pptx":       string(xt.PPTX(t)),
		"docs/notes.odt":         string(xt.ODT(t, false)),
		"docs/locked.odt":        string(xt.ODT(t, true)),
		"docs/book.epub":         string(xt.EPUB(t, false)),
		"docs/memo.rtf":          string(xt.RTF()),
		"nb/analysis.ipynb":      string(xt.IPYNB(t)),
		"docs/broken.docx":       string(docx[:len(docx)/2]),
		"docs/bomb.docx": string(xt.ZipBomb(t, "word/document.xml", 1<<30, true,
			xt.Part{Name: "_rels/.rels", Body: `<Relationships/>`})),
		"legacy/drawing.vsd": "\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1" + strings.Repeat("\x00", 504),
		// Garbled text, more than normalize's 64 KiB sample: normalize
		// refuses it while the extractor is still writing.
		"docs/garbled.docx": string(xt.DOCX(t, strings.Repeat("CafÃ© crÃ¨me brÃ»lÃ©e, dÃ©jÃ  vu. ", 5000))),
	}
	writeFiles(t, src, files)
	out := filepath.Join(t.TempDir(), "out")
	res := runFixture(t, src, out, func(o *Options) { o.MaxTextBytes = 1 << 20 })
	byPath := map[string]snapshot.Entry{}
	for _, e := range res.Manifest.Files {
		byPath[e.Path] = e
	}
	extracted := map[string]string{
		"docs/spec.docx": "docx", "sheets/budget.xlsx": "xlsx", "slides/deck.pptx": "pptx", "docs/notes.odt": "odt",
		"docs/book.epub": "epub", "docs/memo.rtf": "rtf", "nb/analysis.ipynb": "ipynb",
	}
	for p, format := range extracted {
		e := byPath[p]
		if !e.Staged || e.Category != "document" || e.ExtractedFrom != format || e.Extractor == "" || e.ExtractorVersion == "" ||
			e.Encoding != "utf-8" || e.Lines == 0 || e.Tokens == 0 || e.Hash == "" || e.Err != "" {
			t.Errorf("%s: %+v", p, e)
		}
		text, err := os.ReadFile(filepath.Join(out, "tree", p))
		if err != nil || int64(len(text)) == 0 || bytes.Count(text, []byte("\n")) != e.Lines {
			t.Errorf("%s: staged text %d bytes, %d lines (files.json: %d), err %v", p, len(text), bytes.Count(text, []byte("\n")), e.Lines, err)
		}
	}
	if e := byPath["nb/analysis.ipynb"]; e.Reason != "notebook" {
		t.Errorf("notebook: reason %q, want notebook", e.Reason)
	}
	if e := byPath["docs/archive/spec.docx"]; e.DuplicateOf != "docs/spec.docx" || e.Staged {
		t.Errorf("copy of a document: %+v", e)
	}
	if e := byPath["docs/spec.docx"]; e.Secrets < 2 {
		t.Errorf("secrets in the document: %d, want the key and the connection string", e.Secrets)
	}
	refused := map[string]string{"docs/locked.odt": "encrypted", "docs/broken.docx": "unreadable", "docs/bomb.docx": "over-limit"}
	for p, reason := range refused {
		e := byPath[p]
		if e.Staged || e.Category != "document" || e.Reason != reason || !strings.HasPrefix(e.Err, "extract: ") || e.ExtractedFrom != "" {
			t.Errorf("%s: %+v, want refused %s", p, e, reason)
		}
	}
	// An extracted text is valid UTF-8: a garbled one is staged as the
	// document holds it, and flagged.
	if e := byPath["docs/garbled.docx"]; !e.Staged || !e.Mojibake || e.Reason == "mojibake" || e.ExtractedFrom != "docx" {
		t.Errorf("garbled document: %+v, want staged and flagged mojibake", e)
	}
	if e := byPath["legacy/drawing.vsd"]; e.Staged || e.Category != "document" || e.Reason != "office" || e.Err != "" {
		t.Errorf("legacy .doc: %+v", e)
	}
	// No planted value reaches OUT: the document's staged text is redacted.
	filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, _ := os.ReadFile(p)
		for _, k := range []string{"aws", "pgpass"} {
			if bytes.Contains(b, []byte(s[k])) {
				t.Errorf("%s: the planted %s secret reached OUT", p, k)
			}
		}
		return nil
	})
	staged, _ := os.ReadFile(filepath.Join(out, "tree", "docs", "spec.docx"))
	if !bytes.Contains(staged, []byte("[REDACTED:aws-access-key-id]")) || !bytes.Contains(staged, []byte("| EUR \\| USD |")) {
		t.Errorf("staged text of spec.docx:\n%s", staged)
	}
	// The audit and the map count them.
	a := res.Report.Audit
	if got := fmt.Sprint(a.DocumentsExtracted); !strings.Contains(got, "{docx 2 ") || len(a.DocumentsExtracted) != 7 {
		t.Errorf("audit documents extracted: %v", a.DocumentsExtracted)
	}
	if got := fmt.Sprint(a.DocumentsRefused); len(a.DocumentsRefused) != 3 || !strings.Contains(got, "encrypted 1") {
		t.Errorf("audit documents refused: %v", got)
	}
	repoMap, _ := os.ReadFile(filepath.Join(out, "REPO_MAP.md"))
	if !strings.Contains(string(repoMap), "8 documents (") || !strings.Contains(string(repoMap), "read as the text extracted from them") ||
		!strings.Contains(string(repoMap), "; 3 documents could not be read as text") {
		t.Errorf("REPO_MAP.md does not mention the documents:\n%s", repoMap)
	}
	drifts, err := snapshot.Verify(t.Context(), out)
	if err != nil || len(drifts) != 0 {
		t.Errorf("verify: %v %v", drifts, err)
	}
}

// TestDocumentsPDF stages a PDF's text and refuses an encrypted one (run
// without -race by make test: see extracttest.SkipPDFUnderRace).
func TestDocumentsPDF(t *testing.T) {
	xt.SkipPDFUnderRace(t)
	src := t.TempDir()
	writeFiles(t, src, map[string]string{
		"docs/spec.pdf":   string(xt.PDF(t, [][]string{{"Refund policy", "Refunds within 5 days."}, {"Appendix"}}, xt.PDFOptions{Compressed: true})),
		"docs/locked.pdf": string(xt.PDF(t, [][]string{{"secret"}}, xt.PDFOptions{Encrypt: true})),
		"scan/empty.pdf":  string(xt.PDF(t, [][]string{{}}, xt.PDFOptions{})),
	})
	out := filepath.Join(t.TempDir(), "out")
	res := runFixture(t, src, out, nil)
	byPath := map[string]snapshot.Entry{}
	for _, e := range res.Manifest.Files {
		byPath[e.Path] = e
	}
	if e := byPath["docs/spec.pdf"]; !e.Staged || e.ExtractedFrom != "pdf" || e.Extractor != "pdfium" || e.Lines != 6 {
		t.Errorf("spec.pdf: %+v", e)
	}
	text, _ := os.ReadFile(filepath.Join(out, "tree", "docs", "spec.pdf"))
	if want := "--- page 1 ---\nRefund policy\nRefunds within 5 days.\n\n--- page 2 ---\nAppendix\n"; string(text) != want {
		t.Errorf("staged text:\n%q\nwant\n%q", text, want)
	}
	if e := byPath["docs/locked.pdf"]; e.Staged || e.Reason != "encrypted" {
		t.Errorf("locked.pdf: %+v", e)
	}
	if e := byPath["scan/empty.pdf"]; e.Staged || e.Reason != "no-text" || e.Err != "extract: no text in 1 page(s)" {
		t.Errorf("empty.pdf: %+v", e)
	}
}
