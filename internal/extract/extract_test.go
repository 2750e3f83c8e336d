package extract

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	xt "github.com/repoprep/repoprep/internal/extract/extracttest"

	"github.com/xuri/excelize/v2"

	"github.com/repoprep/repoprep/internal/testkit"
)

func extract(t testing.TB, f Format, data []byte, lim Limits) (string, Meta, error) {
	t.Helper()
	var out bytes.Buffer
	meta, err := Extract(context.Background(), f, bytes.NewReader(data), int64(len(data)), lim, &out)
	return out.String(), meta, err
}

// TestGolden extracts one generated document of each format and compares
// the text with testdata/golden/<name>.txt (rewrite with -update and
// review the diff).
func TestGolden(t *testing.T) {
	cases := []struct {
		name     string
		format   Format
		data     func(testing.TB) []byte
		sections int
	}{
		{"pdf", PDF, func(t testing.TB) []byte {
			return xt.PDF(t, [][]string{
				{"Payment service specification", "Version 1.2 (draft)", "Refunds are issued within 5 days."},
				{"Appendix A", "Caf\xe9 menu: 3 items"},
			}, xt.PDFOptions{Compressed: true})
		}, 2},
		{"docx", DOCX, func(t testing.TB) []byte { return xt.DOCX(t) }, 1},
		{"xlsx", XLSX, xt.XLSX, 2},
		{"pptx", PPTX, xt.PPTX, 2},
		{"odt", ODT, func(t testing.TB) []byte { return xt.ODT(t, false) }, 1},
		{"ods", ODS, xt.ODS, 2},
		{"odp", ODP, xt.ODP, 2},
		{"epub", EPUB, func(t testing.TB) []byte { return xt.EPUB(t, false) }, 2},
		{"ipynb", IPYNB, xt.IPYNB, 6},
		{"rtf", RTF, func(testing.TB) []byte { return xt.RTF() }, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.format == PDF {
				needPDFium(t)
			}
			text, meta, err := extract(t, c.format, c.data(t), Limits{})
			if err != nil {
				t.Fatal(err)
			}
			if meta.Format != c.format || meta.Extractor == "" || meta.Version == "" {
				t.Errorf("meta = %+v", meta)
			}
			if meta.Sections != c.sections {
				t.Errorf("sections = %d, want %d", meta.Sections, c.sections)
			}
			checkClean(t, c.name, []byte(text))
			testkit.Golden(t, filepath.Join("testdata", "golden", c.name+".txt"), []byte(text))
		})
	}
}

// TestHostile feeds documents built to hurt: each must be refused with
// the right reason, quickly, without the memory a bomb asks for.
func TestHostile(t *testing.T) {
	docxParts := []xt.Part{
		{Name: "[Content_Types].xml", Body: `<Types/>`},
		{Name: "_rels/.rels", Body: `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>`},
	}
	docx := xt.DOCX(t)
	cases := []struct {
		name   string
		format Format
		data   func(testing.TB) []byte
		lim    Limits
		reason string
		cause  string
	}{
		{"zip bomb, honest header (1 GiB document.xml)", DOCX, func(t testing.TB) []byte {
			return xt.ZipBomb(t, "word/document.xml", 1<<30, true, docxParts...)
		}, Limits{}, ReasonOverLimit, "inflates to 1073741824 bytes"},
		{"zip bomb, lying header (declares 1 KiB)", DOCX, func(t testing.TB) []byte {
			return xt.ZipBomb(t, "word/document.xml", 1<<30, false, docxParts...)
		}, Limits{}, ReasonUnreadable, "word/document.xml"},
		{"zip bomb in a workbook", XLSX, func(t testing.TB) []byte {
			return xt.ZipBomb(t, "xl/worksheets/sheet1.xml", 1<<30, true, xt.Part{Name: "xl/workbook.xml", Body: "<workbook/>"})
		}, Limits{}, ReasonOverLimit, "inflates to"},
		{"zip bomb in a spreadsheet under a small inflate limit", ODS, func(t testing.TB) []byte {
			return xt.ZipBomb(t, "content.xml", 64<<20, false)
		}, Limits{MaxInflateBytes: 1 << 20}, ReasonUnreadable, "content.xml"},
		{"truncated DOCX", DOCX, func(t testing.TB) []byte { return docx[:len(docx)*3/5] }, Limits{}, ReasonUnreadable, "not a zip container"},
		{"DOCX that is not a zip", DOCX, func(testing.TB) []byte { return []byte("just text") }, Limits{}, ReasonUnreadable, "not a zip container"},
		{"encrypted PDF", PDF, func(t testing.TB) []byte {
			return xt.PDF(t, [][]string{{"secret plans"}}, xt.PDFOptions{Encrypt: true})
		}, Limits{}, ReasonEncrypted, "password"},
		{"deeply nested PDF (a page tree 100,000 levels deep)", PDF, func(t testing.TB) []byte {
			return xt.PDF(t, [][]string{{"deep"}}, xt.PDFOptions{TreeDepth: 100_000})
		}, Limits{}, ReasonUnreadable, "page 1"},
		{"truncated PDF", PDF, func(t testing.TB) []byte {
			p := xt.PDF(t, [][]string{{"cut short"}}, xt.PDFOptions{})
			return p[:40]
		}, Limits{}, ReasonUnreadable, ""},
		{"PDF over the page limit, no text before it", PDF, func(t testing.TB) []byte {
			return xt.PDF(t, [][]string{{}, {}, {"3"}}, xt.PDFOptions{})
		}, Limits{MaxPages: 2}, ReasonOverLimit, "3 pages, more than 2"},
		{"encrypted ODT", ODT, func(t testing.TB) []byte { return xt.ODT(t, true) }, Limits{}, ReasonEncrypted, "password"},
		{"DRM EPUB", EPUB, func(t testing.TB) []byte { return xt.EPUB(t, true) }, Limits{}, ReasonEncrypted, "DRM"},
		{"encrypted XLSX", XLSX, encryptedXLSX, Limits{}, ReasonEncrypted, "EncryptionInfo"},
		{"workbook over the cell limit", XLSX, xt.XLSX, Limits{MaxCells: 5}, ReasonOverLimit, "cells"},
		{"spreadsheet repeating a row a million times", ODS, func(t testing.TB) []byte {
			return xt.ODF(t, "application/vnd.oasis.opendocument.spreadsheet", `<office:spreadsheet><table:table table:name="x">
<table:table-row table:number-rows-repeated="1000000"><table:table-cell table:number-columns-repeated="1000"><text:p>x</text:p></table:table-cell></table:table-row></table:table></office:spreadsheet>`, false)
		}, Limits{}, ReasonOverLimit, "cells"},
		{"a first paragraph over the text limit", DOCX, func(t testing.TB) []byte {
			doc := `<w:document ` + xt.WordNS + `><w:body><w:p><w:r><w:t>` + strings.Repeat("word ", 100) + `</w:t></w:r></w:p></w:body></w:document>`
			return xt.Zip(t, append(docxParts, xt.Part{Name: "word/document.xml", Body: doc})...)
		}, Limits{MaxTextBytes: 256}, ReasonOverLimit, "bytes of text"},
		{"RTF nested 5,000 groups deep", RTF, func(testing.TB) []byte {
			return []byte(`{\rtf1 ` + strings.Repeat("{", 5000) + "x" + strings.Repeat("}", 5000) + "}")
		}, Limits{}, ReasonOverLimit, "nested"},
		{"RTF without a header", RTF, func(testing.TB) []byte { return []byte("plain") }, Limits{}, ReasonUnreadable, `{\rtf`},
		{"notebook that is not JSON", IPYNB, func(testing.TB) []byte { return []byte("{") }, Limits{}, ReasonUnreadable, "notebook JSON"},
		{"input over the input limit", RTF, func(testing.TB) []byte { return xt.RTF() }, Limits{MaxInputBytes: 10}, ReasonOverLimit, "input limit"},
		{"tables nested 40 deep", DOCX, func(t testing.TB) []byte {
			doc := `<w:document ` + xt.WordNS + `><w:body>` + strings.Repeat("<w:tbl><w:tr><w:tc>", 40) + strings.Repeat("</w:tc></w:tr></w:tbl>", 40) + `</w:body></w:document>`
			return xt.Zip(t, append(docxParts, xt.Part{Name: "word/document.xml", Body: doc})...)
		}, Limits{}, ReasonOverLimit, "nested more than"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.format == PDF {
				needPDFium(t)
			}
			data := c.data(t)
			start := time.Now()
			text, _, err := extract(t, c.format, data, c.lim)
			took := time.Since(start)
			var ref *Refusal
			if !errors.As(err, &ref) {
				t.Fatalf("err = %v (%T), want a refusal; text:\n%s", err, err, text)
			}
			if ref.Reason != c.reason || !strings.Contains(ref.Err.Error(), c.cause) {
				t.Errorf("refused %q: %v; want %q mentioning %q", ref.Reason, ref.Err, c.reason, c.cause)
			}
			if IsTimeGuard(err) {
				t.Errorf("refused by the clock after %v, not by a check", took)
			}
		})
	}
}

// encryptedXLSX saves a workbook with a password, as Excel does: an OLE
// compound file holding EncryptionInfo and EncryptedPackage.
func encryptedXLSX(t testing.TB) []byte {
	f := excelize.NewFile()
	f.SetCellValue("Sheet1", "A1", "secret")
	var b bytes.Buffer
	if err := f.Write(&b, excelize.Options{Password: "hunter2"}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestPDFBomb gives PDFium a page whose content stream inflates to four
// times its memory ceiling: the document is refused (PDFium aborts inside
// its sandbox when an allocation fails) within the time limit, and the
// process is still here.
func TestPDFBomb(t *testing.T) {
	needPDFium(t)
	data := xt.PDF(t, [][]string{{"before the bomb"}}, xt.PDFOptions{BombBytes: 4 * testPDFMemory})
	start := time.Now()
	text, _, err := extract(t, PDF, data, Limits{Timeout: 20 * time.Second})
	var ref *Refusal
	if !errors.As(err, &ref) || ref.Reason != ReasonUnreadable || !strings.Contains(err.Error(), "PDFium aborted on page 2") {
		t.Fatalf("err = %v, want unreadable: PDFium aborted on page 2; text:\n%s", err, text)
	}
	t.Logf("%v in %v", err, time.Since(start))
}

// TestPDFDeepObjects: arrays nested far past PDFium's depth limit in an
// object the text does not need are dropped by PDFium, and the page is
// read.
func TestPDFDeepObjects(t *testing.T) {
	needPDFium(t)
	text, _, err := extract(t, PDF, xt.PDF(t, [][]string{{"still read"}}, xt.PDFOptions{NestDepth: 100_000}), Limits{})
	if err != nil || !strings.Contains(text, "still read") {
		t.Errorf("err = %v, text %q", err, text)
	}
}

// TestCancelled: the caller's cancellation is not a refusal (the time
// guard, which is one: TestTimeGuard).
func TestCancelled(t *testing.T) {
	data := []byte(`{\rtf1 \par x }`)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Extract(ctx, RTF, bytes.NewReader(data), int64(len(data)), Limits{}, &bytes.Buffer{})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v, want context.Canceled", err)
	}
}

func TestFormatOf(t *testing.T) {
	cases := []struct {
		name, mime string
		want       Format
		ok         bool
	}{
		{"a/spec.pdf", "application/pdf", PDF, true},
		{"a/spec.PDF", "", PDF, true},
		{"notes.txt", "application/pdf", PDF, true}, // content wins
		{"r.docx", "application/zip", DOCX, true},
		{"r.docm", "", DOCX, true},
		{"b.xlsx", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", XLSX, true},
		{"d.pptx", "", PPTX, true},
		{"x.odt", "", ODT, true}, {"x.ods", "", ODS, true}, {"x.odp", "", ODP, true},
		{"x.rtf", "text/rtf; charset=utf-8", RTF, true},
		{"book.epub", "application/epub+zip", EPUB, true},
		{"nb.ipynb", "application/json", IPYNB, true},
		{"old.doc", "application/msword", DOC, true},
		{"old.xls", "application/vnd.ms-excel", XLS, true},
		{"deck.pps", "application/x-ole-storage", PPT, true}, // the name decides what an OLE file holds
		{"drawing.vsd", "application/x-ole-storage", "", false},
		{"scan.djvu", "image/vnd.djvu", "", false},
	}
	for _, c := range cases {
		got, ok := FormatOf(c.name, c.mime)
		if got != c.want || ok != c.ok {
			t.Errorf("FormatOf(%q, %q) = %q, %v; want %q, %v", c.name, c.mime, got, ok, c.want, c.ok)
		}
	}
}

// TestTextWriter pins the cleaning every extractor's text goes through.
func TestTextWriter(t *testing.T) {
	cases := []struct{ in, want string }{
		{"a\r\nb\rc\n", "a\nb\nc\n"},
		{"\n\n\nfirst\n\n\n\nsecond   \n\n", "first\n\nsecond\n"},
		{"nul\x00bel\x07 tab\tkept", "nulbel tab\tkept\n"},
		{"bom\uFEFF c1\u0085 nonchar\uFFFE end", "bom c1 nonchar end\n"},
		{"bad \xff byte", "bad \uFFFD byte\n"},
		{"form\ffeed\vvt", "form\nfeed\nvt\n"},
		{"line\u2028sep", "line\nsep\n"},
		{"", ""},
	}
	for _, c := range cases {
		var b bytes.Buffer
		w := newTextWriter(&b, 1<<20)
		w.Text(c.in)
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if b.String() != c.want {
			t.Errorf("%q -> %q, want %q", c.in, b.String(), c.want)
		}
	}
	var b bytes.Buffer
	w := newTextWriter(&b, 10)
	w.Line("0123456789abcdef")
	var ref *Refusal
	if !errors.As(w.Close(), &ref) || ref.Reason != ReasonOverLimit {
		t.Errorf("over the limit: %v", w.Err())
	}
}

func TestTable(t *testing.T) {
	var tb table
	b := &budget{lim: DefaultLimits()}
	tb.add([]string{"Name", "Note", ""}, b)
	tb.add([]string{"", "", ""}, b)
	tb.add([]string{"a|b", "two\nlines", "x"}, b)
	var out bytes.Buffer
	w := newTextWriter(&out, 1<<20)
	tb.write(w)
	w.Close()
	want := "| Name | Note |  |\n| --- | --- | --- |\n| a\\|b | two<br>lines | x |\n"
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
}

// TestCompileCache: PDFium's compiled code is kept where
// REPOPREP_WAZERO_CACHE says (so a second process skips seconds of
// compilation), and "off" turns the cache off.
func TestCompileCache(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "wazero")
	t.Setenv("REPOPREP_WAZERO_CACHE", dir)
	c, _ := compileCache()
	if c == nil {
		t.Fatal("compileCache = nil with a writable directory")
	}
	defer c.Close(context.Background())
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o700 {
		t.Errorf("cache dir: %v %v", fi, err)
	}
	t.Setenv("REPOPREP_WAZERO_CACHE", "off")
	if c, _ := compileCache(); c != nil {
		t.Error("compileCache with REPOPREP_WAZERO_CACHE=off is not nil")
	}
}

// TestHTMLImpliedEndTags: HTML may leave out </td> and </tr> and may end a
// cell it never started; a table reads as a browser shows it.
func TestHTMLImpliedEndTags(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"no end tags", `<table><tr><td>a<td>b<tr><td>c<td>d</table>`,
			"| a | b |\n| --- | --- |\n| c | d |\n"},
		{"row closed by the table", `<table><tr><td>a</td><td>b</td></tr><tr><td>c</td><td>d</td></table>`,
			"| a | b |\n| --- | --- |\n| c | d |\n"},
		{"stray end tags", `<table><tr><td>a</td></td><td>b</td></tr></tr></table>`,
			"| a | b |\n| --- | --- |\n"},
		{"cell without a row", `<table><td>a</td><td>b</td></table>`,
			"| a | b |\n| --- | --- |\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			w := newTextWriter(&out, 1<<20)
			if err := htmlText(&budget{ctx: context.Background(), lim: DefaultLimits()}, strings.NewReader(tt.in), w); err != nil {
				t.Fatal(err)
			}
			w.Close()
			if out.String() != tt.want {
				t.Errorf("got\n%s\nwant\n%s", out.String(), tt.want)
			}
		})
	}
}
