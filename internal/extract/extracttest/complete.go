package extracttest

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strings"
	"testing"
	"unicode/utf16"

	"golang.org/x/text/encoding/charmap"
)

// This file writes documents whose text lives outside the main part:
// Word headers, footers, notes and comments, charts and SmartArt in Word
// and PowerPoint, text on slide masters, altChunk imports, General numbers
// in a workbook, and RTF tables the way various writers leave them.

const relsNS = `xmlns="http://schemas.openxmlformats.org/package/2006/relationships"`

// rel is one relationship line of a .rels part.
func rel(id, typ, target string) string {
	return `<Relationship Id="` + id + `" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/` + typ + `" Target="` + target + `"/>`
}

func relsPart(rels ...string) string {
	return `<?xml version="1.0"?><Relationships ` + relsNS + `>` + strings.Join(rels, "") + `</Relationships>`
}

// ChartXML is a DrawingML chart part: a title, a category axis with a
// title, two series over three categories (the second series' name given
// literally, its last value missing), and a text-properties block whose
// paragraph holds no text.
const ChartXML = `<?xml version="1.0"?><c:chartSpace xmlns:c="http://schemas.openxmlformats.org/drawingml/2006/chart" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"><c:chart>
<c:title><c:tx><c:rich><a:bodyPr/><a:p><a:r><a:t>Sales by </a:t></a:r><a:r><a:t>region</a:t></a:r></a:p></c:rich></c:tx></c:title>
<c:plotArea><c:barChart>
<c:ser><c:idx val="0"/><c:tx><c:strRef><c:f>Sheet1!$B$1</c:f><c:strCache><c:ptCount val="1"/><c:pt idx="0"><c:v>2025</c:v></c:pt></c:strCache></c:strRef></c:tx>
<c:cat><c:strRef><c:f>Sheet1!$A$2:$A$4</c:f><c:strCache><c:ptCount val="3"/><c:pt idx="0"><c:v>EMEA</c:v></c:pt><c:pt idx="1"><c:v>Americas</c:v></c:pt><c:pt idx="2"><c:v>APAC</c:v></c:pt></c:strCache></c:strRef></c:cat>
<c:val><c:numRef><c:f>Sheet1!$B$2:$B$4</c:f><c:numCache><c:formatCode>General</c:formatCode><c:ptCount val="3"/><c:pt idx="0"><c:v>4.2</c:v></c:pt><c:pt idx="1"><c:v>3.1</c:v></c:pt><c:pt idx="2"><c:v>1.75</c:v></c:pt></c:numCache></c:numRef></c:val></c:ser>
<c:ser><c:idx val="1"/><c:tx><c:v>2026 (plan)</c:v></c:tx>
<c:cat><c:strRef><c:strCache><c:ptCount val="3"/><c:pt idx="0"><c:v>EMEA</c:v></c:pt><c:pt idx="1"><c:v>Americas</c:v></c:pt><c:pt idx="2"><c:v>APAC</c:v></c:pt></c:strCache></c:strRef></c:cat>
<c:val><c:numRef><c:numCache><c:ptCount val="3"/><c:pt idx="0"><c:v>5</c:v></c:pt><c:pt idx="1"><c:v>3.3</c:v></c:pt></c:numCache></c:numRef></c:val></c:ser>
</c:barChart>
<c:catAx><c:title><c:tx><c:rich><a:p><a:r><a:t>Region</a:t></a:r></a:p></c:rich></c:tx></c:title></c:catAx>
<c:valAx><c:txPr><a:bodyPr/><a:p><a:pPr><a:defRPr/></a:pPr><a:endParaRPr/></a:p></c:txPr></c:valAx>
</c:plotArea></c:chart></c:chartSpace>`

// DiagramXML is a SmartArt data model: a document point, two nodes, an
// assistant, and the connector points between them (no text of theirs).
const DiagramXML = `<?xml version="1.0"?><dgm:dataModel xmlns:dgm="http://schemas.openxmlformats.org/drawingml/2006/diagram" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"><dgm:ptLst>
<dgm:pt modelId="0" type="doc"><dgm:t><a:p><a:endParaRPr/></a:p></dgm:t></dgm:pt>
<dgm:pt modelId="1"><dgm:t><a:bodyPr/><a:p><a:r><a:t>Plan</a:t></a:r></a:p></dgm:t></dgm:pt>
<dgm:pt modelId="2" type="parTrans"><dgm:t><a:p><a:r><a:t>connector words</a:t></a:r></a:p></dgm:t></dgm:pt>
<dgm:pt modelId="3"><dgm:t><a:p><a:r><a:t>Build</a:t></a:r></a:p><a:p><a:r><a:t>and test</a:t></a:r></a:p></dgm:t></dgm:pt>
<dgm:pt modelId="4" type="asst"><dgm:t><a:p><a:r><a:t>Ship</a:t></a:r></a:p></dgm:t></dgm:pt>
</dgm:ptLst></dgm:dataModel>`

// DOCXMemo builds a memo whose text is spread over the parts of a Word
// package: two headers with the same text and one with only a picture,
// a footer, a footnote, an endnote, two comments (one of two paragraphs),
// a chart anchored in a paragraph and one in a table cell, a SmartArt
// diagram, altChunk imports of HTML and of MHT, and two embedded objects
// whose pictures are metafiles, one drawing a label and one no text. Every part is found
// through word/_rels/document.xml.rels; the comments part's relationship
// is left out, so it is found through [Content_Types].xml.
func DOCXMemo(t testing.TB) []byte {
	t.Helper()
	ct := `<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">
<Default Extension="html" ContentType="text/html"/>
<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>
<Override PartName="/word/comments.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.comments+xml"/>
<Override PartName="/word/glossary/footnotes.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.footnotes+xml"/>
<Override PartName="/word/chunk.mht" ContentType="message/rfc822"/>
</Types>`
	para := func(s string) string { return `<w:p><w:r><w:t xml:space="preserve">` + s + `</w:t></w:r></w:p>` }
	hdr := func(root, body string) string {
		return `<?xml version="1.0"?><w:` + root + ` ` + WordNS + `>` + body + `</w:` + root + `>`
	}
	drawing := `<w:r><w:drawing><wp:inline xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing"><a:graphic xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"><a:graphicData>%s</a:graphicData></a:graphic></wp:inline></w:drawing></w:r>`
	chart := func(id string) string {
		return fmt.Sprintf(drawing, `<c:chart xmlns:c="http://schemas.openxmlformats.org/drawingml/2006/chart" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" r:id="`+id+`"/>`)
	}
	body := `<w:body>
<w:p><w:pPr><w:pStyle w:val="Heading1"/></w:pPr><w:r><w:t>Rollout memo</w:t></w:r></w:p>
<w:p><w:r><w:t xml:space="preserve">The rollout starts in May</w:t></w:r><w:r><w:footnoteReference w:id="2"/></w:r><w:commentRangeStart w:id="0"/><w:r><w:t xml:space="preserve"> in three regions</w:t></w:r><w:commentRangeEnd w:id="0"/><w:r><w:commentReference w:id="0"/></w:r><w:r><w:t>.</w:t></w:r></w:p>
<w:p><w:r><w:t xml:space="preserve">Budgets follow the plan</w:t></w:r><w:r><w:endnoteReference w:id="1"/></w:r><w:r><w:t xml:space="preserve"> and the footnote again</w:t></w:r><w:r><w:footnoteReference w:id="2"/></w:r><w:r><w:t>.</w:t></w:r></w:p>
<w:p><w:r><w:t xml:space="preserve">Figure 1: </w:t></w:r>` + chart("rIdChart") + `</w:p>
<w:p><w:r><w:t xml:space="preserve">The same chart again (written once): </w:t></w:r>` + chart("rIdChart") + `</w:p>
<w:p>` + fmt.Sprintf(drawing, `<dgm:relIds xmlns:dgm="http://schemas.openxmlformats.org/drawingml/2006/diagram" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" r:dm="rIdData" r:lo="rIdLayout"/>`) + `</w:p>
<w:tbl><w:tr><w:tc>` + para("Quarter") + `</w:tc><w:tc>` + para("Plot") + `</w:tc></w:tr>
<w:tr><w:tc>` + para("Q3") + `</w:tc><w:tc><w:p>` + chart("rIdChart2") + `</w:p></w:tc></w:tr></w:tbl>
<w:altChunk xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" r:id="rIdHTML"/>
<w:altChunk xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" r:id="rIdMHT"/>
<w:p><w:r><w:t xml:space="preserve">Installer: </w:t></w:r><w:r><w:object xmlns:v="urn:schemas-microsoft-com:vml" xmlns:o="urn:schemas-microsoft-com:office:office" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><v:shape id="_x0000_i1025" type="#_x0000_t75"><v:imagedata r:id="rIdEmf" o:title=""/></v:shape><o:OLEObject Type="Embed" ProgID="Package" ShapeID="_x0000_i1025" r:id="rIdBin"/></w:object></w:r></w:p>
<w:p><w:r><w:object xmlns:v="urn:schemas-microsoft-com:vml" xmlns:o="urn:schemas-microsoft-com:office:office" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><v:shape><v:imagedata r:id="rIdBlank"/></v:shape><o:OLEObject ProgID="AcroExch.Document.11" r:id="rIdBin"/></w:object></w:r></w:p>
` + para("Signed, the team.") + `
<w:sectPr><w:headerReference w:type="default" r:id="rIdH1" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"/></w:sectPr>
</w:body>`
	footnotes := hdr("footnotes", `<w:footnote w:type="separator" w:id="0"><w:p><w:r><w:separator/></w:r></w:p></w:footnote>
<w:footnote w:type="continuationSeparator" w:id="1"><w:p><w:r><w:continuationSeparator/></w:r></w:p></w:footnote>
<w:footnote w:id="2"><w:p><w:r><w:footnoteRef/></w:r><w:r><w:t xml:space="preserve"> After the code freeze.</w:t></w:r></w:p></w:footnote>
<w:footnote w:id="3"><w:p><w:r><w:footnoteRef/></w:r><w:r><w:t xml:space="preserve"> A note nothing refers to.</w:t></w:r></w:p></w:footnote>`)
	endnotes := hdr("endnotes", `<w:endnote w:type="separator" w:id="-1"><w:p><w:r><w:separator/></w:r></w:p></w:endnote>
<w:endnote w:id="1"><w:p><w:r><w:endnoteRef/></w:r><w:r><w:t xml:space="preserve"> Plan of 12 March.</w:t></w:r></w:p></w:endnote>`)
	comments := hdr("comments", `<w:comment w:id="0" w:author="Ana Lima" w:date="2026-03-01T10:00:00Z" w:initials="AL"><w:p><w:r><w:annotationRef/></w:r><w:r><w:t>Which regions?</w:t></w:r></w:p><w:p><w:r><w:t>EMEA first, please.</w:t></w:r></w:p></w:comment>
<w:comment w:id="1" w:author=""><w:p><w:r><w:t>Unanchored remark.</w:t></w:r></w:p></w:comment>`)
	mht := "MIME-Version: 1.0\r\nContent-Type: multipart/related; boundary=\"BOUND\"\r\n\r\n--BOUND\r\nContent-Type: text/html; charset=\"windows-1252\"\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n<html><body><p>Imported caf=E9 notes, a long=\r\n line.</p></body></html>\r\n--BOUND\r\nContent-Type: image/png\r\nContent-Transfer-Encoding: base64\r\n\r\niVBORw0KGgo=\r\n--BOUND--\r\n"
	return Zip(t,
		Part{"[Content_Types].xml", ct},
		Part{"_rels/.rels", fmt.Sprintf(ooxmlRels, "word/document.xml")},
		Part{"word/document.xml", `<?xml version="1.0" encoding="UTF-8"?><w:document ` + WordNS + `>` + body + `</w:document>`},
		Part{"word/_rels/document.xml.rels", relsPart(
			rel("rIdH3", "header", "header3.xml"), rel("rIdH1", "header", "header1.xml"), rel("rIdH2", "header", "header2.xml"),
			rel("rIdF1", "footer", "footer1.xml"), rel("rIdFn", "footnotes", "footnotes.xml"), rel("rIdEn", "endnotes", "endnotes.xml"),
			rel("rIdChart", "chart", "charts/chart1.xml"), rel("rIdChart2", "chart", "/word/charts/chart2.xml"),
			rel("rIdData", "diagramData", "diagrams/data1.xml"), rel("rIdLayout", "diagramLayout", "diagrams/layout1.xml"),
			rel("rIdHTML", "aFChunk", "chunk.html"), rel("rIdMHT", "aFChunk", "chunk.mht"),
			rel("rIdEmf", "image", "media/image1.emf"), rel("rIdBlank", "image", "media/image2.emf"), rel("rIdBin", "oleObject", "embeddings/oleObject1.bin"),
			`<Relationship Id="rIdLink" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/hyperlink" Target="https://example.com/" TargetMode="External"/>`)},
		Part{"word/styles.xml", `<w:styles ` + WordNS + `><w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="heading 1"/></w:style></w:styles>`},
		Part{"word/header1.xml", hdr("hdr", para("ACME Corp · Internal"))},
		Part{"word/header2.xml", hdr("hdr", para("ACME Corp · Internal"))},
		Part{"word/header3.xml", hdr("hdr", `<w:p><w:r><w:drawing/></w:r></w:p>`)},
		Part{"word/footer1.xml", hdr("ftr", `<w:p><w:r><w:t xml:space="preserve">Page </w:t></w:r><w:r><w:instrText> PAGE </w:instrText></w:r><w:r><w:t>1</w:t></w:r></w:p>`)},
		Part{"word/footnotes.xml", footnotes},
		Part{"word/endnotes.xml", endnotes},
		Part{"word/comments.xml", comments},
		Part{"word/glossary/footnotes.xml", hdr("footnotes", `<w:footnote w:id="2"><w:p><w:r><w:t>Glossary text, not the document's.</w:t></w:r></w:p></w:footnote>`)},
		Part{"word/charts/chart1.xml", ChartXML},
		Part{"word/charts/chart2.xml", strings.Replace(ChartXML, "Sales by ", "Q3 sales by ", 1)},
		Part{"word/diagrams/data1.xml", DiagramXML},
		Part{"word/diagrams/layout1.xml", `<dgm:layoutDef xmlns:dgm="http://schemas.openxmlformats.org/drawingml/2006/diagram"/>`},
		Part{"word/chunk.html", `<!DOCTYPE html><html><head><title>not text</title></head><body><p>Imported <b>HTML</b> paragraph.</p></body></html>`},
		Part{"word/chunk.mht", mht},
		Part{"word/media/image1.emf", string(EMF("Setup.exe"))},
		Part{"word/media/image2.emf", string(EMF())},
		Part{"word/embeddings/oleObject1.bin", "not read"},
	)
}

// PPTXCharts builds a deck of two slides: one with a title, a chart and
// an object embedded as an icon (its picture, a WMF, named only in the
// mc:Fallback copy), one with a SmartArt diagram and an embedded
// worksheet whose picture (an EMF) is found through the slide's legacy
// VML drawing; and speaker notes holding a chart of their own (left out,
// as notes keep only their body text). Both slides
// use one layout, whose placeholders hold prompts and whose one plain
// text box says "ACME confidential", on a master of prompts only.
func PPTXCharts(t testing.TB) []byte {
	t.Helper()
	sp := func(ph, text string) string {
		return `<p:sp><p:nvSpPr><p:cNvPr id="2" name="x"/><p:cNvSpPr/><p:nvPr>` + ph + `</p:nvPr></p:nvSpPr><p:txBody><a:p><a:r><a:t>` + text + `</a:t></a:r></a:p></p:txBody></p:sp>`
	}
	frame := func(data string) string {
		return `<p:graphicFrame><p:nvGraphicFramePr><p:cNvPr id="4" name="f"/><p:cNvGraphicFramePr/><p:nvPr/></p:nvGraphicFramePr><a:graphic><a:graphicData>` + data + `</a:graphicData></a:graphic></p:graphicFrame>`
	}
	tree := func(root, body string) string {
		return `<?xml version="1.0"?><p:` + root + ` ` + pNS + `><p:cSld><p:spTree>` + body + `</p:spTree></p:cSld></p:` + root + `>`
	}
	chart := func(id string) string {
		return frame(`<c:chart xmlns:c="http://schemas.openxmlformats.org/drawingml/2006/chart" r:id="` + id + `"/>`)
	}
	return Zip(t,
		Part{"[Content_Types].xml", `<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>`},
		Part{"_rels/.rels", fmt.Sprintf(ooxmlRels, "ppt/presentation.xml")},
		Part{"ppt/presentation.xml", `<?xml version="1.0"?><p:presentation ` + pNS + `><p:sldIdLst><p:sldId id="256" r:id="rId1"/><p:sldId id="257" r:id="rId2"/></p:sldIdLst></p:presentation>`},
		Part{"ppt/_rels/presentation.xml.rels", relsPart(rel("rId1", "slide", "slides/slide1.xml"), rel("rId2", "slide", "slides/slide2.xml"), rel("rId9", "slideMaster", "slideMasters/slideMaster1.xml"))},
		Part{"ppt/slides/slide1.xml", tree("sld", sp(`<p:ph type="title"/>`, "Regional sales")+chart("rId5")+
			frame(`<mc:AlternateContent xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006"><mc:Choice Requires="v"><p:oleObj spid="_x0000_s1025" name="" showAsIcon="1" r:id="rId8" progId="Package"><p:embed/></p:oleObj></mc:Choice>`+
				`<mc:Fallback><p:oleObj name="" showAsIcon="1" r:id="rId8" progId="Package"><p:embed/><p:pic><p:nvPicPr><p:cNvPr id="0" name=""/><p:cNvPicPr/><p:nvPr/></p:nvPicPr><p:blipFill><a:blip r:embed="rId7"/></p:blipFill></p:pic></p:oleObj></mc:Fallback></mc:AlternateContent>`))},
		Part{"ppt/slides/_rels/slide1.xml.rels", relsPart(rel("rId1", "slideLayout", "../slideLayouts/slideLayout1.xml"), rel("rId5", "chart", "../charts/chart1.xml"), rel("rId6", "notesSlide", "../notesSlides/notesSlide1.xml"),
			rel("rId7", "image", "../media/image1.wmf"), rel("rId8", "oleObject", "../embeddings/oleObject1.bin"))},
		Part{"ppt/media/image1.wmf", string(WMF("Report.pdf", "Café menu"))},
		Part{"ppt/notesSlides/notesSlide1.xml", tree("notes", sp(`<p:ph type="body" idx="1"/>`, "Say the APAC number twice.")+chart("rId2"))},
		Part{"ppt/notesSlides/_rels/notesSlide1.xml.rels", relsPart(rel("rId2", "chart", "../charts/chart2.xml"))},
		Part{"ppt/slides/slide2.xml", tree("sld", sp(`<p:ph type="title"/>`, "Next steps")+frame(`<dgm:relIds xmlns:dgm="http://schemas.openxmlformats.org/drawingml/2006/diagram" r:dm="rId3" r:lo="rId4" r:qs="rId7" r:cs="rId8"/>`)+
			frame(`<p:oleObj spid="_x0000_s1030" name="Worksheet" r:id="rId9" progId="Excel.Sheet.12"><p:embed/></p:oleObj>`))},
		Part{"ppt/slides/_rels/slide2.xml.rels", relsPart(rel("rId1", "slideLayout", "../slideLayouts/slideLayout1.xml"), rel("rId3", "diagramData", "../diagrams/data1.xml"), rel("rId4", "diagramLayout", "../diagrams/layout1.xml"),
			rel("rId2", "vmlDrawing", "../drawings/vmlDrawing1.vml"), rel("rId9", "package", "../embeddings/Book1.xlsx"))},
		Part{"ppt/drawings/vmlDrawing1.vml", `<xml xmlns:v="urn:schemas-microsoft-com:vml" xmlns:o="urn:schemas-microsoft-com:office:office"><v:shapetype id="_x0000_t75"/><v:shape id="_x0000_s1029" type="#_x0000_t75"><v:imagedata o:relid="rId2"/></v:shape><v:shape id="_x0000_s1030" type="#_x0000_t75"><v:imagedata o:relid="rId1" o:title=""/></v:shape></xml>`},
		Part{"ppt/drawings/_rels/vmlDrawing1.vml.rels", relsPart(rel("rId1", "image", "../media/image2.emf"), rel("rId2", "image", "../media/image1.wmf"))},
		Part{"ppt/media/image2.emf", string(EMF("Q1", "  ", "Q2", "Total"))},
		Part{"ppt/charts/chart1.xml", ChartXML},
		Part{"ppt/charts/chart2.xml", strings.Replace(ChartXML, "Sales by ", "Notes chart by ", 1)},
		Part{"ppt/diagrams/data1.xml", DiagramXML},
		Part{"ppt/slideLayouts/slideLayout1.xml", tree("sldLayout", sp(`<p:ph type="title"/>`, "Click to edit Master title style")+sp(``, "ACME confidential")+sp(`<p:ph type="sldNum" idx="12"/>`, "‹#›"))},
		Part{"ppt/slideLayouts/_rels/slideLayout1.xml.rels", relsPart(rel("rId1", "slideMaster", "../slideMasters/slideMaster1.xml"))},
		Part{"ppt/slideMasters/slideMaster1.xml", tree("sldMaster", sp(`<p:ph type="title"/>`, "Click to edit Master title style")+sp(`<p:ph type="body" idx="1"/>`, "Click to edit Master text styles")+sp(`<p:ph type="dt" idx="10"/>`, "3/1/2026"))},
	)
}

// XLSXNumbers builds a one-sheet workbook of numbers under cell styles:
// style 1 is General (numFmtId 0) and style 2 "0.00"; style 3 is a date,
// style 4 the custom "#,##0". Column A holds the stored value as text,
// column B the number.
func XLSXNumbers(t testing.TB) []byte {
	t.Helper()
	rows := []struct {
		stored string
		style  int
	}{
		{"123456789012345", 1}, {"123456789012346", 1}, {"-123456789012345", 1}, {"123456789012344", 0},
		{"1234567890.12345", 1}, {"0.30000000000000004", 1}, {"0.1", 1}, {"1E+22", 1}, {"1.5E-10", 1},
		{"12345678901", 1}, {"1234567890123456789", 1}, {"2.5", 2}, {"45000", 3}, {"1234567", 4}, {"0", 1},
	}
	var data strings.Builder
	for i, r := range rows {
		fmt.Fprintf(&data, `<row r="%d"><c r="A%d" t="inlineStr"><is><t>%s</t></is></c><c r="B%d" s="%d"><v>%s</v></c></row>`, i+1, i+1, r.stored, i+1, r.style, r.stored)
	}
	return Zip(t,
		Part{"[Content_Types].xml", `<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">
<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>
<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>
<Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/></Types>`},
		Part{"_rels/.rels", fmt.Sprintf(ooxmlRels, "xl/workbook.xml")},
		Part{"xl/workbook.xml", `<?xml version="1.0"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Numbers" sheetId="1" r:id="rId1"/></sheets></workbook>`},
		Part{"xl/_rels/workbook.xml.rels", relsPart(rel("rId1", "worksheet", "worksheets/sheet1.xml"), rel("rId2", "styles", "styles.xml"))},
		Part{"xl/styles.xml", `<?xml version="1.0"?><styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">
<numFmts count="1"><numFmt numFmtId="164" formatCode="#,##0"/></numFmts>
<fonts count="1"><font><sz val="11"/><name val="Calibri"/></font></fonts><fills count="1"><fill><patternFill patternType="none"/></fill></fills><borders count="1"><border/></borders>
<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>
<cellXfs count="5"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/><xf numFmtId="2" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/><xf numFmtId="14" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/><xf numFmtId="164" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/></cellXfs>
</styleSheet>`},
		Part{"xl/worksheets/sheet1.xml", `<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>` + data.String() + `</sheetData></worksheet>`},
	)
}

// RTFTables builds an RTF document of tables as writers leave them:
// cells ended by \cell with no \intbl anywhere and no \row (what a
// template engine wrote in Apache Tika's test file), a row ended only by
// the next row's \trowd, a table nested in a cell (\itap2, \nestcell,
// \nestrow in \*\nesttableprops, with a \nonesttables copy for old
// readers), and a last row the document ends without \row.
func RTFTables() []byte {
	return []byte(`{\rtf1\ansi\deff0{\fonttbl{\f0 Arial;}}
{\f0 Fax / Phone Station\cell Fax / Phone #\cell }
\pard Between the tables.\par
\trowd\cellx1000\cellx2000\pard\intbl Name\cell Role\cell
\trowd\cellx1000\cellx2000\pard\intbl Ana\cell Lead\cell\row
\pard After the first table.\par
\trowd\cellx3000\cellx6000\pard\intbl Outer A\cell
\pard\intbl\itap2 inner 1\nestcell inner 2\nestcell{\*\nesttableprops\trowd\cellx1000\cellx2000\nestrow}{\nonesttables\par inner 1 inner 2 (plain copy)\par}
\pard\intbl\itap2 inner 3\nestcell inner 4\nestcell{\*\nesttableprops\trowd\cellx1000\cellx2000\nestrow}
\pard\intbl\itap1 outer text\cell\row
\pard Last words before a table.\par
\trowd\cellx1000\cellx2000\pard\intbl Caf\'e9\cell Ende\cell
}`)
}

// EMF writes an Enhanced Metafile that draws each text with
// EMR_EXTTEXTOUTW, as Office draws an embedded object's icon label or
// first page: a header record, the text records, an end record.
func EMF(texts ...string) []byte {
	var b bytes.Buffer
	le := binary.LittleEndian
	head := make([]byte, 88)
	le.PutUint32(head, 1) // EMR_HEADER
	le.PutUint32(head[4:], 88)
	copy(head[40:], " EMF") // the signature
	b.Write(head)
	for _, t := range texts {
		units := utf16.Encode([]rune(t))
		size := (76 + 2*len(units) + 3) &^ 3
		rec := make([]byte, size)
		le.PutUint32(rec, 84) // EMR_EXTTEXTOUTW
		le.PutUint32(rec[4:], uint32(size))
		le.PutUint32(rec[44:], uint32(len(units)))
		le.PutUint32(rec[48:], 76) // the string follows the fixed fields
		for i, u := range units {
			le.PutUint16(rec[76+2*i:], u)
		}
		b.Write(rec)
	}
	eof := make([]byte, 20)
	le.PutUint32(eof, 14) // EMR_EOF
	le.PutUint32(eof[4:], 20)
	b.Write(eof)
	return b.Bytes()
}

// WMF writes a placeable Windows Metafile that draws its first text with
// META_TEXTOUT and the others with META_EXTTEXTOUT (clipped, so with a
// rectangle before the string), in Windows-1252.
func WMF(texts ...string) []byte {
	var b bytes.Buffer
	le := binary.LittleEndian
	w16 := func(v uint16) { binary.Write(&b, le, v) }
	b.Write([]byte{0xD7, 0xCD, 0xC6, 0x9A})
	b.Write(make([]byte, 18)) // handle, bounds, inch, reserved, checksum
	w16(1)                    // META_HEADER: in memory
	w16(9)                    // header size in words
	w16(0x0300)
	b.Write(make([]byte, 12)) // size, objects, max record, members
	for i, t := range texts {
		s, _ := charmap.Windows1252.NewEncoder().Bytes([]byte(t))
		padded := append(s, make([]byte, len(s)%2)...)
		if i == 0 {
			binary.Write(&b, le, uint32((6+2+len(padded)+4)/2))
			w16(0x0521)
			w16(uint16(len(s)))
			b.Write(padded)
			w16(0)
			w16(0)
			continue
		}
		binary.Write(&b, le, uint32((6+8+8+len(padded))/2))
		w16(0x0A32)
		w16(0)
		w16(0)
		w16(uint16(len(s)))
		w16(0x0004)              // ETO_CLIPPED
		b.Write(make([]byte, 8)) // the clipping rectangle
		b.Write(padded)
	}
	binary.Write(&b, le, uint32(3))
	w16(0) // META_EOF
	return b.Bytes()
}
