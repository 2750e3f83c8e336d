package extract

import (
	"io"
	"net/url"
	"path"
	"strings"
)

// fontObfuscation are the EPUB "encryption" algorithms that only mangle
// embedded fonts; any other entry in encryption.xml is DRM on content.
var fontObfuscation = map[string]bool{
	"http://www.idpf.org/2008/embedding": true,
	"http://ns.adobe.com/pdf/enc#RC":     true,
}

// extractEPUB follows container.xml to the package document and writes
// each spine item, in reading order, behind a "--- section N ---" marker,
// its XHTML as text.
func extractEPUB(b *budget, src io.ReaderAt, size int64, out *textWriter) error {
	z, err := openZip(b, src, size)
	if err != nil {
		return err
	}
	if err := epubEncrypted(z); err != nil {
		return err
	}
	opf, err := epubRootfile(z)
	if err != nil {
		return err
	}
	spine, err := epubSpine(z, opf)
	if err != nil {
		return err
	}
	for i, part := range spine[:min(len(spine), b.lim.MaxPages)] {
		if err := b.section("section"); err != nil {
			return err
		}
		if err := out.Marker("section", i+1, ""); err != nil {
			return err
		}
		rc, err := z.open(part)
		if err != nil {
			return err
		}
		err = htmlText(b, rc, out)
		rc.Close()
		if err != nil {
			return err
		}
	}
	if len(spine) > b.lim.MaxPages {
		return cutOff(sectionsLeft("section", b.lim.MaxPages, len(spine)), "%d sections, more than %d", len(spine), b.lim.MaxPages)
	}
	return out.Err()
}

// epubEncrypted refuses a book whose content (not just its fonts) is
// encrypted.
func epubEncrypted(z *zipDoc) error {
	if !z.has("META-INF/encryption.xml") {
		return nil
	}
	for e, err := range z.starts("META-INF/encryption.xml") {
		if err != nil {
			return err
		}
		if e.Name.Local == "EncryptionMethod" && !fontObfuscation[attr(e, "Algorithm")] {
			return encrypted("DRM-protected EPUB (%s)", attr(e, "Algorithm"))
		}
	}
	return nil
}

// epubRootfile finds the package document container.xml points to.
func epubRootfile(z *zipDoc) (string, error) {
	for e, err := range z.starts("META-INF/container.xml") {
		if err != nil {
			return "", err
		}
		if e.Name.Local == "rootfile" {
			if p := attr(e, "full-path"); p != "" && z.has(p) {
				return p, nil
			}
		}
	}
	return "", unreadable("container.xml names no rootfile")
}

// epubSpine lists the spine's (X)HTML parts in reading order.
func epubSpine(z *zipDoc, opf string) ([]string, error) {
	dir := path.Dir(opf)
	if dir == "." {
		dir = ""
	}
	items := map[string]string{} // id -> part
	var order []string
	for e, err := range z.starts(opf) {
		if err != nil {
			return nil, err
		}
		switch e.Name.Local {
		case "item":
			mt := attr(e, "media-type")
			if !strings.Contains(mt, "html") {
				continue
			}
			href := attr(e, "href")
			if u, err := url.PathUnescape(href); err == nil {
				href = u
			}
			if i := strings.IndexByte(href, '#'); i >= 0 {
				href = href[:i]
			}
			items[attr(e, "id")] = resolvePart(dir+"/", href)
		case "itemref":
			order = append(order, attr(e, "idref"))
		}
	}
	var parts []string
	for _, id := range order {
		if p, ok := items[id]; ok && z.has(p) {
			parts = append(parts, p)
		}
	}
	if len(parts) == 0 {
		return nil, unreadable("%s has no readable spine", opf)
	}
	return parts, nil
}
