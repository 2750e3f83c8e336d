package extract

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	xt "github.com/repoprep/repoprep/internal/extract/extracttest"
)

// countingReaderAt counts the bytes a reader is asked for.
type countingReaderAt struct {
	r io.ReaderAt
	n atomic.Int64
}

func (c *countingReaderAt) ReadAt(p []byte, off int64) (int, error) {
	c.n.Add(int64(len(p)))
	return c.r.ReadAt(p, off)
}

// contentTypes is a [Content_Types].xml naming main as the main part's
// content type.
func contentTypes(part, main string) string {
	return `<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
		`<Default Extension="xml" ContentType="application/xml"/><Override PartName="/` + part + `" ContentType="` + main + `"/></Types>`
}

// containerCases are zips Container must name, or leave alone, by their
// contents whatever the order of their entries.
func containerCases(t testing.TB) []struct {
	name string
	pkg  []byte
	want Format // "": not a document
} {
	const epubContainer = `<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile full-path="OPS/book.opf" media-type="application/oebps-package+xml"/></rootfiles></container>`
	return []struct {
		name string
		pkg  []byte
		want Format
	}{
		// The markers first, as most writers put them.
		{"docx", xt.DOCX(t), DOCX},
		{"xlsx", xt.XLSX(t), XLSX},
		{"pptx", xt.PPTX(t), PPTX},
		{"odt", xt.ODT(t, false), ODT},
		{"ods", xt.ODS(t), ODS},
		{"odp", xt.ODP(t), ODP},
		{"epub", xt.EPUB(t, false), EPUB},
		// Tika's shapes: the markers past the head, or behind META-INF/.
		{"epub, META-INF/ first (testEPUB.epub)", xt.EPUBAfterMetaInf(t), EPUB},
		{"epub, mimetype last (testEPUB_multi-metadata-vals.epub)", xt.EPUBMimetypeLast(t), EPUB},
		{"odt, mimetype not first (testODTStyles3.odt)", xt.ODTMimetypeNotFirst(t), ODT},
		{"xlsx, [Content_Types].xml last past 32 KiB (readxl)", xt.XLSXContentTypesLast(t), XLSX},
		// Variants read like their family.
		{"ott template", xt.ODF(t, "application/vnd.oasis.opendocument.text-template", "<office:text/>", false), ODT},
		{"epub mimetype with CRLF (testEPUB_xml_ext.epub)", xt.Zip(t, xt.Part{Name: "mimetype", Body: "application/epub+zip\r\n"}), EPUB},
		{"xlsm by its main part's type", xt.Zip(t,
			xt.Part{Name: "[Content_Types].xml", Body: contentTypes("xl/book.xml", "application/vnd.ms-excel.sheet.macroEnabled.main+xml")},
			xt.Part{Name: "xl/book.xml", Body: "<workbook/>"}), XLSX},
		{"ppsx slideshow", xt.Zip(t,
			xt.Part{Name: "ppt/presentation.xml", Body: "<p/>"},
			xt.Part{Name: "[Content_Types].xml", Body: contentTypes("ppt/presentation.xml", "application/vnd.openxmlformats-officedocument.presentationml.slideshow.main+xml")}), PPTX},
		{"docx by its conventional part, case-insensitive", xt.Zip(t,
			xt.Part{Name: "Word/Document.xml", Body: "<w/>"}, xt.Part{Name: "[Content_Types].xml", Body: "<Types/>"}), DOCX},
		{"epub by container.xml alone", xt.Zip(t,
			xt.Part{Name: "META-INF/container.xml", Body: epubContainer}, xt.Part{Name: "OPS/book.opf", Body: "<package/>"}), EPUB},
		// Not documents.
		{"jar", xt.JAR(t, false), ""},
		{"jar past the head", xt.JAR(t, true), ""},
		{"plain zip", xt.Zip(t, xt.Part{Name: "a.txt", Body: "hello"}, xt.Part{Name: "b/c.go", Body: "package b"}), ""},
		{"apk", xt.Zip(t, xt.Part{Name: "AndroidManifest.xml", Body: "\x03\x00\x08\x00"}, xt.Part{Name: "classes.dex", Body: "dex\n035\x00"},
			xt.Part{Name: "META-INF/MANIFEST.MF", Body: "Manifest-Version: 1.0\r\n"}), ""},
		{"nupkg: OPC, no office part", xt.Zip(t,
			xt.Part{Name: "[Content_Types].xml", Body: contentTypes("pkg.nuspec", "application/octet")},
			xt.Part{Name: "pkg.nuspec", Body: "<package/>"}, xt.Part{Name: "lib/net8.0/a.dll", Body: "MZ"}), ""},
		{"xlsb: no extractor", xt.Zip(t,
			xt.Part{Name: "[Content_Types].xml", Body: contentTypes("xl/workbook.bin", "application/vnd.ms-excel.sheet.binary.macroEnabled.main")},
			xt.Part{Name: "xl/workbook.bin", Body: "\x83\x01"}), ""},
		{"main part named but absent", xt.Zip(t,
			xt.Part{Name: "[Content_Types].xml", Body: contentTypes("word/gone.xml", "application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml")}), ""},
		{"odg: no extractor", xt.ODF(t, "application/vnd.oasis.opendocument.graphics", "<office:drawing/>", false), ""},
		{"word/document.xml without [Content_Types].xml", xt.Zip(t, xt.Part{Name: "word/document.xml", Body: "<w/>"}), ""},
		{"container.xml naming a missing OPF", xt.Zip(t, xt.Part{Name: "META-INF/container.xml", Body: epubContainer}), ""},
		{"mimetype over 256 bytes", xt.Zip(t, xt.Part{Name: "mimetype", Body: "application/epub+zip" + strings.Repeat(" ", 300)}), ""},
		{"truncated zip", xt.DOCX(t)[:600], ""},
		{"not a zip", []byte("just text, no zip at all"), ""},
		{"empty", nil, ""},
	}
}

func TestContainer(t *testing.T) {
	for _, tt := range containerCases(t) {
		t.Run(tt.name, func(t *testing.T) {
			r := &countingReaderAt{r: bytes.NewReader(tt.pkg)}
			f, mime, ok := Container(r, int64(len(tt.pkg)))
			if f != tt.want || ok != (tt.want != "") {
				t.Fatalf("Container = %q, %q, %v; want %q", f, mime, ok, tt.want)
			}
			if got, _ := FormatOf("no-extension", mime); ok && got != f {
				t.Errorf("mime %q reads as %q, not %q", mime, got, f)
			}
			if n := r.n.Load(); n > maxContainerReadBytes {
				t.Errorf("read %d bytes, over the %d-byte cap", n, maxContainerReadBytes)
			}
		})
	}
}

// TestContainerShapesExtract: extraction never cared where the markers
// sit (openZip reads the directory); the shapes Container now lets
// through must yield their text.
func TestContainerShapesExtract(t *testing.T) {
	for _, tt := range []struct {
		name string
		f    Format
		pkg  []byte
		want string
	}{
		{"epub after META-INF/", EPUB, xt.EPUBAfterMetaInf(t), "It was a bright cold day"},
		{"epub mimetype last", EPUB, xt.EPUBMimetypeLast(t), "| clock | 13 |"},
		{"odt mimetype not first", ODT, xt.ODTMimetypeNotFirst(t), "# Release notes"},
		{"xlsx [Content_Types].xml last", XLSX, xt.XLSXContentTypesLast(t), `Servers \| cloud`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			text, _, err := extract(t, tt.f, tt.pkg, Limits{})
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(text, tt.want) {
				t.Errorf("text lacks %q:\n%s", tt.want, text)
			}
		})
	}
}

// TestContainerBounds: a zip that claims or holds a huge directory, or
// hides a bomb in a marker, costs a bounded read and is not a document.
func TestContainerBounds(t *testing.T) {
	many := func(n int, extra ...xt.Part) []byte {
		var b bytes.Buffer
		zw := zip.NewWriter(&b)
		for _, p := range extra {
			w, _ := zw.Create(p.Name)
			io.WriteString(w, p.Body)
		}
		for i := range n {
			if _, err := zw.CreateHeader(&zip.FileHeader{Name: fmt.Sprintf("f%d", i), Method: zip.Store}); err != nil {
				t.Fatal(err)
			}
		}
		zw.Close()
		return b.Bytes()
	}
	// An end record claiming 0xfffe entries in a directory of 4 GiB.
	liar := xt.DOCX(t)
	liar = append([]byte{}, liar...)
	end := len(liar) - endLen
	binary.LittleEndian.PutUint16(liar[end+8:], 0xfffe)
	binary.LittleEndian.PutUint16(liar[end+10:], 0xfffe)
	binary.LittleEndian.PutUint32(liar[end+12:], 0xfffffff0)
	tests := []struct {
		name    string
		pkg     []byte
		want    Format
		maxRead int64
	}{
		{"70,000 entries", many(70_000, xt.Part{Name: "mimetype", Body: "application/epub+zip"}), "", 2 << 10},
		{"a directory of 4 GiB, by its end record", liar, "", 2 << 10},
		{"60,000 entries", many(60_000, xt.Part{Name: "mimetype", Body: "application/vnd.oasis.opendocument.text"}), ODT, maxContainerReadBytes},
		{"[Content_Types].xml that lies about its size", xt.ZipBomb(t, "[Content_Types].xml", 1<<28, false,
			xt.Part{Name: "word/document.xml", Body: "<w/>"}), DOCX, 256 << 10}, // by the conventional part
		{"[Content_Types].xml of 256 MiB, honest", xt.ZipBomb(t, "[Content_Types].xml", 1<<28, true), "", 64 << 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &countingReaderAt{r: bytes.NewReader(tt.pkg)}
			f, _, _ := Container(r, int64(len(tt.pkg)))
			if f != tt.want {
				t.Errorf("Container = %q, want %q", f, tt.want)
			}
			if n := r.n.Load(); n > tt.maxRead {
				t.Errorf("read %d bytes, want at most %d", n, tt.maxRead)
			}
		})
	}
}

// FuzzContainer: whatever the bytes, Container never panics, never reads
// past its cap, and a format it names is one Extract reads under the mime
// it reports.
func FuzzContainer(f *testing.F) {
	for _, c := range containerCases(f) {
		f.Add(c.pkg)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r := &countingReaderAt{r: bytes.NewReader(data)}
		format, mime, ok := container(r, int64(len(data))) // no recover: a panic is a bug
		if n := r.n.Load(); n > maxContainerReadBytes {
			t.Fatalf("read %d bytes, over the %d-byte cap", n, maxContainerReadBytes)
		}
		if !ok {
			return
		}
		if got, _ := FormatOf("x", mime); got != format {
			t.Fatalf("Container = %q with mime %q, which reads as %q", format, mime, got)
		}
		if _, known := extractors[format]; !known {
			t.Fatalf("Container names %q, which no extractor reads", format)
		}
	})
}

// BenchmarkContainer weighs Container against archive/zip.NewReader
// alone on the same zip of 5,000 entries: the directory read is the cost,
// the marker parts a small addition. Each iteration runs both, so a busy
// machine slows both alike; the "x-NewReader" metric is their ratio.
func BenchmarkContainer(b *testing.B) {
	const entries = 5000
	build := func(markers ...xt.Part) []byte {
		var buf bytes.Buffer
		zw := zip.NewWriter(&buf)
		for i := range entries {
			w, _ := zw.Create(fmt.Sprintf("com/example/pkg%d/Class%d.class", i/100, i))
			w.Write([]byte("\xca\xfe\xba\xbe"))
		}
		for _, p := range markers {
			w, _ := zw.Create(p.Name)
			io.WriteString(w, p.Body)
		}
		zw.Close()
		return buf.Bytes()
	}
	for _, z := range []struct {
		name string
		pkg  []byte
		want Format
	}{
		{"jar", build(), ""},
		{"xlsx", build(xt.Part{Name: "xl/workbook.xml", Body: "<workbook/>"},
			xt.Part{Name: "[Content_Types].xml", Body: contentTypes("xl/workbook.xml", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml")}), XLSX},
	} {
		r := bytes.NewReader(z.pkg)
		b.Run(z.name, func(b *testing.B) {
			var alone, ours time.Duration
			for b.Loop() {
				t0 := time.Now()
				if _, err := zip.NewReader(r, int64(len(z.pkg))); err != nil {
					b.Fatal(err)
				}
				t1 := time.Now()
				if f, _, _ := Container(r, int64(len(z.pkg))); f != z.want {
					b.Fatalf("Container = %q, want %q", f, z.want)
				}
				alone, ours = alone+t1.Sub(t0), ours+time.Since(t1)
			}
			b.ReportMetric(float64(alone.Nanoseconds())/float64(b.N), "NewReader-ns/op")
			b.ReportMetric(float64(ours.Nanoseconds())/float64(b.N), "Container-ns/op")
			b.ReportMetric(float64(ours)/float64(alone), "x-NewReader")
		})
	}
}
