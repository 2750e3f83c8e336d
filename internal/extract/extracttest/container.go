package extracttest

import (
	"archive/zip"
	"bytes"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
)

// Layout is an order of entries real writers use and head sniffers miss:
// the First names at the front, in order (a name ending in "/" is an
// empty directory entry, as jar tools and some EPUB writers put META-INF/
// first), then Filler bytes of incompressible data stored as FillerName,
// then the other parts in their order, then the Last names.
type Layout struct {
	First, Last []string
	Filler      int
	FillerName  string
}

// Reorder rewrites a generated package in layout l. Every part is
// deflated, "mimetype" too, as Tika's testODTStyles3.odt has it.
func Reorder(t testing.TB, pkg []byte, l Layout) []byte {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(pkg), int64(len(pkg)))
	if err != nil {
		t.Fatal(err)
	}
	body := map[string][]byte{}
	var order []string
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		body[f.Name] = b
		order = append(order, f.Name)
	}
	placed := map[string]bool{}
	for _, n := range append(append([]string{}, l.First...), l.Last...) {
		placed[n] = true
	}
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	write := func(name string, data []byte, method uint16) {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: method})
		if err != nil {
			t.Fatal(err)
		}
		w.Write(data)
	}
	for _, n := range l.First {
		if strings.HasSuffix(n, "/") {
			write(n, nil, zip.Store)
		} else {
			write(n, body[n], zip.Deflate)
		}
	}
	if l.Filler > 0 {
		noise := make([]byte, l.Filler)
		rand.NewChaCha8([32]byte{'r', 'e', 'p', 'o', 'p', 'r', 'e', 'p'}).Read(noise) // the same bytes every run
		write(l.FillerName, noise, zip.Store)
	}
	for _, n := range order {
		if !placed[n] {
			write(n, body[n], zip.Deflate)
		}
	}
	for _, n := range l.Last {
		write(n, body[n], zip.Deflate)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// EPUBAfterMetaInf is EPUB with META-INF/ and its container.xml before a
// deflated mimetype, as Tika's testEPUB.epub: content sniffers that read
// the first entry take it for a JAR.
func EPUBAfterMetaInf(t testing.TB) []byte {
	return Reorder(t, EPUB(t, false), Layout{First: []string{"META-INF/", "META-INF/container.xml", "mimetype"}})
}

// EPUBMimetypeLast is EPUB with mimetype its last entry, as Tika's
// testEPUB_multi-metadata-vals.epub: it sniffs as a plain zip.
func EPUBMimetypeLast(t testing.TB) []byte {
	return Reorder(t, EPUB(t, false), Layout{Last: []string{"mimetype"}})
}

// ODTMimetypeNotFirst is ODT with content.xml first and mimetype deflated
// after it, as Tika's testODTStyles3.odt: it sniffs as a plain zip.
func ODTMimetypeNotFirst(t testing.TB) []byte {
	return Reorder(t, ODT(t, false), Layout{First: []string{"content.xml", "META-INF/manifest.xml", "mimetype"}})
}

// XLSXContentTypesLast is XLSX with a 40 KiB thumbnail before the
// workbook's parts and [Content_Types].xml last, so no marker sits in
// the first 32 KiB: it sniffs as a plain zip.
func XLSXContentTypesLast(t testing.TB) []byte {
	return Reorder(t, XLSX(t), Layout{First: []string{"_rels/.rels"}, Last: []string{"[Content_Types].xml"},
		Filler: 40 << 10, FillerName: "docProps/thumbnail.jpeg"})
}

// JAR is a small Java archive as the jar tool writes it: META-INF/ and
// its manifest first, then classes, with 40 KiB of resources before them
// when big is set (so its tail is past the sniffed head).
func JAR(t testing.TB, big bool) []byte {
	pkg := Zip(t,
		Part{"META-INF/MANIFEST.MF", "Manifest-Version: 1.0\r\nMain-Class: com.example.Main\r\n\r\n"},
		Part{"com/example/Main.class", "\xca\xfe\xba\xbe\x00\x00\x00\x34"},
		Part{"META-INF/maven/com.example/app/pom.properties", "version=1.0\n"},
	)
	l := Layout{First: []string{"META-INF/", "META-INF/MANIFEST.MF"}}
	if big {
		l.Filler, l.FillerName = 40<<10, "assets/logo.png"
	}
	return Reorder(t, pkg, l)
}
