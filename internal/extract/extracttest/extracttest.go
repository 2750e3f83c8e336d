// Package extracttest writes documents of every format extraction reads,
// at test time: nothing binary is committed, and each generator is small
// enough to read as the document it makes. Hostile ones too: zip bombs
// that cost nothing to make, encrypted and deeply nested PDFs.
package extracttest

import (
	"archive/zip"
	"bytes"
	"compress/zlib"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"hash/crc32"
	"strings"
	"testing"

	"github.com/repoprep/repoprep/internal/testkit"
)

// PDFOptions shape a generated PDF.
type PDFOptions struct {
	Encrypt    bool  // an /Encrypt dictionary whose user password is not empty
	NestDepth  int   // arrays nested this deep in the catalog
	TreeDepth  int   // the page tree is a chain of /Pages nodes this deep
	BombBytes  int64 // a page whose content stream inflates to this many bytes
	Compressed bool  // content streams FlateDecode-compressed
}

// PDF writes a PDF 1.4 file with one page per element of pages, each
// line of a page shown with Helvetica, top to bottom.
func PDF(t testing.TB, pages [][]string, opt PDFOptions) []byte {
	t.Helper()
	var objs []string // objs[i] is object i+1, without "N 0 obj"
	add := func(s string) int { objs = append(objs, s); return len(objs) }
	catalog := add("") // filled in last
	pagesObj := add("")
	font := add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
	var kids []string
	for _, lines := range pages {
		var content bytes.Buffer
		content.WriteString("BT /F1 12 Tf 72 720 Td 16 TL\n")
		for _, l := range lines {
			fmt.Fprintf(&content, "(%s) Tj T*\n", pdfEscape(l))
		}
		content.WriteString("ET\n")
		stream := content.Bytes()
		dict := fmt.Sprintf("<< /Length %d >>", len(stream))
		if opt.Compressed {
			var z bytes.Buffer
			zw := zlib.NewWriter(&z)
			zw.Write(stream)
			zw.Close()
			stream = z.Bytes()
			dict = fmt.Sprintf("<< /Length %d /Filter /FlateDecode >>", len(stream))
		}
		c := add(dict + "\nstream\n" + string(stream) + "\nendstream")
		p := add(fmt.Sprintf("<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 %d 0 R >> >> /Contents %d 0 R >>", pagesObj, font, c))
		kids = append(kids, fmt.Sprintf("%d 0 R", p))
	}
	if opt.BombBytes > 0 {
		bomb := ZlibBomb(opt.BombBytes)
		c := add(fmt.Sprintf("<< /Length %d /Filter /FlateDecode >>\nstream\n%s\nendstream", len(bomb), bomb))
		p := add(fmt.Sprintf("<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 %d 0 R >> >> /Contents %d 0 R >>", pagesObj, font, c))
		kids = append(kids, fmt.Sprintf("%d 0 R", p))
	}
	if opt.TreeDepth > 0 {
		// Each node's only kid is the next node; the pages hang off the last.
		parent := pagesObj
		for range opt.TreeDepth {
			node := add("")
			objs[parent-1] = fmt.Sprintf("<< /Type /Pages /Kids [%d 0 R] /Count %d >>", node, len(kids))
			parent = node
		}
		objs[parent-1] = fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), len(kids))
	} else {
		objs[pagesObj-1] = fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), len(kids))
	}
	deep := ""
	if opt.NestDepth > 0 {
		deep = " /Deep " + strings.Repeat("[", opt.NestDepth) + strings.Repeat("]", opt.NestDepth)
	}
	objs[catalog-1] = fmt.Sprintf("<< /Type /Catalog /Pages %d 0 R%s >>", pagesObj, deep)
	trailerExtra := ""
	if opt.Encrypt {
		o, u := make([]byte, 32), make([]byte, 32)
		rand.Read(o)
		rand.Read(u)
		enc := add(fmt.Sprintf("<< /Filter /Standard /V 1 /R 2 /O <%x> /U <%x> /P -44 >>", o, u))
		id := make([]byte, 16)
		rand.Read(id)
		trailerExtra = fmt.Sprintf(" /Encrypt %d 0 R /ID [<%x> <%x>]", enc, id, id)
	}
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
	offsets := make([]int, len(objs))
	for i, o := range objs {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root %d 0 R%s >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, catalog, trailerExtra, xref)
	return b.Bytes()
}

func pdfEscape(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `(`, `\(`, `)`, `\)`)
	return r.Replace(s)
}

// DeflateBomb is a raw deflate stream that inflates to n spaces: one
// literal, then back-references of 258 bytes at distance 1, 13 bits each,
// so a gigabyte costs 6 MB and no time to make.
func DeflateBomb(n int64) []byte {
	var w bitWriter
	w.bits(1, 1) // BFINAL
	w.bits(1, 2) // BTYPE 01: fixed Huffman codes
	w.code(0x30+' ', 8)
	for left := n - 1; left >= 258; left -= 258 {
		w.code(0xC5, 8) // length code 285: 258 bytes
		w.code(0, 5)    // distance code 0: distance 1
	}
	w.code(0, 7) // end of block
	return w.flush()
}

// ZlibBomb wraps DeflateBomb in a zlib header (the Adler-32 trailer is
// left zero: a reader that gets that far has already inflated n bytes).
func ZlibBomb(n int64) []byte {
	return append(append([]byte{0x78, 0x01}, DeflateBomb(n)...), 0, 0, 0, 0)
}

type bitWriter struct {
	buf   []byte
	acc   uint64
	nbits uint
}

// bits writes the low n bits of v, least significant first (deflate's
// order for header fields).
func (w *bitWriter) bits(v uint64, n uint) {
	w.acc |= v << w.nbits
	w.nbits += n
	for w.nbits >= 8 {
		w.buf = append(w.buf, byte(w.acc))
		w.acc >>= 8
		w.nbits -= 8
	}
}

// code writes a Huffman code, most significant bit first.
func (w *bitWriter) code(c uint64, n uint) {
	var rev uint64
	for i := uint(0); i < n; i++ {
		rev |= (c >> i & 1) << (n - 1 - i)
	}
	w.bits(rev, n)
}

func (w *bitWriter) flush() []byte {
	if w.nbits > 0 {
		w.buf = append(w.buf, byte(w.acc))
	}
	return w.buf
}

// Part is one entry of a generated zip package.
type Part struct {
	Name string
	Body string
}

func Zip(t testing.TB, parts ...Part) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for _, p := range parts {
		method := zip.Deflate
		if p.Name == "mimetype" {
			method = zip.Store // ODF and EPUB want it first and stored
		}
		w, err := zw.CreateHeader(&zip.FileHeader{Name: p.Name, Method: method})
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(p.Body))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// ZipBomb is a package whose one part inflates to n bytes. When honest is
// false its header declares 1 KiB instead.
func ZipBomb(t testing.TB, name string, n int64, honest bool, others ...Part) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for _, p := range others {
		w, _ := zw.Create(p.Name)
		w.Write([]byte(p.Body))
	}
	data := DeflateBomb(n)
	size := uint64(n)
	crc := crc32.NewIEEE()
	chunk := bytes.Repeat([]byte{' '}, 1<<20)
	for left := n; left > 0; left -= int64(len(chunk)) {
		crc.Write(chunk[:min(left, int64(len(chunk)))])
	}
	if !honest {
		size = 1024
	}
	w, err := zw.CreateRaw(&zip.FileHeader{Name: name, Method: zip.Deflate, CRC32: crc.Sum32(),
		CompressedSize64: uint64(len(data)), UncompressedSize64: size})
	if err != nil {
		t.Fatal(err)
	}
	w.Write(data)
	zw.Close()
	return b.Bytes()
}

const ooxmlRels = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="%s"/>
</Relationships>`

const WordNS = `xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006"`

// DOCX builds a Word document with a title, headings, a list, a table
// with a '|' in a cell, a tab, a deleted revision and alternate content.
// Each extra string becomes one more paragraph at the end.
func DOCX(t testing.TB, extra ...string) []byte {
	body := `<w:body>
<w:p><w:pPr><w:pStyle w:val="Title"/></w:pPr><w:r><w:t>Payment service specification</w:t></w:r></w:p>
<w:p><w:pPr><w:pStyle w:val="Heading1"/></w:pPr><w:r><w:t>1. Scope</w:t></w:r></w:p>
<w:p><w:r><w:t xml:space="preserve">This document covers the </w:t></w:r><w:r><w:t>refund</w:t></w:r><w:del><w:r><w:delText>deleted words</w:delText></w:r></w:del><w:r><w:t xml:space="preserve"> flow.</w:t></w:r></w:p>
<w:p><w:pPr><w:pStyle w:val="ListParagraph"/><w:numPr><w:ilvl w:val="0"/><w:numId w:val="1"/></w:numPr></w:pPr><w:r><w:t>Cards</w:t></w:r></w:p>
<w:p><w:pPr><w:numPr><w:ilvl w:val="1"/><w:numId w:val="1"/></w:numPr></w:pPr><w:r><w:t>Visa and Mastercard</w:t></w:r></w:p>
<w:p><w:pPr><w:pStyle w:val="Custom2"/><w:tabs><w:tab w:val="left" w:pos="720"/></w:tabs></w:pPr><w:r><w:t>2. Limits</w:t></w:r></w:p>
<w:tbl><w:tr><w:tc><w:p><w:r><w:t>Currency</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>Max</w:t></w:r></w:p></w:tc></w:tr>
<w:tr><w:tc><w:p><w:r><w:t>EUR | USD</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>10000</w:t></w:r></w:p><w:p><w:r><w:t>per day</w:t></w:r></w:p></w:tc></w:tr></w:tbl>
<w:p><w:r><w:t>Key</w:t></w:r><w:r><w:tab/><w:t>Value</w:t></w:r><w:r><w:br/><w:t>next line</w:t></w:r></w:p>
<w:p><mc:AlternateContent><mc:Choice Requires="wps"><w:r><w:t>chosen text</w:t></w:r></mc:Choice><mc:Fallback><w:r><w:t>fallback copy</w:t></w:r></mc:Fallback></mc:AlternateContent></w:p>
<w:p><w:r><w:instrText> PAGE </w:instrText></w:r><w:r><w:t>Ünïcödé 中文 ✓</w:t></w:r></w:p>
<w:p><w:r><w:t xml:space="preserve">Before the box, </w:t></w:r><w:r><mc:AlternateContent><mc:Choice Requires="wps"><w:drawing><w:txbxContent><w:p><w:r><w:t>boxed text</w:t></w:r></w:p></w:txbxContent></w:drawing></mc:Choice><mc:Fallback><w:pict><w:txbxContent><w:p><w:r><w:t>boxed text</w:t></w:r></w:p></w:txbxContent></w:pict></mc:Fallback></mc:AlternateContent></w:r><w:r><w:t>after the box.</w:t></w:r></w:p>
`
	for _, p := range extra {
		var esc strings.Builder
		xml.EscapeText(&esc, []byte(p))
		body += `<w:p><w:r><w:t>` + esc.String() + `</w:t></w:r></w:p>`
	}
	body += `</w:body>`
	styles := `<w:styles ` + WordNS + `>
<w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="heading 1"/></w:style>
<w:style w:type="paragraph" w:styleId="Custom2"><w:name w:val="heading 2"/></w:style>
<w:style w:type="paragraph" w:styleId="Title"><w:name w:val="Title"/></w:style>
</w:styles>`
	return Zip(t,
		Part{"[Content_Types].xml", `<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>`},
		Part{"_rels/.rels", fmt.Sprintf(ooxmlRels, "word/document.xml")},
		Part{"word/document.xml", `<?xml version="1.0" encoding="UTF-8"?><w:document ` + WordNS + `>` + body + `</w:document>`},
		Part{"word/styles.xml", styles},
	)
}

// XLSX builds a workbook of two sheets with shared strings, numbers,
// a formula with its cached value, a gap row and a far-away cell.
func XLSX(t testing.TB) []byte {
	sheet := func(rows string) string {
		return `<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>` + rows + `</sheetData></worksheet>`
	}
	return Zip(t,
		Part{"[Content_Types].xml", `<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">
<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>
<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>
<Override PartName="/xl/worksheets/sheet2.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>
<Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/></Types>`},
		Part{"_rels/.rels", fmt.Sprintf(ooxmlRels, "xl/workbook.xml")},
		Part{"xl/workbook.xml", `<?xml version="1.0"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets>
<sheet name="Budget 2026" sheetId="1" r:id="rId1"/><sheet name="Notes" sheetId="2" r:id="rId2"/></sheets></workbook>`},
		Part{"xl/_rels/workbook.xml.rels", `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/>
<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet2.xml"/>
<Relationship Id="rId3" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/sharedStrings" Target="sharedStrings.xml"/></Relationships>`},
		Part{"xl/sharedStrings.xml", `<?xml version="1.0"?><sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">
<si><t>Item</t></si><si><t>Cost</t></si><si><t>Servers | cloud</t></si><si><t>Licences</t></si><si><t>Total</t></si><si><t>Reviewed by finance</t></si></sst>`},
		Part{"xl/worksheets/sheet1.xml", sheet(`<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c></row>
<row r="2"><c r="A2" t="s"><v>2</v></c><c r="B2"><v>1200.5</v></c></row>
<row r="3"><c r="A3" t="s"><v>3</v></c><c r="B3"><v>300</v></c></row>
<row r="5"><c r="A5" t="s"><v>4</v></c><c r="B5"><f>SUM(B2:B3)</f><v>1500.5</v></c><c r="E5" t="inlineStr"><is><t>inline note</t></is></c></row>`)},
		Part{"xl/worksheets/sheet2.xml", sheet(`<row r="1"><c r="A1" t="s"><v>5</v></c></row>`)},
	)
}

const pNS = `xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main"`

// PPTX builds a deck of two slides listed out of file order, with a
// title, bullets, a table and speaker notes.
func PPTX(t testing.TB) []byte {
	shape := func(ph, text string) string {
		return `<p:sp><p:nvSpPr><p:cNvPr id="2" name="x"/><p:cNvSpPr/><p:nvPr>` + ph + `</p:nvPr></p:nvSpPr><p:txBody>` + text + `</p:txBody></p:sp>`
	}
	para := func(s string) string { return `<a:p><a:r><a:t>` + s + `</a:t></a:r></a:p>` }
	slide := func(body string) string {
		return `<?xml version="1.0"?><p:sld ` + pNS + `><p:cSld><p:spTree>` + body + `</p:spTree></p:cSld></p:sld>`
	}
	return Zip(t,
		Part{"[Content_Types].xml", `<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>`},
		Part{"_rels/.rels", fmt.Sprintf(ooxmlRels, "ppt/presentation.xml")},
		Part{"ppt/presentation.xml", `<?xml version="1.0"?><p:presentation ` + pNS + `><p:sldIdLst><p:sldId id="256" r:id="rId7"/><p:sldId id="257" r:id="rId3"/></p:sldIdLst></p:presentation>`},
		Part{"ppt/_rels/presentation.xml.rels", `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
<Relationship Id="rId3" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/slide" Target="slides/slide1.xml"/>
<Relationship Id="rId7" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/slide" Target="/ppt/slides/slide2.xml"/></Relationships>`},
		Part{"ppt/slides/slide2.xml", slide(shape(`<p:ph type="ctrTitle"/>`, para("Quarterly review")) +
			shape(`<p:ph idx="1"/>`, para("Revenue up 12%")+`<a:p><a:r><a:t>Churn</a:t></a:r><a:br/><a:r><a:t>down</a:t></a:r></a:p>`))},
		Part{"ppt/slides/_rels/slide2.xml.rels", `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/notesSlide" Target="../notesSlides/notesSlide1.xml"/></Relationships>`},
		Part{"ppt/notesSlides/notesSlide1.xml", `<?xml version="1.0"?><p:notes ` + pNS + `><p:cSld><p:spTree>` +
			shape(`<p:ph type="sldImg"/>`, para("slide image")) + shape(`<p:ph type="body" idx="1"/>`, para("Mention the new region.")) +
			shape(`<p:ph type="sldNum"/>`, para("1")) + `</p:spTree></p:cSld></p:notes>`},
		Part{"ppt/slides/slide1.xml", slide(shape(`<p:ph type="title"/>`, para("Numbers")) +
			`<p:graphicFrame><a:graphic><a:graphicData><a:tbl><a:tr><a:tc><a:txBody>` + para("Region") + `</a:txBody></a:tc><a:tc><a:txBody>` + para("Sales") + `</a:txBody></a:tc></a:tr>` +
			`<a:tr><a:tc><a:txBody>` + para("EMEA") + `</a:txBody></a:tc><a:tc><a:txBody>` + para("4.2M") + `</a:txBody></a:tc></a:tr></a:tbl></a:graphicData></a:graphic></p:graphicFrame>`)},
	)
}

const odfNS = `xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" xmlns:presentation="urn:oasis:names:tc:opendocument:xmlns:presentation:1.0" office:version="1.3"`

func ODF(t testing.TB, mime, body string, encrypted bool) []byte {
	manifest := `<?xml version="1.0"?><manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0"><manifest:file-entry manifest:full-path="/" manifest:media-type="` + mime + `"/><manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml">`
	if encrypted {
		manifest += `<manifest:encryption-data manifest:checksum-type="SHA1/1K" manifest:checksum="AAAA"><manifest:algorithm manifest:algorithm-name="Blowfish CFB"/></manifest:encryption-data>`
	}
	manifest += `</manifest:file-entry></manifest:manifest>`
	return Zip(t,
		Part{"mimetype", mime},
		Part{"META-INF/manifest.xml", manifest},
		Part{"content.xml", `<?xml version="1.0" encoding="UTF-8"?><office:document-content ` + odfNS + `><office:body>` + body + `</office:body></office:document-content>`},
	)
}

func ODT(t testing.TB, encrypted bool) []byte {
	return ODF(t, "application/vnd.oasis.opendocument.text", `<office:text>
<text:h text:outline-level="1">Release notes</text:h>
<text:p>Version 2.0 brings<text:s text:c="2"/>spaced words,<text:tab/>tabs<text:line-break/>and breaks.<text:note><text:note-citation>1</text:note-citation><text:note-body><text:p>A footnote left out.</text:p></text:note-body></text:note></text:p>
<text:h text:outline-level="2">Changes</text:h>
<text:list><text:list-item><text:p>Faster start</text:p></text:list-item><text:list-item><text:p>New export</text:p><text:list><text:list-item><text:p>to CSV</text:p></text:list-item></text:list></text:list-item></text:list>
<table:table table:name="T1"><table:table-row><table:table-cell><text:p>Name</text:p></table:table-cell><table:table-cell><text:p>Owner</text:p></table:table-cell></table:table-row>
<table:table-row><table:table-cell><text:p>core</text:p></table:table-cell><table:table-cell><text:p>Ana</text:p></table:table-cell></table:table-row></table:table>
<text:p>Ελληνικά και ру́сский</text:p>
</office:text>`, encrypted)
}

func ODS(t testing.TB) []byte {
	return ODF(t, "application/vnd.oasis.opendocument.spreadsheet", `<office:spreadsheet>
<table:table table:name="Inventory">
<table:table-row><table:table-cell><text:p>SKU</text:p></table:table-cell><table:table-cell><text:p>Qty</text:p></table:table-cell><table:table-cell table:number-columns-repeated="1022"/></table:table-row>
<table:table-row table:number-rows-repeated="2"><table:table-cell><text:p>A-1</text:p></table:table-cell><table:table-cell table:number-columns-repeated="2"/><table:table-cell><text:p>late</text:p></table:table-cell></table:table-row>
<table:table-row table:number-rows-repeated="1048573"><table:table-cell table:number-columns-repeated="1024"/></table:table-row>
</table:table>
<table:table table:name="Empty"><table:table-row table:number-rows-repeated="1048576"><table:table-cell table:number-columns-repeated="1024"/></table:table-row></table:table>
</office:spreadsheet>`, false)
}

func ODP(t testing.TB) []byte {
	return ODF(t, "application/vnd.oasis.opendocument.presentation", `<office:presentation>
<draw:page draw:name="page1"><draw:frame presentation:class="title"><draw:text-box><text:p>Roadmap</text:p></draw:text-box></draw:frame>
<draw:frame presentation:class="outline"><draw:text-box><text:list><text:list-item><text:p>Q1: search</text:p></text:list-item><text:list-item><text:p>Q2: sync</text:p></text:list-item></text:list></draw:text-box></draw:frame>
<presentation:notes><draw:frame presentation:class="notes"><draw:text-box><text:p>Keep it short.</text:p></draw:text-box></draw:frame></presentation:notes></draw:page>
<draw:page draw:name="Thanks"><draw:frame presentation:class="title"><draw:text-box><text:p>Questions?</text:p></draw:text-box></draw:frame></draw:page>
</office:presentation>`, false)
}

func EPUB(t testing.TB, drm bool) []byte {
	chapter := func(title, body string) string {
		return `<?xml version="1.0" encoding="UTF-8"?><html xmlns="http://www.w3.org/1999/xhtml"><head><title>` + title + `</title><style>p{}</style></head><body>` + body + `</body></html>`
	}
	parts := []Part{
		{"mimetype", "application/epub+zip"},
		{"META-INF/container.xml", `<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>`},
		{"OEBPS/content.opf", `<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0"><manifest>
<item id="c2" href="text/chapter%202.xhtml" media-type="application/xhtml+xml"/><item id="c1" href="text/ch1.xhtml" media-type="application/xhtml+xml"/><item id="css" href="style.css" media-type="text/css"/>
</manifest><spine><itemref idref="c1"/><itemref idref="c2"/></spine></package>`},
		{"OEBPS/text/ch1.xhtml", chapter("One", `<h1>Chapter 1</h1><p>It was a <em>bright</em> cold day &amp; the clocks<br/>were striking.</p><script>alert(1)</script><ul><li>first</li><li>second</li></ul>`)},
		{"OEBPS/text/chapter 2.xhtml", chapter("Two", `<h2>Chapter 2</h2><table><tr><th>Word</th><th>Count</th></tr><tr><td>clock</td><td>13</td></tr></table><pre>  keep   spacing</pre>`)},
	}
	if drm {
		parts = append(parts, Part{"META-INF/encryption.xml", `<?xml version="1.0"?><encryption xmlns="urn:oasis:names:tc:opendocument:xmlns:container" xmlns:enc="http://www.w3.org/2001/04/xmlenc#"><enc:EncryptedData><enc:EncryptionMethod Algorithm="http://www.w3.org/2001/04/xmlenc#aes128-cbc"/><enc:CipherData><enc:CipherReference URI="OEBPS/text/ch1.xhtml"/></enc:CipherData></enc:EncryptedData></encryption>`})
	} else {
		parts = append(parts, Part{"META-INF/encryption.xml", `<?xml version="1.0"?><encryption xmlns="urn:oasis:names:tc:opendocument:xmlns:container" xmlns:enc="http://www.w3.org/2001/04/xmlenc#"><enc:EncryptedData><enc:EncryptionMethod Algorithm="http://www.idpf.org/2008/embedding"/><enc:CipherData><enc:CipherReference URI="OEBPS/fonts/a.otf"/></enc:CipherData></enc:EncryptedData></encryption>`})
	}
	return Zip(t, parts...)
}

// IPYNB builds an nbformat 4 notebook with Markdown, code with stream,
// result, image and error outputs, a long output and an attachment.
func IPYNB(t testing.TB) []byte {
	png := hex.EncodeToString([]byte("not really a png"))
	var long []string
	for i := range 50 {
		long = append(long, fmt.Sprintf("epoch %d loss %.3f\n", i, 1/float64(i+1)))
	}
	nb := map[string]any{
		"nbformat": 4, "nbformat_minor": 5,
		"metadata": map[string]any{"kernelspec": map[string]any{"name": "python3", "language": "python"}, "language_info": map[string]any{"name": "python"}},
		"cells": []any{
			map[string]any{"cell_type": "markdown", "metadata": map[string]any{}, "source": []string{"# Analysis\n", "Loads the data.\n", "![plot](attachment:plot.png)"},
				"attachments": map[string]any{"plot.png": map[string]any{"image/png": png}}},
			map[string]any{"cell_type": "code", "execution_count": 1, "metadata": map[string]any{}, "source": "import pandas as pd\ndf = pd.read_csv('x.csv')\ndf.shape",
				"outputs": []any{
					map[string]any{"output_type": "stream", "name": "stdout", "text": []string{"loaded\n"}},
					map[string]any{"output_type": "execute_result", "execution_count": 1, "metadata": map[string]any{}, "data": map[string]any{"text/plain": []string{"(120, 4)"}}},
				}},
			map[string]any{"cell_type": "code", "execution_count": 2, "metadata": map[string]any{}, "source": []string{"df.plot()"},
				"outputs": []any{map[string]any{"output_type": "display_data", "metadata": map[string]any{}, "data": map[string]any{"image/png": png, "text/plain": "<Figure size 640x480>"}}}},
			map[string]any{"cell_type": "code", "execution_count": 3, "metadata": map[string]any{}, "source": "train()",
				"outputs": []any{map[string]any{"output_type": "stream", "name": "stderr", "text": long}}},
			map[string]any{"cell_type": "code", "execution_count": nil, "metadata": map[string]any{}, "source": "1/0",
				"outputs": []any{map[string]any{"output_type": "error", "ename": "ZeroDivisionError", "evalue": "division by zero", "traceback": []string{"\x1b[0;31m---\x1b[0m"}}}},
			map[string]any{"cell_type": "raw", "metadata": map[string]any{}, "source": "raw text"},
		},
	}
	b, err := json.MarshalIndent(nb, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// RTF builds an RTF document with a font table, escaped symbols,
// \u escapes with fallbacks, a cp1252 byte, a GBK font, a table and a
// field whose instruction is left out.
func RTF() []byte {
	return []byte(`{\rtf1\ansi\ansicpg1252\deff0{\fonttbl{\f0\fswiss\fcharset0 Arial;}{\f1\fnil\fcharset134 SimSun;}}
{\colortbl;\red255\green0\blue0;}{\*\generator Test;}{\info{\title Secret title}}
{\header\pard Page header\par}
\pard\f0\fs24 Meeting notes {\loch\i0\*\cs7 (styled)}\par
Caf\'e9 and na\u239?ve \{braces\} and a backslash \\.\par
\u20013?\u25991? via unicode, {\f1\'d6\'d0\'ce\'c4} via GBK.\line New line\tab after tab.\par
{\field{\*\fldinst HYPERLINK "http://example.com"}{\fldrslt link text}}\par
\trowd\cellx1000\cellx2000\pard\intbl Name\cell Role\cell\row
\trowd\cellx1000\cellx2000\pard\intbl Ana\cell Lead\cell\row
\pard After the table.\par
{\pict\bin4 }}}}}Binary picture data skipped.\par
}`)
}

// SkipPDFUnderRace skips a test that runs PDFium under -short (make
// check, and the race pass) and when the race detector is on: wazero
// compiles PDFium's 5.6 MB WebAssembly module in 15-20 s of one core on a
// machine that has not compiled it before, and in minutes when the
// compiler itself is instrumented. make test's whole pass runs every
// package without either, so these tests run in CI all the same.
func SkipPDFUnderRace(t testing.TB) {
	t.Helper()
	if testkit.Race || testing.Short() {
		t.Skip("PDFium runs in make test's whole pass: without -short and -race (its first compile takes 15-20 s, minutes under -race)")
	}
}
