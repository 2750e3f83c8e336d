package extract

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	xt "github.com/repoprep/repoprep/internal/extract/extracttest"
)

// Each extractor has a fuzz target asserting the same property: whatever
// the bytes, Extract returns text or a *Refusal (never another error),
// the text is clean UTF-8, and our own parsers never panic (a recovered
// panic is a bug; in a library it is a refusal we tolerate). Zip-based
// formats fuzz the XML inside a valid package, where the parsing is;
// mutating the container itself only exercises archive/zip.

var fuzzLimits = Limits{Timeout: 5 * time.Second, MaxTextBytes: 1 << 20, MaxCells: 100_000}

func fuzzCheck(t *testing.T, f Format, data []byte, libraryMayPanic bool) {
	text, _, err := extract(t, f, data, fuzzLimits)
	var ref *Refusal
	switch {
	case err == nil:
		checkClean(t, string(f), []byte(text))
	case !errors.As(err, &ref):
		t.Fatalf("error that is not a refusal: %v (%T)", err, err)
	case !libraryMayPanic && strings.Contains(err.Error(), "parser panic"):
		t.Fatalf("our parser panicked: %v", err)
	}
}

// zipFromParts rebuilds a package of the given parts, replacing one.
func zipWith(t testing.TB, pkg []byte, name string, body []byte) []byte {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(pkg), int64(len(pkg)))
	if err != nil {
		t.Fatal(err)
	}
	var parts []xt.Part
	for _, f := range zr.File {
		rc, _ := f.Open()
		b, _ := io.ReadAll(rc)
		rc.Close()
		if f.Name == name {
			b = body
		}
		parts = append(parts, xt.Part{Name: f.Name, Body: string(b)})
	}
	return xt.Zip(t, parts...)
}

// xt.Part reads one part of a generated package, for seeds.
func partOf(t testing.TB, pkg []byte, name string) []byte {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(pkg), int64(len(pkg)))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range zr.File {
		if f.Name == name {
			rc, _ := f.Open()
			defer rc.Close()
			b, _ := io.ReadAll(rc)
			return b
		}
	}
	t.Fatalf("no %s", name)
	return nil
}

func fuzzPart(f *testing.F, format Format, pkg []byte, part string, extra ...string) {
	f.Add(partOf(f, pkg, part))
	for _, s := range extra {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		fuzzCheck(t, format, zipWith(t, pkg, part, body), format == XLSX)
	})
}

func FuzzDOCX(f *testing.F) {
	fuzzPart(f, DOCX, xt.DOCX(f), "word/document.xml",
		`<w:document><w:body><w:tbl><w:tr><w:tc><w:tbl></w:tc></w:tr></w:body></w:document>`,
		`<w:p><w:t>unclosed`, "\xff\xfe<\x00")
}

func FuzzXLSX(f *testing.F) {
	fuzzPart(f, XLSX, xt.XLSX(f), "xl/worksheets/sheet1.xml",
		`<worksheet><sheetData><row r="1048576"><c r="XFD1048576"><v>1</v></c></row></sheetData></worksheet>`)
}

func FuzzPPTX(f *testing.F) {
	fuzzPart(f, PPTX, xt.PPTX(f), "ppt/slides/slide1.xml", `<p:sld><a:tbl><a:tr><a:tc><a:p><a:t>x</a:t></a:p></a:tc></a:tbl></p:sld>`)
}

func FuzzODF(f *testing.F) {
	for _, format := range []Format{ODT, ODS, ODP} {
		var pkg []byte
		switch format {
		case ODT:
			pkg = xt.ODT(f, false)
		case ODS:
			pkg = xt.ODS(f)
		default:
			pkg = xt.ODP(f)
		}
		f.Add(byte(len(format)), partOf(f, pkg, "content.xml"))
	}
	f.Add(byte(1), []byte(`<table:table-row table:number-rows-repeated="999999999"><table:table-cell table:number-columns-repeated="999999999"><text:p>x</text:p></table:table-cell></table:table-row>`))
	odt, ods, odp := xt.ODT(f, false), xt.ODS(f), xt.ODP(f)
	f.Fuzz(func(t *testing.T, which byte, body []byte) {
		switch which % 3 {
		case 0:
			fuzzCheck(t, ODT, zipWith(t, odt, "content.xml", body), false)
		case 1:
			fuzzCheck(t, ODS, zipWith(t, ods, "content.xml", body), false)
		default:
			fuzzCheck(t, ODP, zipWith(t, odp, "content.xml", body), false)
		}
	})
}

func FuzzEPUB(f *testing.F) {
	fuzzPart(f, EPUB, xt.EPUB(f, false), "OEBPS/text/ch1.xhtml",
		`<table><tr><td><table><tr><td>x</td></tr></table></td></tr></table>`, `<pre>`+strings.Repeat("<br>", 100), `<h1>`)
}

func FuzzRTF(f *testing.F) {
	f.Add(xt.RTF())
	f.Add([]byte(`{\rtf1\uc0\u-10179\u-8694 \'zz\u}`))
	f.Add([]byte(`{\rtf1{\fonttbl{\f1\fcharset128 x;}}\f1\'82\'a0\cell\row\intbl a\cell}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzCheck(t, RTF, data, false)
	})
}

func FuzzIPYNB(f *testing.F) {
	f.Add(xt.IPYNB(f))
	f.Add([]byte(`{"nbformat":3,"worksheets":[{"cells":[{"cell_type":"code","input":["x"],"prompt_number":1,"outputs":[{"output_type":"pyout","text":"1"}]}]}]}`))
	f.Add([]byte(`{"cells":[{"cell_type":"code","source":7}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzCheck(t, IPYNB, data, false)
	})
}

// FuzzPDF mutates whole PDFs: PDFium parses them in its sandbox, and any
// trap comes back as a refusal.
func FuzzPDF(f *testing.F) {
	f.Add(xt.PDF(f, [][]string{{"hello", "world"}}, xt.PDFOptions{}))
	f.Add(xt.PDF(f, [][]string{{"zip"}}, xt.PDFOptions{Compressed: true}))
	f.Add([]byte("%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF"))
	f.Fuzz(func(t *testing.T, data []byte) {
		needPDFium(t)
		fuzzCheck(t, PDF, data, true)
	})
}

// FuzzTextWriter: whatever extractors feed it, the text is clean.
func FuzzTextWriter(f *testing.F) {
	f.Add("a\r\nb\x00\uFEFF\xff\n\n\n c \t\n")
	f.Fuzz(func(t *testing.T, s string) {
		var b bytes.Buffer
		w := newTextWriter(&b, 1<<20)
		w.Text(s)
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		checkClean(t, fmt.Sprintf("%q", s), b.Bytes())
		if strings.Contains(b.String(), "\n\n\n") || strings.HasPrefix(b.String(), "\n") {
			t.Fatalf("%q -> %q: blank lines not collapsed", s, b.String())
		}
	})
}
