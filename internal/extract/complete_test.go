package extract

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	xt "github.com/repoprep/repoprep/internal/extract/extracttest"
	"github.com/repoprep/repoprep/internal/testkit"
)

// These tests pin text that lives outside a document's main part or
// stream: Word headers, footers, notes and comments, charts, SmartArt,
// slide masters, altChunk imports, General numbers in full, and RTF
// tables as writers leave them. Each failed on the extractors before
// they read it.

// TestCompleteGolden compares the documents of extracttest/complete.go
// with testdata/golden/<name>.txt.
func TestCompleteGolden(t *testing.T) {
	cases := []struct {
		name   string
		format Format
		data   func(testing.TB) []byte
	}{
		{"docx_memo", DOCX, xt.DOCXMemo},
		{"pptx_charts", PPTX, xt.PPTXCharts},
		{"xlsx_numbers", XLSX, xt.XLSXNumbers},
		{"rtf_tables", RTF, func(testing.TB) []byte { return xt.RTFTables() }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			text, _, err := extract(t, c.format, c.data(t), Limits{})
			if err != nil {
				t.Fatal(err)
			}
			checkClean(t, c.name, []byte(text))
			testkit.Golden(t, filepath.Join("testdata", "golden", c.name+".txt"), []byte(text))
		})
	}
}

// containsInOrder fails the test unless each of want is in text, each
// after the one before.
func containsInOrder(t *testing.T, text string, want ...string) {
	t.Helper()
	rest := text
	for _, w := range want {
		i := strings.Index(rest, w)
		if i < 0 {
			t.Errorf("%q missing (or out of order) in:\n%s", w, text)
			return
		}
		rest = rest[i+len(w):]
	}
}

// TestDOCXParts: headers (once, however many parts repeat them), the
// body, footnotes and endnotes numbered in the order the body refers to
// them, comments with their authors, footers; separator notes and a
// glossary's parts left out.
func TestDOCXParts(t *testing.T) {
	text, _, err := extract(t, DOCX, xt.DOCXMemo(t), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	containsInOrder(t, text,
		"--- header ---\nACME Corp · Internal\n\n--- body ---\n\n# Rollout memo",
		"The rollout starts in May[^1] in three regions.",
		"Budgets follow the plan[^2] and the footnote again[^1].",
		"--- footnotes ---\n[^1]: After the code freeze.\n[^3]: A note nothing refers to.",
		"--- endnotes ---\n[^2]: Plan of 12 March.",
		"--- comments ---\n[comment 1 (Ana Lima)]: Which regions?\n    EMEA first, please.\n[comment 2]: Unanchored remark.",
		"--- footer ---\nPage 1\n")
	if strings.Count(text, "ACME Corp") != 1 {
		t.Errorf("the repeated header is written %d times, want once", strings.Count(text, "ACME Corp"))
	}
	for _, absent := range []string{"Glossary text", "PAGE", "separator"} {
		if strings.Contains(text, absent) {
			t.Errorf("%q in the text", absent)
		}
	}
}

// TestDOCXObjects: a chart's title, series, categories and values, a
// SmartArt diagram's nodes, altChunk HTML and MHT imports, and the label
// an embedded object's picture draws come out where they are anchored; a
// chart in a table cell goes into the cell.
func TestDOCXObjects(t *testing.T) {
	text, _, err := extract(t, DOCX, xt.DOCXMemo(t), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	containsInOrder(t, text,
		"Figure 1:\n\nChart: Sales by region\nAxis: Region\n\n|  | 2025 | 2026 (plan) |\n| --- | --- | --- |\n| EMEA | 4.2 | 5 |\n| Americas | 3.1 | 3.3 |\n| APAC | 1.75 |",
		"The same chart again (written once):\n\nPlan\nBuild\nand test\nShip\n",
		"| Q3 | Chart: Q3 sales by region<br>Axis: Region<br>",
		"Imported HTML paragraph.",
		"Imported café notes, a long line.",
		"Installer:\n[embedded Package: Setup.exe]\nSigned, the team.")
	if strings.Count(text, "Chart: Sales by region") != 1 {
		t.Errorf("a chart anchored twice is written %d times, want once", strings.Count(text, "Chart: Sales by region"))
	}
	if strings.Contains(text, "AcroExch") {
		t.Errorf("an embedded object whose picture draws no text is written:\n%s", text)
	}
	if strings.Contains(text, "connector words") || strings.Contains(text, "not text") {
		t.Errorf("diagram connectors or an HTML title in the text:\n%s", text)
	}
}

// TestBrokenSideParts: a chart, an imported chunk, a comments part or a
// relationships part that cannot be read costs the document only that
// part.
func TestBrokenSideParts(t *testing.T) {
	memo := xt.DOCXMemo(t)
	for _, part := range []string{"word/charts/chart1.xml", "word/chunk.mht", "word/comments.xml", "word/header1.xml", "word/_rels/document.xml.rels", "[Content_Types].xml"} {
		t.Run(part, func(t *testing.T) {
			text, _, err := extract(t, DOCX, zipWith(t, memo, part, []byte("<x><y>unclosed")), Limits{})
			if err != nil || !strings.Contains(text, "Signed, the team.") {
				t.Errorf("err = %v; text:\n%s", err, text)
			}
		})
	}
	deck := xt.PPTXCharts(t)
	for _, part := range []string{"ppt/charts/chart1.xml", "ppt/diagrams/data1.xml", "ppt/slideLayouts/slideLayout1.xml", "ppt/drawings/vmlDrawing1.vml"} {
		t.Run(part, func(t *testing.T) {
			text, _, err := extract(t, PPTX, zipWith(t, deck, part, []byte("<x><y>unclosed")), Limits{})
			if err != nil || !strings.Contains(text, "## Next steps") {
				t.Errorf("err = %v; text:\n%s", err, text)
			}
		})
	}
}

// TestSidePartBounds: a document naming 100 headers has 64 read; a chart
// of 30,000 points writes 20,000 and says how many it left out.
func TestSidePartBounds(t *testing.T) {
	memo := xt.DOCXMemo(t)
	var rels, points strings.Builder
	rels.WriteString(`<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">`)
	parts := []xt.Part{}
	for i := range 100 {
		fmt.Fprintf(&rels, `<Relationship Id="h%d" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/header" Target="h%d.xml"/>`, i, i)
		parts = append(parts, xt.Part{Name: fmt.Sprintf("word/h%d.xml", i), Body: fmt.Sprintf(`<w:hdr %s><w:p><w:r><w:t>Header %d</w:t></w:r></w:p></w:hdr>`, xt.WordNS, i)})
	}
	rels.WriteString(`<Relationship Id="c" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/chart" Target="charts/chart1.xml"/></Relationships>`)
	for i := range 30_000 {
		fmt.Fprintf(&points, `<c:pt idx="%d"><c:v>%d</c:v></c:pt>`, i, i)
	}
	doc := `<w:document ` + xt.WordNS + `><w:body><w:p><w:r><w:drawing><c:chart xmlns:c="http://schemas.openxmlformats.org/drawingml/2006/chart" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" r:id="c"/></w:drawing></w:r></w:p></w:body></w:document>`
	chart := `<c:chartSpace xmlns:c="http://schemas.openxmlformats.org/drawingml/2006/chart"><c:chart><c:plotArea><c:lineChart><c:ser><c:val><c:numRef><c:numCache>` + points.String() + `</c:numCache></c:numRef></c:val></c:ser></c:lineChart></c:plotArea></c:chart></c:chartSpace>`
	parts = append(parts,
		xt.Part{Name: "[Content_Types].xml", Body: `<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>`},
		xt.Part{Name: "_rels/.rels", Body: string(partOf(t, memo, "_rels/.rels"))},
		xt.Part{Name: "word/document.xml", Body: doc},
		xt.Part{Name: "word/_rels/document.xml.rels", Body: rels.String()},
		xt.Part{Name: "word/charts/chart1.xml", Body: chart})
	text, _, err := extract(t, DOCX, xt.Zip(t, parts...), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(text, "Header "); n != maxSideParts {
		t.Errorf("%d headers written, want %d", n, maxSideParts)
	}
	if !strings.Contains(text, "| 19999 |") || strings.Contains(text, "| 20000 |") || !strings.Contains(text, "[chart data cut: 10000 more points or series]") {
		t.Errorf("chart not cut at %d points:\n%s", maxChartPoints, text[len(text)-300:])
	}
}

// TestPPTXObjects: charts, SmartArt and the text embedded objects'
// pictures draw (found in an mc:Fallback, or through a VML drawing) on
// slides, master and layout text that is not a placeholder's prompt; a
// chart on a notes page left out.
func TestPPTXObjects(t *testing.T) {
	text, meta, err := extract(t, PPTX, xt.PPTXCharts(t), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if meta.Sections != 2 {
		t.Errorf("sections = %d, want 2", meta.Sections)
	}
	containsInOrder(t, text,
		"--- slide master ---\nACME confidential\n",
		"--- slide 1 ---\n\n## Regional sales\n\nChart: Sales by region\nAxis: Region\n\n|  | 2025 | 2026 (plan) |",
		"| APAC | 1.75 |",
		"[embedded Package: Report.pdf Café menu]",
		"Notes:\n> Say the APAC number twice.",
		"--- slide 2 ---\n\n## Next steps\n\nPlan\nBuild\nand test\nShip\n",
		"[embedded Excel.Sheet.12: Q1 Q2 Total]")
	for _, absent := range []string{"Click to edit", "‹#›", "3/1/2026", "Notes chart", "connector words"} {
		if strings.Contains(text, absent) {
			t.Errorf("%q in the text:\n%s", absent, text)
		}
	}
}

// TestXLSXGeneralNumbers: a number in the General format keeps every
// digit Excel keeps (15 significant), without an exponent unless its
// magnitude needs one; other formats are applied as before.
func TestXLSXGeneralNumbers(t *testing.T) {
	text, _, err := extract(t, XLSX, xt.XLSXNumbers(t), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{ // stored (column A) -> shown (column B)
		"123456789012345":     "123456789012345",
		"123456789012346":     "123456789012346",
		"-123456789012345":    "-123456789012345",
		"123456789012344":     "123456789012344", // no style: excelize kept it whole before too
		"1234567890.12345":    "1234567890.12345",
		"0.30000000000000004": "0.3", // excelize shows 15 digits here, not cut: kept
		"0.1":                 "0.1",
		"1E+22":               "1E+22",
		"1.5E-10":             "1.5E-10",
		"12345678901":         "12345678901",
		"1234567890123456789": "1234567890123456789",
		"2.5":                 "2.50",
		"45000":               "03-15-23",
		"1234567":             "1,234,567",
		"0":                   "0",
	}
	got := map[string]string{}
	for _, line := range strings.Split(text, "\n") {
		cells := strings.Split(strings.Trim(line, "| "), " | ")
		if len(cells) == 2 {
			got[cells[0]] = cells[1]
		}
	}
	for stored, shown := range want {
		if got[stored] != shown {
			t.Errorf("stored %s: shown %q, want %q", stored, got[stored], shown)
		}
	}
}

// TestGeneralNumber pins the General rendering on its own.
func TestGeneralNumber(t *testing.T) {
	cases := map[string]string{
		"123456789012345": "123456789012345", "-0": "0", "1E+21": "1E+21", "999000000000000000000": "999000000000000000000",
		"1E-9": "0.000000001", "1.2e-10": "1.2E-10", "0.6666666666666666": "0.6666666666666666", "100": "100",
		"1234567890123456789": "1234567890123456789", "-000120.500": "-120.5", "1.5E3": "1500", ".5": "0.5",
	}
	for stored, want := range cases {
		v, _ := strconv.ParseFloat(stored, 64)
		if got := generalNumber(stored, v); got != want {
			t.Errorf("generalNumber(%s) = %q, want %q", stored, got, want)
		}
	}
}

// TestRTFTables: each cell comes out separate, whether the writer marked
// it \intbl or not, ended the row with \row or not; a nested table goes
// into its cell a row a line, once (its \nonesttables copy left out).
func TestRTFTables(t *testing.T) {
	text, _, err := extract(t, RTF, xt.RTFTables(), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	want := `| Fax / Phone Station | Fax / Phone # |
| --- | --- |

Between the tables.

| Name | Role |
| --- | --- |
| Ana | Lead |

After the first table.

| Outer A | inner 1 ; inner 2<br>inner 3 ; inner 4<br>outer text |
| --- | --- |

Last words before a table.

| Café | Ende |
| --- | --- |
`
	if text != want {
		t.Errorf("got\n%s\nwant\n%s", text, want)
	}
}

// TestMetafileText: the text of EMF and WMF pictures, and nothing (no
// panic) from cut or lying records.
func TestMetafileText(t *testing.T) {
	emf, wmf := xt.EMF("Setup.exe", "Zoë"), xt.WMF("TXT.txt", "Café")
	if got := metafileText(emf); got != "Setup.exe Zoë" {
		t.Errorf("EMF: %q", got)
	}
	if got := metafileText(wmf); got != "TXT.txt Café" {
		t.Errorf("WMF: %q", got)
	}
	for _, b := range [][]byte{emf[:100], wmf[:30], []byte("\x01\x00\x00\x00\xff\xff\xff\xff"), append(emf[:88:88], 84, 0, 0, 0, 80, 0, 0, 0)} {
		metafileText(b)
	}
}

func FuzzMetafileText(f *testing.F) {
	f.Add(xt.EMF("a", "b"))
	f.Add(xt.WMF("c", "d"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if s := metafileText(b); !utf8.ValidString(s) || len(s) > maxPreviewText {
			t.Fatalf("metafileText = %q", s)
		}
	})
}

// fuzzParts fuzzes the parts of a package, one per input: the first byte
// picks the part, the rest is its body. (One []byte argument: the fuzzer
// here stalls on targets of two.)
func fuzzParts(f *testing.F, format Format, pkg []byte, parts []string, extra ...[]byte) {
	for i, part := range parts {
		f.Add(append([]byte{byte(i)}, partOf(f, pkg, part)...))
	}
	for _, e := range extra {
		f.Add(e)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		fuzzCheck(t, format, zipWith(t, pkg, parts[int(data[0])%len(parts)], data[1:]), false)
	})
}

func FuzzDOCXParts(f *testing.F) {
	fuzzParts(f, DOCX, xt.DOCXMemo(f),
		[]string{"word/footnotes.xml", "word/comments.xml", "word/charts/chart1.xml", "word/_rels/document.xml.rels", "word/chunk.mht", "word/header1.xml", "word/diagrams/data1.xml", "word/media/image1.emf", "[Content_Types].xml"},
		[]byte("\x02<c:chartSpace><c:ser><c:cat><c:pt idx=\"-9\"><c:v>x</c:v></c:pt></c:cat></c:ser><c:ser><c:tx><c:v>"))
}

func FuzzPPTXParts(f *testing.F) {
	fuzzParts(f, PPTX, xt.PPTXCharts(f),
		[]string{"ppt/diagrams/data1.xml", "ppt/slideLayouts/slideLayout1.xml", "ppt/charts/chart1.xml", "ppt/slides/slide1.xml", "ppt/drawings/vmlDrawing1.vml", "ppt/media/image1.wmf", "ppt/slides/_rels/slide2.xml.rels"})
}

func FuzzRTFTables(f *testing.F) {
	f.Add(xt.RTFTables())
	f.Add([]byte(`{\rtf1\itap9\nestcell\nestrow{\*\nesttableprops\trowd\nestrow}\cell\row\trowd a\cell}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzCheck(t, RTF, data, false)
	})
}
