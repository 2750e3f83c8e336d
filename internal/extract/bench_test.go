package extract

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/richardlehane/mscfb"
	"github.com/xuri/excelize/v2"

	xt "github.com/repoprep/repoprep/internal/extract/extracttest"
	"github.com/repoprep/repoprep/internal/textenc"
)

// BenchmarkExtract measures each extractor on a generated document, in MB/s
// of document and of text written, beside a baseline in the same run: for
// zip-based formats inflating every part of the package (what any reader
// must do first); for PDF, poppler's pdftotext on the same file (when
// installed); for RTF and notebooks, which are text, normalizing the raw
// bytes as text (what repoprep did with them before). docs/extract.md
// quotes the ratios.
func BenchmarkExtract(b *testing.B) {
	docs := benchDocs(b)
	for _, d := range docs {
		b.Run(string(d.format)+"/extract", func(b *testing.B) {
			if d.format == PDF {
				needPDFium(b)
			}
			b.SetBytes(int64(len(d.data)))
			b.ReportAllocs()
			var out bytes.Buffer
			for b.Loop() {
				out.Reset()
				if _, err := Extract(context.Background(), d.format, bytes.NewReader(d.data), int64(len(d.data)), Limits{}, &out); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(out.Len())/float64(len(d.data)), "text/doc")
			b.ReportMetric(float64(out.Len())*float64(b.N)/1e6/b.Elapsed().Seconds(), "text-MB/s")
		})
		b.Run(string(d.format)+"/"+d.baselineName(), func(b *testing.B) {
			b.SetBytes(int64(len(d.data)))
			b.ReportAllocs()
			for b.Loop() {
				d.baseline(b, d.data)
			}
		})
	}
}

// BenchmarkPDFOnePage is the fixed cost of a PDF: a fresh PDFium
// instance per document, then one page.
func BenchmarkPDFOnePage(b *testing.B) {
	needPDFium(b)
	data := xt.PDF(b, [][]string{{"one line"}}, xt.PDFOptions{})
	for b.Loop() {
		if _, err := Extract(context.Background(), PDF, bytes.NewReader(data), int64(len(data)), Limits{}, io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}

type benchDoc struct {
	format Format
	data   []byte
}

func (d benchDoc) baselineName() string {
	switch d.format {
	case PDF:
		return "pdftotext"
	case RTF, IPYNB:
		return "normalize-as-text"
	case DOC, XLS, PPT:
		return "read-streams"
	}
	return "unzip"
}

func (d benchDoc) baseline(b *testing.B, data []byte) {
	switch d.format {
	case PDF:
		if _, err := exec.LookPath("pdftotext"); err != nil {
			b.Skip("pdftotext (poppler-utils) is not installed")
		}
		name := filepath.Join(b.TempDir(), "doc.pdf")
		os.WriteFile(name, data, 0o644)
		if err := exec.Command("pdftotext", "-enc", "UTF-8", name, os.DevNull).Run(); err != nil {
			b.Fatal(err)
		}
	case RTF, IPYNB:
		if _, err := textenc.Normalize(bytes.NewReader(data), io.Discard); err != nil {
			b.Fatal(err)
		}
	case DOC, XLS, PPT: // the Compound File's streams read whole, as unzip does for OOXML
		d, err := mscfb.New(bytes.NewReader(data))
		if err != nil {
			b.Fatal(err)
		}
		for e, err := d.Next(); err == nil; e, err = d.Next() {
			io.Copy(io.Discard, e)
		}
	default:
		zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			b.Fatal(err)
		}
		for _, f := range zr.File {
			rc, err := f.Open()
			if err != nil {
				b.Fatal(err)
			}
			io.Copy(io.Discard, rc)
			rc.Close()
		}
	}
}

const benchProse = "The refund service validates each request against the ledger, then queues the payout for the next settlement window and records the outcome."

func benchDocs(b *testing.B) []benchDoc {
	var paras []string
	for i := range 3000 {
		paras = append(paras, fmt.Sprintf("%d. %s", i, benchProse))
	}
	var pages [][]string
	for p := range 60 {
		var lines []string
		for l := range 45 {
			lines = append(lines, fmt.Sprintf("%d.%d %s", p, l, benchProse[:90]))
		}
		pages = append(pages, lines)
	}
	var odt, ods, rtf strings.Builder
	for _, p := range paras {
		odt.WriteString("<text:p>" + p + "</text:p>")
		rtf.WriteString(p + `\par` + "\n")
	}
	ods.WriteString(`<table:table table:name="Data">`)
	for r := range 5000 {
		ods.WriteString("<table:table-row>")
		for c := range 6 {
			fmt.Fprintf(&ods, "<table:table-cell><text:p>r%dc%d</text:p></table:table-cell>", r, c)
		}
		ods.WriteString("</table:table-row>")
	}
	ods.WriteString("</table:table>")
	return []benchDoc{
		{PDF, xt.PDF(b, pages, xt.PDFOptions{Compressed: true})},
		{DOCX, xt.DOCX(b, paras...)},
		{XLSX, benchXLSX(b)},
		{PPTX, benchPPTX(b, 300)},
		{ODT, xt.ODF(b, "application/vnd.oasis.opendocument.text", "<office:text>"+odt.String()+"</office:text>", false)},
		{ODS, xt.ODF(b, "application/vnd.oasis.opendocument.spreadsheet", "<office:spreadsheet>"+ods.String()+"</office:spreadsheet>", false)},
		{EPUB, benchEPUB(b, 60)},
		{RTF, []byte(`{\rtf1\ansi ` + rtf.String() + "}")},
		{IPYNB, benchIPYNB(b, 500)},
		{DOC, benchDOC(b, paras)},
		{XLS, benchXLS(b)},
		{PPT, benchPPT(b, 300)},
	}
}

func benchDOC(b *testing.B, paras []string) []byte {
	ps := make([]xt.DOCPara, len(paras))
	for i, p := range paras {
		ps[i] = xt.DOCPara{Text: p}
	}
	return xt.DOC(b, ps, xt.DOCOptions{})
}

func benchXLS(b *testing.B) []byte {
	var rows [][]any
	for r := range 5000 {
		rows = append(rows, []any{xt.XLSLabel(fmt.Sprintf("r%d", r)), float64(r), float64(r) * 1.5, xt.XLSLabel("total"), float64(r * 7), xt.XLSLabel(benchProse[:20])})
	}
	return xt.XLS(b, []xt.XLSSheet{{Name: "Data", Rows: rows}}, xt.XLSOptions{})
}

func benchPPT(b *testing.B, n int) []byte {
	slides := make([]xt.PPTSlide, n)
	for i := range slides {
		slides[i] = xt.PPTSlide{Title: fmt.Sprintf("Slide %d", i+1), Body: []string{benchProse[:70], benchProse[70:]}, Notes: "say it"}
	}
	return xt.PPT(b, slides, xt.PPTOptions{})
}

func benchXLSX(b *testing.B) []byte {
	f := excelize.NewFile()
	for s := range 2 {
		name := fmt.Sprintf("Sheet%d", s+1)
		if s > 0 {
			f.NewSheet(name)
		}
		for r := 1; r <= 5000; r++ {
			row := []any{fmt.Sprintf("item %d", r), r * 3, float64(r) / 7, "EUR", true, "note " + benchProse[:30]}
			cell, _ := excelize.CoordinatesToCellName(1, r)
			f.SetSheetRow(name, cell, &row)
		}
	}
	var buf bytes.Buffer
	if err := f.Write(&buf); err != nil {
		b.Fatal(err)
	}
	return buf.Bytes()
}

func benchPPTX(b *testing.B, slides int) []byte {
	const ns = `xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main"`
	parts := []xt.Part{{Name: "_rels/.rels", Body: `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="ppt/presentation.xml"/></Relationships>`}}
	var ids, rels strings.Builder
	for i := 1; i <= slides; i++ {
		fmt.Fprintf(&ids, `<p:sldId id="%d" r:id="rId%d"/>`, 255+i, i)
		fmt.Fprintf(&rels, `<Relationship Id="rId%d" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/slide" Target="slides/slide%d.xml"/>`, i, i)
		var body strings.Builder
		fmt.Fprintf(&body, `<p:sp><p:nvSpPr><p:nvPr><p:ph type="title"/></p:nvPr></p:nvSpPr><p:txBody><a:p><a:r><a:t>Slide %d</a:t></a:r></a:p></p:txBody></p:sp><p:sp><p:txBody>`, i)
		for l := range 8 {
			fmt.Fprintf(&body, `<a:p><a:r><a:t>%d: %s</a:t></a:r></a:p>`, l, benchProse)
		}
		body.WriteString(`</p:txBody></p:sp>`)
		parts = append(parts, xt.Part{Name: fmt.Sprintf("ppt/slides/slide%d.xml", i), Body: `<p:sld ` + ns + `><p:cSld><p:spTree>` + body.String() + `</p:spTree></p:cSld></p:sld>`})
	}
	parts = append(parts,
		xt.Part{Name: "ppt/presentation.xml", Body: `<p:presentation ` + ns + `><p:sldIdLst>` + ids.String() + `</p:sldIdLst></p:presentation>`},
		xt.Part{Name: "ppt/_rels/presentation.xml.rels", Body: `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` + rels.String() + `</Relationships>`})
	return xt.Zip(b, parts...)
}

func benchEPUB(b *testing.B, chapters int) []byte {
	parts := []xt.Part{
		{Name: "mimetype", Body: "application/epub+zip"},
		{Name: "META-INF/container.xml", Body: `<container><rootfiles><rootfile full-path="content.opf"/></rootfiles></container>`},
	}
	var manifest, spine strings.Builder
	for i := range chapters {
		fmt.Fprintf(&manifest, `<item id="c%d" href="c%d.xhtml" media-type="application/xhtml+xml"/>`, i, i)
		fmt.Fprintf(&spine, `<itemref idref="c%d"/>`, i)
		var body strings.Builder
		fmt.Fprintf(&body, "<html><head><title>c</title></head><body><h1>Chapter %d</h1>", i)
		for p := range 40 {
			fmt.Fprintf(&body, "<p>%d <em>%s</em></p>", p, benchProse)
		}
		body.WriteString("</body></html>")
		parts = append(parts, xt.Part{Name: fmt.Sprintf("c%d.xhtml", i), Body: body.String()})
	}
	parts = append(parts, xt.Part{Name: "content.opf", Body: `<package><manifest>` + manifest.String() + `</manifest><spine>` + spine.String() + `</spine></package>`})
	return xt.Zip(b, parts...)
}

func benchIPYNB(b *testing.B, cells int) []byte {
	var cs []any
	for i := range cells {
		if i%2 == 0 {
			cs = append(cs, map[string]any{"cell_type": "markdown", "source": []string{"## Step " + fmt.Sprint(i) + "\n", benchProse}})
			continue
		}
		cs = append(cs, map[string]any{"cell_type": "code", "execution_count": i, "source": "df = load()\ndf.describe()",
			"outputs": []any{map[string]any{"output_type": "execute_result", "data": map[string]any{"text/plain": strings.Repeat("row  1.0  2.0\n", 30), "image/png": strings.Repeat("iVBORw0KGgo", 300)}}}})
	}
	data, err := json.Marshal(map[string]any{"nbformat": 4, "cells": cs, "metadata": map[string]any{"language_info": map[string]any{"name": "python"}}})
	if err != nil {
		b.Fatal(err)
	}
	return data
}
