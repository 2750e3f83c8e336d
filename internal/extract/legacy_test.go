package extract

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/richardlehane/mscfb"

	xt "github.com/repoprep/repoprep/internal/extract/extracttest"
	"github.com/repoprep/repoprep/internal/testkit"
)

// The generated legacy documents the tests share: each uses every
// construct its reader handles.

func legacyDOC(t testing.TB) []byte {
	return xt.DOC(t, []xt.DOCPara{
		{Text: "Payment service specification", Level: 1},
		{Text: "Scope", Level: 2},
		{Text: "This covers the \x13 HYPERLINK \"https://example.com\" \x14refund\x15 flow\x02\x01 and \x13 PAGE \x15page numbers.\x05"},
		{Text: "Cards", List: true},
		{Text: "Visa and Mastercard", List: true},
		{Cells: []string{"Currency", "Max"}},
		{Cells: []string{"EUR | USD", "10000"}},
		{Text: "Key\tValue\x0bnext line, opt\x1fional hyphen, non\x1ebreaking"},
		{Text: "Ünïcödé 中文 ✓ 𝄞"},
	}, xt.DOCOptions{
		Footnotes: []string{"Refunds take five days."},
		Comments:  []string{"Check the limits."},
		Author:    "Ana Lima",
		Header:    "ACME Corp",
		Footer:    "Confidential",
	})
}

func legacyXLS(t testing.TB, opt xt.XLSOptions) []byte {
	return xt.XLS(t, []xt.XLSSheet{
		{Name: "Budget 2026", Rows: [][]any{
			{"Item", "Cost", "Note"},
			{"Servers | cloud", 1200.5, xt.XLSLabel("inline label")},
			{"Licences", 300, nil},
			nil,
			{"Total", xt.XLSFormula{Value: 1500.5}, xt.XLSFormula{Value: "over budget"}},
			{"Flags", true, xt.XLSError(0x07), xt.XLSFormula{Value: false}},
			{"Quarters", 1, 2, 3, 4},
			{"Dates", xt.XLSDate(45000), xt.XLSDate(45000.75), math.Nextafter(0.3, 1)},
		}},
		{Name: "Notes ✓", Rows: [][]any{{"Reviewed by finance — ✓ approved, and this string is long enough to be cut"}}},
	}, opt)
}

func legacyPPT(t testing.TB, opt xt.PPTOptions) []byte {
	if opt.Master == "" {
		opt.Master = "ACME Corp — confidential"
	}
	return xt.PPT(t, []xt.PPTSlide{
		{Title: "Quarterly review", Body: []string{"Revenue up 12%", "Churn down"}, Notes: "Mention the new region.\rThen the numbers.", Comment: "Check the churn figure"},
		{Title: "Numbers", Boxes: []string{"EMEA 4.2M", "Ελληνικά 中文"}},
		{Title: "Questions?"},
	}, opt)
}

// TestLegacyGolden extracts one generated document of each legacy format
// and compares the text with testdata/golden/<format>.txt.
func TestLegacyGolden(t *testing.T) {
	cases := []struct {
		format   Format
		data     []byte
		sections int
	}{
		{DOC, legacyDOC(t), 1},
		{XLS, legacyXLS(t, xt.XLSOptions{SSTChunk: 40}), 2},
		{PPT, legacyPPT(t, xt.PPTOptions{}), 3},
	}
	for _, c := range cases {
		t.Run(string(c.format), func(t *testing.T) {
			text, meta, err := extract(t, c.format, c.data, Limits{})
			if err != nil {
				t.Fatal(err)
			}
			if meta.Format != c.format || meta.Extractor != "repoprep-"+string(c.format) || meta.Version != "1" || meta.Sections != c.sections {
				t.Errorf("meta = %+v, want %d sections", meta, c.sections)
			}
			checkClean(t, string(c.format), []byte(text))
			testkit.Golden(t, filepath.Join("testdata", "golden", string(c.format)+".txt"), []byte(text))
		})
	}
}

// TestLegacyText pins what each reader yields and leaves out.
func TestLegacyText(t *testing.T) {
	doc, xls, ppt := legacyDOC(t), legacyXLS(t, xt.XLSOptions{SSTChunk: 40}), legacyPPT(t, xt.PPTOptions{Stale: "stale draft"})
	bigDOC := xt.DOC(t, []xt.DOCPara{{Text: strings.Repeat("lorem ipsum ", 800)}, {Text: "the end"}}, xt.DOCOptions{})
	cases := []struct {
		name      string
		format    Format
		data      []byte
		want, not []string
	}{
		{"DOC headings, fields, lists, breaks", DOC, doc,
			[]string{"# Payment service specification\n", "## Scope\n", "This covers the refund flow[^1] and page numbers.\n",
				"- Cards\n- Visa and Mastercard\n", "Key\tValue\nnext line, optional hyphen, non-breaking\n", "Ünïcödé 中文 ✓ 𝄞\n"},
			[]string{"HYPERLINK", "PAGE", "example.com"}},
		{"DOC table", DOC, doc, []string{"| Currency | Max |\n| --- | --- |\n| EUR \\| USD | 10000 |\n"}, nil},
		{"DOC headers, notes, comments and footers, labelled as DOCX's", DOC, doc,
			[]string{"--- header ---\nACME Corp\n\n--- body ---\n", "\n\n--- footnotes ---\n[^1]: Refunds take five days.\n\n--- comments ---\n[comment 1 (Ana Lima)]: Check the limits.\n\n--- footer ---\nConfidential\n"}, nil},
		{"DOC in regular sectors (a WordDocument stream over 4 KiB)", DOC, bigDOC, []string{"lorem ipsum lorem", "the end\n"}, nil},
		{"XLS sheets and cells", XLS, xls,
			[]string{"--- sheet 1: Budget 2026 ---\n", "| Item | Cost | Note |  |  |\n", "| Servers \\| cloud | 1200.5 | inline label |",
				"| Licences | 300 |", "| Total | 1500.5 | over budget |", "| Flags | TRUE | #DIV/0! | FALSE |", "| Quarters | 1 | 2 | 3 | 4 |",
				"| Dates | 2023-03-15 | 2023-03-15 18:00:00 | 0.30000000000000004 |", "--- sheet 2: Notes ✓ ---\n",
				"| Reviewed by finance — ✓ approved, and this string is long enough to be cut |"}, nil},
		{"PPT slides in order, titles, notes, comments", PPT, ppt,
			[]string{"--- slide 1 ---\n\n## Quarterly review\n\nRevenue up 12%\nChurn down\n[comment 1 (A. Reviewer)]: Check the churn figure\n\nNotes:\n> Mention the new region.\n> Then the numbers.\n",
				"--- slide 2 ---\n\n## Numbers\n\nEMEA 4.2M\nΕλληνικά 中文\n", "--- slide 3 ---\n\n## Questions?\n"},
			[]string{"stale draft", "*", "Click to edit"}},
		{"PPT slide master text, once", PPT, ppt, []string{"--- slide master ---\nACME Corp — confidential\n\n--- slide 1 ---\n"}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			text, _, err := extract(t, c.format, c.data, Limits{})
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range c.want {
				if !strings.Contains(text, w) {
					t.Errorf("no %q in\n%s", w, text)
				}
			}
			for _, n := range c.not {
				if strings.Contains(text, n) {
					t.Errorf("%q in\n%s", n, text)
				}
			}
		})
	}
}

// word6 builds a Word 6/95 document: the older FIB, whose text is one
// 8-bit run from fcMin on.
func word6(t testing.TB, text string, flags uint16) []byte {
	wd := make([]byte, 0x300)
	binary.LittleEndian.PutUint16(wd, 0xA5DC)
	binary.LittleEndian.PutUint16(wd[2:], 101)
	binary.LittleEndian.PutUint16(wd[10:], flags)
	binary.LittleEndian.PutUint32(wd[0x18:], 0x300)
	binary.LittleEndian.PutUint32(wd[0x1C:], uint32(0x300+len(text)))
	binary.LittleEndian.PutUint32(wd[0x34:], uint32(len(text)))
	return xt.CFB(t, xt.CFBStream{Name: "WordDocument", Data: append(wd, text...)})
}

// TestLegacyRefusals: encrypted, truncated, malformed and oversized
// legacy documents are refused with the right reason and cause.
func TestLegacyRefusals(t *testing.T) {
	doc, xls, ppt := legacyDOC(t), legacyXLS(t, xt.XLSOptions{}), legacyPPT(t, xt.PPTOptions{})
	cut := func(p []byte) []byte { return p[:len(p)*2/3] }
	deep := xt.CFB(t, xt.CFBStream{Name: "PowerPoint Document", Data: deepRecords(100)})
	cases := []struct {
		name   string
		format Format
		data   []byte
		lim    Limits
		reason string
		cause  string
	}{
		{"encrypted DOC", DOC, xt.DOC(t, []xt.DOCPara{{Text: "secret"}}, xt.DOCOptions{Encrypted: true}), Limits{}, ReasonEncrypted, "fEncrypted"},
		{"encrypted XLS", XLS, legacyXLS(t, xt.XLSOptions{Encrypted: true}), Limits{}, ReasonEncrypted, "FILEPASS"},
		{"encrypted PPT", PPT, legacyPPT(t, xt.PPTOptions{Encrypted: true}), Limits{}, ReasonEncrypted, "password-protected PowerPoint"},
		{"PPT with an EncryptedSummary stream", PPT, xt.CFB(t, xt.CFBStream{Name: "PowerPoint Document", Data: []byte{0}}, xt.CFBStream{Name: "EncryptedSummary", Data: []byte{0}}), Limits{}, ReasonEncrypted, "EncryptedSummary"},
		{"encrypted OOXML named .doc", DOC, encryptedXLSX(t), Limits{}, ReasonEncrypted, "EncryptionInfo"},
		{"truncated DOC", DOC, cut(doc), Limits{}, ReasonUnreadable, "WordDocument stream: mscfb"},
		{"truncated XLS", XLS, cut(xls), Limits{}, ReasonUnreadable, "Workbook stream: mscfb"},
		{"truncated PPT", PPT, cut(ppt), Limits{}, ReasonUnreadable, "PowerPoint Document stream: mscfb"},
		{"DOC cut in its directory", DOC, doc[:700], Limits{}, ReasonUnreadable, "compound file"},
		{"DOC that is not a Compound File", DOC, []byte("{\\rtf1 not a doc}"), Limits{}, ReasonUnreadable, "not a Compound File"},
		{"a Compound File holding no Office document", DOC, xt.CFB(t, xt.CFBStream{Name: "Contents", Data: []byte("x")}), Limits{}, ReasonUnreadable, "no WordDocument stream: not a Word document (it holds no Office document)"},
		{"fast-saved Word 6 document", DOC, word6(t, "quick brown fox\r", 0x0004), Limits{}, ReasonUnreadable, "fast-saved Word 6/95"},
		{"XLS over the cell limit", XLS, xls, Limits{MaxCells: 12}, ReasonOverLimit, "more than 12 cells"},
		{"XLS of more shared strings than the cell limit", XLS, xls, Limits{MaxCells: 5}, ReasonOverLimit, "more than 5 shared strings"},
		{"DOC over the read limit", DOC, doc, Limits{MaxInflateBytes: 1000}, ReasonOverLimit, "read from the document's streams"},
		{"PPT records nested 100 deep", PPT, deep, Limits{}, ReasonOverLimit, "nested more than 64"},
		{"PPT without slides", PPT, xt.PPT(t, nil, xt.PPTOptions{}), Limits{}, ReasonNoText, "no text in 1 slide(s)"},
		{"PPT of slides without text", PPT, xt.PPT(t, []xt.PPTSlide{{}, {}}, xt.PPTOptions{}), Limits{}, ReasonNoText, "no text in 2 slide(s)"},
		{"XLS without sheets", XLS, xt.XLS(t, nil, xt.XLSOptions{}), Limits{}, ReasonNoText, "no text in 1 sheet(s)"},
		{"DOC of nothing but a picture", DOC, xt.DOC(t, []xt.DOCPara{{Text: "\x01"}}, xt.DOCOptions{}), Limits{}, ReasonNoText, "no text in 1 document(s)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			text, _, err := extract(t, c.format, c.data, c.lim)
			var ref *Refusal
			if !errors.As(err, &ref) {
				t.Fatalf("err = %v (%T), want a refusal; text:\n%s", err, err, text)
			}
			if ref.Reason != c.reason || !strings.Contains(ref.Err.Error(), c.cause) {
				t.Errorf("refused %q: %v; want %q mentioning %q", ref.Reason, ref.Err, c.reason, c.cause)
			}
		})
	}
}

// TestLegacyCutShort: a work limit met after some text was written cuts
// the text short with a closing marker, and Meta.Truncated says what was
// left out.
func TestLegacyCutShort(t *testing.T) {
	cases := []struct {
		name     string
		format   Format
		data     []byte
		lim      Limits
		last, at string // the text's last line; the last line before the cut
	}{
		{"PPT over the page limit", PPT, legacyPPT(t, xt.PPTOptions{}), Limits{MaxPages: 2},
			"[… slide 3 not extracted: slide limit 2]", "Ελληνικά 中文"},
		{"XLS over the sheet limit", XLS, legacyXLS(t, xt.XLSOptions{}), Limits{MaxSheets: 1},
			"[… sheet 2 not extracted: sheet limit 1]", "| Dates | 2023-03-15 | 2023-03-15 18:00:00 | 0.30000000000000004 |  |"},
		{"DOC over the text limit", DOC, legacyDOC(t), Limits{MaxTextBytes: 400},
			"[… rest not extracted: text limit 400 bytes]", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			text, meta, err := extract(t, c.format, c.data, c.lim)
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
			if lines[len(lines)-1] != c.last || meta.Truncated != strings.TrimSuffix(strings.TrimPrefix(c.last, "[… "), "]") {
				t.Errorf("ends %q, Truncated %q; want %q", lines[len(lines)-1], meta.Truncated, c.last)
			}
			if c.at != "" && lines[len(lines)-3] != c.at {
				t.Errorf("cut after %q, want after %q", lines[len(lines)-3], c.at)
			}
			if int64(len(text)) > c.lim.MaxTextBytes && c.lim.MaxTextBytes > 0 {
				t.Errorf("%d bytes of text, over the %d-byte limit", len(text), c.lim.MaxTextBytes)
			}
		})
	}
}

// deepRecords is a PowerPoint Document stream whose DocumentContainer
// lists one slide whose container nests depth containers.
func deepRecords(depth int) []byte {
	rec := func(typ uint16, container bool, body []byte) []byte {
		h := uint16(0)
		if container {
			h = 0xF
		}
		b := binary.LittleEndian.AppendUint16(nil, h)
		b = binary.LittleEndian.AppendUint16(b, typ)
		b = binary.LittleEndian.AppendUint32(b, uint32(len(body)))
		return append(b, body...)
	}
	inner := rec(pptTextChars, false, []byte{'x', 0})
	for range depth {
		inner = rec(0xF004, true, inner)
	}
	slide := rec(pptSlide, true, inner)
	persist := make([]byte, 20)
	binary.LittleEndian.PutUint32(persist, 2)
	doc := rec(pptDocument, true, rec(pptSlideListWithText, true, rec(pptSlidePersistAtom, false, persist)))
	dir := binary.LittleEndian.AppendUint32(nil, 1|2<<20)
	dir = binary.LittleEndian.AppendUint32(dir, 0)
	dir = binary.LittleEndian.AppendUint32(dir, uint32(len(doc)))
	out := append(append(doc, slide...), rec(pptPersistDirectory, false, dir)...)
	edit := make([]byte, 28)
	binary.LittleEndian.PutUint32(edit[16:], 1)
	return append(out, rec(pptUserEdit, false, edit)...)
}

// TestWord6: a Word 6/95 document that was not fast-saved is read as
// plain paragraphs; an encrypted one is refused before its text is.
func TestWord6(t *testing.T) {
	text, _, err := extract(t, DOC, word6(t, "The quick brown fox\rjumps over the lazy dog\r", 0), Limits{})
	if err != nil || text != "The quick brown fox\njumps over the lazy dog\n" {
		t.Errorf("text %q, err %v", text, err)
	}
	_, _, err = extract(t, DOC, word6(t, "secret\r", 0x0100), Limits{})
	var ref *Refusal
	if !errors.As(err, &ref) || ref.Reason != ReasonEncrypted {
		t.Errorf("encrypted Word 6: %v", err)
	}
}

// cfbStreams reads every stream of a Compound File with mscfb.
func cfbStreams(t testing.TB, data []byte) map[string][]byte {
	t.Helper()
	r, err := mscfb.New(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	streams := map[string][]byte{}
	for _, f := range r.File {
		if f.FileInfo().IsDir() {
			continue
		}
		b, err := io.ReadAll(f)
		if err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		streams[f.Name] = b
	}
	return streams
}

// TestCFBWriter reads back with mscfb what extracttest's Compound File
// writer wrote: streams on both sides of the 4,096-byte mini-stream
// cutoff, empty ones, and enough of them to need two directory sectors.
func TestCFBWriter(t *testing.T) {
	var in []xt.CFBStream
	for i, n := range []int{0, 1, 63, 64, 65, 4095, 4096, 4097, 20000} {
		data := bytes.Repeat([]byte{byte('a' + i)}, n)
		in = append(in, xt.CFBStream{Name: "stream " + string(rune('A'+i)), Data: data})
	}
	in = append(in, xt.CFBStream{Name: "Ünïcödé ✓", Data: []byte("named")})
	got := cfbStreams(t, xt.CFB(t, in...))
	if len(got) != len(in) {
		t.Errorf("%d streams read, %d written", len(got), len(in))
	}
	for _, s := range in {
		if b, ok := got[s.Name]; !ok || !bytes.Equal(b, s.Data) {
			t.Errorf("%s: read %d bytes (found %v), wrote %d", s.Name, len(b), ok, len(s.Data))
		}
	}
}

// TestFormatOfLegacy: the legacy extensions and content types are read,
// and the generic OLE content type falls back on the extension.
func TestFormatOfLegacy(t *testing.T) {
	cases := []struct {
		name, mime string
		want       Format
	}{
		{"old.doc", "application/msword", DOC}, {"t.DOT", "", DOC},
		{"old.xls", "application/vnd.ms-excel", XLS}, {"t.xlt", "", XLS},
		{"deck.ppt", "application/vnd.ms-powerpoint", PPT}, {"show.pps", "", PPT}, {"t.pot", "", PPT},
		{"misnamed.bin", "application/msword", DOC},
		{"deck.ppt", "application/x-ole-storage", PPT}, {"old.doc", "application/x-ole-storage", DOC},
	}
	for _, c := range cases {
		if got, ok := FormatOf(c.name, c.mime); got != c.want || !ok {
			t.Errorf("FormatOf(%q, %q) = %q, %v; want %q", c.name, c.mime, got, ok, c.want)
		}
	}
	if _, ok := FormatOf("blob.bin", "application/x-ole-storage"); ok {
		t.Error("an OLE file of no known extension has a format")
	}
}

// TestXLSPieces pins the BIFF8 decoding details: RK numbers, date serials
// and formats, and characters a CONTINUE record cuts.
func TestXLSPieces(t *testing.T) {
	for rk, want := range map[uint32]float64{
		0x3FF00000:     1,    // the float 1.0's top 30 bits
		0x3FF00001:     0.01, // 1.0 / 100
		12<<2 | 2:      12,   // an integer
		12<<2 | 3:      0.12, // an integer / 100
		0xFFFFFFFC | 2: -1,   // a negative integer
	} {
		if got := rkValue(rk); got != want {
			t.Errorf("rkValue(%#x) = %v, want %v", rk, got, want)
		}
	}
	for _, c := range []struct {
		v    float64
		want string
		ok   bool
	}{
		{1, "1900-01-01", true}, {59, "1900-02-28", true}, {61, "1900-03-01", true},
		{45000, "2023-03-15", true}, {45000.5, "2023-03-15 12:00:00", true}, {0.25, "06:00:00", true},
		{-1, "", false}, {3e6, "", false},
	} {
		if got, ok := xlsDate(c.v, false); got != c.want || ok != c.ok {
			t.Errorf("xlsDate(%v) = %q, %v; want %q", c.v, got, ok, c.want)
		}
	}
	x := &xlsReader{formats: map[uint16]string{
		164: `yyyy\-mm\-dd`, 165: `0.00" days"`, 166: `[Red]#,##0`, 167: `[h]:mm`, 168: `#,##0;[Red]-#,##0;"dry"`,
	}}
	for ifmt, want := range map[uint16]bool{14: true, 22: true, 0: false, 2: false, 164: true, 165: false, 166: false, 167: true, 168: false, 200: false} {
		if got := x.isDate(ifmt); got != want {
			t.Errorf("isDate(%d %q) = %v, want %v", ifmt, x.formats[ifmt], got, want)
		}
	}
	// "añb€": 8-bit until the cut, UTF-16 after it.
	s := &xlsSegments{segs: [][]byte{{'a', 0xF1}, {1, 'b', 0, 0xAC, 0x20}}}
	if got := s.chars(4, false); got != "añb€" {
		t.Errorf("chars across a CONTINUE = %q", got)
	}
}

// TestLegacyNumbers: numbers keep every digit the double holds, in fixed
// notation unless the exponent is extreme.
func TestLegacyNumbers(t *testing.T) {
	x := &xlsReader{}
	for v, want := range map[float64]string{
		1200.5: "1200.5", 1234567890123451: "1234567890123451", math.Nextafter(0.3, 1): "0.30000000000000004",
		-0.5: "-0.5", 0: "0", 1e21: "1e+21", 1.5e-9: "1.5e-09", 123456789e-7: "12.3456789",
	} {
		if got := x.number(v, 0); got != want {
			t.Errorf("number(%v) = %q, want %q", v, got, want)
		}
	}
}

// TestLegacyMisSniffed: content sniffing guesses an OLE file's kind and
// may guess wrong (Tika's testWORD_2006ml.doc, a Word document, sniffed as
// Excel). The container's streams decide: the document is read as what it
// holds, and Meta says which.
func TestLegacyMisSniffed(t *testing.T) {
	doc, xls, ppt := legacyDOC(t), legacyXLS(t, xt.XLSOptions{}), legacyPPT(t, xt.PPTOptions{})
	cases := []struct {
		asked, holds Format
		data         []byte
	}{
		{DOC, XLS, xls}, {XLS, PPT, ppt}, {PPT, DOC, doc}, {XLS, DOC, doc},
	}
	for _, c := range cases {
		want, wantMeta, err := extract(t, c.holds, c.data, Limits{})
		if err != nil {
			t.Fatalf("%s read as itself: %v", c.holds, err)
		}
		got, meta, err := extract(t, c.asked, c.data, Limits{})
		if err != nil || got != want || meta != wantMeta {
			t.Errorf("%s sniffed as %s: err %v, meta %+v (want %+v), same text %v", c.holds, c.asked, err, meta, wantMeta, got == want)
		}
	}
}
