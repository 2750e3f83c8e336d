package extract

import (
	"fmt"
	"strings"
	"testing"
	"time"

	xt "github.com/repoprep/repoprep/internal/extract/extracttest"
)

// TestIsLimit: a refusal at a work limit (cells, nesting, input, text,
// each before any text was written) is one a caller may remember, since
// the same bytes meet it again; a refusal by the time guard, an
// unreadable or encrypted document, and anything that is not a refusal
// are not. IsLasting holds for the limits, an encrypted document and one
// that holds no text, not for the guard nor an unreadable one.
func TestIsLimit(t *testing.T) {
	rtf := func(depth int) []byte {
		return []byte(`{\rtf1 ` + strings.Repeat("{", depth) + "x" + strings.Repeat("}", depth) + "}")
	}
	cases := []struct {
		name   string
		format Format
		data   []byte
		lim    Limits
		cause  string
		limit  bool
		lasts  bool
	}{
		{"RTF nested 5,000 groups deep", RTF, rtf(5000), Limits{}, "nested", true, true},
		{"workbook over the cell limit", XLSX, xt.XLSX(t), Limits{MaxCells: 5}, "cells", true, true},
		{"input over the input limit", RTF, xt.RTF(), Limits{MaxInputBytes: 10}, "input limit", true, true},
		{"a first paragraph over the text limit", DOCX, longParagraph(t), Limits{MaxTextBytes: 256}, "bytes of text", true, true},
		{"out of time", RTF, rtf(100), Limits{Timeout: time.Nanosecond}, "safety guard", false, false},
		{"RTF without a header", RTF, []byte("plain"), Limits{}, `{\rtf`, false, false},
		{"encrypted ODT", ODT, xt.ODT(t, true), Limits{}, "password", false, true},
		{"RTF with no text", RTF, []byte(`{\rtf1 {\*\generator nothing}}`), Limits{}, "no text", false, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := extract(t, c.format, c.data, c.lim)
			if err == nil || !strings.Contains(err.Error(), c.cause) {
				t.Fatalf("refused with %v, want a refusal mentioning %q", err, c.cause)
			}
			if got := IsLimit(err); got != c.limit {
				t.Errorf("IsLimit(%v) = %v, want %v", err, got, c.limit)
			}
			if got := IsLimit(fmt.Errorf("extract doc: %w", err)); got != c.limit {
				t.Errorf("IsLimit of the refusal wrapped = %v, want %v", got, c.limit)
			}
			if got := IsLasting(fmt.Errorf("extract doc: %w", err)); got != c.lasts {
				t.Errorf("IsLasting(%v) = %v, want %v", err, got, c.lasts)
			}
		})
	}
	if IsLimit(nil) || IsLimit(fmt.Errorf("over-limit: more than 5 cells")) || IsLasting(nil) || IsLasting(fmt.Errorf("no-text")) {
		t.Error("IsLimit holds for what is not a refusal")
	}
}

// longParagraph is a DOCX whose only paragraph is 500 bytes of text.
func longParagraph(t testing.TB) []byte {
	return xt.Zip(t,
		xt.Part{Name: "_rels/.rels", Body: `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>`},
		xt.Part{Name: "word/document.xml", Body: `<w:document ` + xt.WordNS + `><w:body><w:p><w:r><w:t>` + strings.Repeat("word ", 100) + `</w:t></w:r></w:p></w:body></w:document>`})
}

// TestDOCXNestedParagraphs: a document.xml of nothing but opening w:p
// tags, each inside the one before (no text box anywhere), is refused
// saying that paragraphs nest too deep, not that text boxes do.
func TestDOCXNestedParagraphs(t *testing.T) {
	doc := `<w:document ` + xt.WordNS + `><w:body>` + strings.Repeat("<w:p>", 100_000) + `</w:body></w:document>`
	data := xt.Zip(t,
		xt.Part{Name: "[Content_Types].xml", Body: `<Types/>`},
		xt.Part{Name: "_rels/.rels", Body: `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>`},
		xt.Part{Name: "word/document.xml", Body: doc})
	_, _, err := extract(t, DOCX, data, Limits{})
	if err == nil || !strings.Contains(err.Error(), "paragraphs nested more than 32 deep") || strings.Contains(err.Error(), "text box nested") || strings.Contains(err.Error(), "text boxes nested") {
		t.Errorf("refused with %v, want paragraphs nested more than 32 deep", err)
	}
	if !IsLimit(err) {
		t.Errorf("IsLimit(%v) = false: nesting is a work limit", err)
	}
}
