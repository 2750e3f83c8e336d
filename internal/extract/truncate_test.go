package extract

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	xt "github.com/repoprep/repoprep/internal/extract/extracttest"
)

// TestTruncated: a work limit reached after some text was written cuts
// the text short instead of refusing the document: what came before the
// limit is kept, a closing marker line says what was left out, and
// Meta.Truncated holds the same phrase. One case per kind of limit.
func TestTruncated(t *testing.T) {
	var paras []string
	for i := range 200 {
		paras = append(paras, fmt.Sprintf("Paragraph %d of the appendix, long enough to fill a line.", i+1))
	}
	cases := []struct {
		name     string
		format   Format
		data     func(testing.TB) []byte
		lim      Limits
		left     string   // Meta.Truncated, and the marker's phrase
		kept     []string // in the text
		dropped  []string // not in the text
		sections int
	}{
		{"PDF over the page limit", PDF, func(t testing.TB) []byte {
			return xt.PDF(t, [][]string{{"one"}, {"two"}, {"three"}, {"four"}, {"five"}}, xt.PDFOptions{})
		}, Limits{MaxPages: 2}, "pages 3–5 not extracted: page limit 2",
			[]string{"--- page 1 ---\none\n\n--- page 2 ---\ntwo\n"}, []string{"page 3", "three"}, 2},
		{"PDF one page over", PDF, func(t testing.TB) []byte {
			return xt.PDF(t, [][]string{{"one"}, {"two"}}, xt.PDFOptions{})
		}, Limits{MaxPages: 1}, "page 2 not extracted: page limit 1", []string{"one"}, []string{"two"}, 1},
		{"DOCX over the text limit", DOCX, func(t testing.TB) []byte { return xt.DOCX(t, paras...) },
			Limits{MaxTextBytes: 2048}, "rest not extracted: text limit 2048 bytes",
			[]string{"# Payment service specification\n", "Paragraph 1 of the appendix"}, []string{"Paragraph 200 "}, 1},
		{"workbook over the cell limit in its second sheet", XLSX, xt.XLSX,
			Limits{MaxCells: 16}, "rest not extracted: more than 16 cells",
			[]string{"--- sheet 1: Budget 2026 ---", "| Total | 1500.5 |"}, []string{"Reviewed by finance"}, 2},
		{"workbook over the sheet limit", XLSX, xt.XLSX, Limits{MaxSheets: 1}, "sheet 2 not extracted: sheet limit 1",
			[]string{"--- sheet 1: Budget 2026 ---"}, []string{"--- sheet 2"}, 1},
		{"spreadsheet over the sheet limit", ODS, xt.ODS, Limits{MaxSheets: 1}, "rest not extracted: more than 1 sheets",
			[]string{"--- sheet 1"}, []string{"--- sheet 2"}, 1},
		{"EPUB over the section limit", EPUB, func(t testing.TB) []byte { return xt.EPUB(t, false) },
			Limits{MaxPages: 1}, "section 2 not extracted: section limit 1", []string{"# Chapter 1"}, []string{"Chapter 2"}, 1},
		{"notebook over the cell limit", IPYNB, xt.IPYNB, Limits{MaxPages: 2},
			"notebook cells 3–6 not extracted: notebook cell limit 2", []string{"# Analysis", "(120, 4)"}, []string{"df.plot()"}, 2},
		{"slides over the page limit", PPTX, xt.PPTX, Limits{MaxPages: 1}, "rest not extracted: more than 1 slides",
			[]string{"--- slide 1 ---"}, []string{"--- slide 2 ---"}, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.format == PDF {
				needPDFium(t)
			}
			text, meta, err := extract(t, c.format, c.data(t), c.lim)
			if err != nil {
				t.Fatalf("err = %v, want the text cut short; text:\n%s", err, text)
			}
			if meta.Truncated != c.left {
				t.Errorf("Meta.Truncated = %q, want %q", meta.Truncated, c.left)
			}
			if marker := "\n\n[… " + c.left + "]\n"; !strings.HasSuffix(text, marker) {
				t.Errorf("text does not end in %q:\n%s", marker, text)
			}
			for _, s := range c.kept {
				if !strings.Contains(text, s) {
					t.Errorf("text lacks %q:\n%s", s, text)
				}
			}
			for _, s := range c.dropped {
				if strings.Contains(text, s) {
					t.Errorf("text has %q, which is past the limit:\n%s", s, text)
				}
			}
			if meta.Sections != c.sections {
				t.Errorf("Sections = %d, want %d written", meta.Sections, c.sections)
			}
			if limit := c.lim.MaxTextBytes; limit > 0 && (int64(len(text)) > limit || int64(len(text)) < limit-markerReserve-100) {
				t.Errorf("%d bytes of text under a %d-byte limit, want it filled up to the marker's reserve", len(text), limit)
			}
			checkClean(t, c.name, []byte(text))
			again, _, _ := extract(t, c.format, c.data(t), c.lim)
			if again != text {
				t.Error("the same document under the same limits gave another text")
			}
		})
	}
}

// TestLimitBeforeText: a work limit reached before any text was written
// is still a refusal, remembered as a limit (IsLimit), not an empty cut.
func TestLimitBeforeText(t *testing.T) {
	cases := []struct {
		name   string
		format Format
		data   func(testing.TB) []byte
		lim    Limits
		cause  string
	}{
		{"PDF whose pages within the limit hold no text", PDF, func(t testing.TB) []byte {
			return xt.PDF(t, [][]string{{}, {}, {"three"}}, xt.PDFOptions{})
		}, Limits{MaxPages: 2}, "3 pages, more than 2"},
		{"workbook over the cell limit in its first sheet", XLSX, xt.XLSX, Limits{MaxCells: 5}, "more than 5 cells"},
		{"first paragraph longer than the text limit", DOCX, longParagraph, Limits{MaxTextBytes: 256}, "bytes of text"},
		{"input over the input limit", RTF, func(testing.TB) []byte { return xt.RTF() }, Limits{MaxInputBytes: 10}, "input limit"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.format == PDF {
				needPDFium(t)
			}
			text, meta, err := extract(t, c.format, c.data(t), c.lim)
			var ref *Refusal
			if !errors.As(err, &ref) || ref.Reason != ReasonOverLimit || !strings.Contains(err.Error(), c.cause) || !IsLimit(err) {
				t.Fatalf("err = %v, want an over-limit refusal mentioning %q; text:\n%s", err, c.cause, text)
			}
			if meta.Truncated != "" {
				t.Errorf("a refusal with Meta.Truncated %q", meta.Truncated)
			}
		})
	}
}

// TestTimeGuard: the wall clock is a safety guard far above what a
// document within the work limits costs, and when it fires the document
// is refused (never cut short: where the clock stops depends on the
// machine), saying it was the guard, as a refusal a refresh tries again.
func TestTimeGuard(t *testing.T) {
	if d := DefaultLimits().Timeout; d < 10*time.Minute {
		t.Errorf("default time guard %v, want at least 10 minutes: 5,000 PDF pages take 45 s on an idle machine", d)
	}
	// Text is written before the guard fires: still a refusal.
	data := []byte(`{\rtf1 ` + strings.Repeat(`\par x `, 200_000) + "}") // far more than a millisecond's work
	text, meta, err := extract(t, RTF, data, Limits{Timeout: time.Millisecond})
	var ref *Refusal
	if !errors.As(err, &ref) || ref.Reason != ReasonOverLimit || !strings.Contains(err.Error(), "safety guard") || !strings.Contains(err.Error(), "not by a work limit") {
		t.Fatalf("err = %v, want over-limit: the safety guard", err)
	}
	if !IsTimeGuard(err) || IsLimit(err) || meta.Truncated != "" {
		t.Errorf("IsTimeGuard %v, IsLimit %v, Truncated %q: want a guard refusal, not a limit, not a cut", IsTimeGuard(err), IsLimit(err), meta.Truncated)
	}
	if text == "" {
		t.Log("the guard fired before any text; the case still holds")
	}
	if IsTimeGuard(overLimit("more than 5 cells")) || IsTimeGuard(nil) {
		t.Error("IsTimeGuard holds for a work limit")
	}
}

// TestTextWriterTruncate: whatever the limit and the phrase, the text cut
// short never passes MaxTextBytes, is valid UTF-8, keeps what fits of the
// line in progress, and ends in the marker (its phrase cut to fit).
func TestTextWriterTruncate(t *testing.T) {
	long := strings.Repeat("ß", 400) // two bytes a character: cuts must fall between them
	for _, limit := range []int64{16, 64, 300, 600, 1000, 4096} {
		for _, left := range []string{"rest not extracted: text limit", "rest not extracted: " + long + "\n\x00 inflates"} {
			var b bytes.Buffer
			w := newTextWriter(&b, limit)
			for i := 0; w.Err() == nil; i++ {
				w.Line(fmt.Sprintf("line %d ", i) + long[:2*(i%50)])
			}
			if err := w.truncate(left); err != nil {
				t.Fatal(err)
			}
			out := b.Bytes()
			if int64(len(out)) > limit || !utf8.Valid(out) {
				t.Errorf("limit %d: %d bytes, valid UTF-8 %v", limit, len(out), utf8.Valid(out))
			}
			if limit >= 300 && !bytes.Contains(out, []byte("\n\n[… rest not extracted: ")) {
				t.Errorf("limit %d: no marker:\n%s", limit, out)
			}
			if bytes.Contains(out, []byte{0}) || len(out) > 0 && out[len(out)-1] != '\n' {
				t.Errorf("limit %d: unclean end %q", limit, out[max(0, len(out)-40):])
			}
			if limit >= 300 && int64(len(out)) < limit-markerReserve-2*50-16 {
				t.Errorf("limit %d: only %d bytes: the line in progress was not kept", limit, len(out))
			}
		}
	}
}

// FuzzTextWriterTruncate: whatever text came before the limit and whatever
// the phrase (a cause may quote a part name from the document), the text
// cut short stays within the limit, is valid UTF-8 and ends in a newline.
func FuzzTextWriterTruncate(f *testing.F) {
	f.Add("first line\nsecond line that is longer\n", "rest not extracted: text limit", uint16(40))
	f.Add(strings.Repeat("ß€", 300), "rest not extracted: \xff\x00\n"+strings.Repeat("é", 300), uint16(300))
	f.Add("\r\n\t \u2028x", "", uint16(1))
	f.Add("0000000000\n", "0", uint16(19)) // a line that fits but for its newline
	f.Add(" ", "\x89", uint16(8))          // room for less than "…"
	f.Fuzz(func(t *testing.T, text, left string, limit uint16) {
		var b bytes.Buffer
		w := newTextWriter(&b, int64(limit)+1)
		w.Text(text)
		w.Text(text) // past the limit when the text is over half of it
		if err := w.truncate(left); err != nil {
			t.Fatal(err)
		}
		out := b.Bytes()
		if len(out) > int(limit)+1 || !utf8.Valid(out) || len(out) > 0 && out[len(out)-1] != '\n' {
			t.Fatalf("limit %d: %q", int(limit)+1, out)
		}
	})
}
