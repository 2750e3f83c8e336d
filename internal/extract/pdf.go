package extract

import (
	"errors"
	"io"
	"strings"

	"github.com/klippa-app/go-pdfium"
	pdferrors "github.com/klippa-app/go-pdfium/errors"
	"github.com/klippa-app/go-pdfium/references"
	"github.com/klippa-app/go-pdfium/requests"
)

// PDFs are read by PDFium, Chrome's PDF engine, compiled to WebAssembly and
// run by wazero inside this process: pure Go, no cgo. The sandbox is the
// point. PDFium is fuzzed continuously and bounds its own recursion, and
// here it also gets a memory ceiling (Limits.MaxPDFMemory: a stream bomb
// fails an allocation instead of taking the machine) and is killed when a
// document's time is up (the module closes on context cancellation). It
// sees no file system; the document is handed over through a reader.
// docs/extract.md compares it with the pure-Go alternatives.

// pdfChunkChars is how many characters of a page are copied out of the
// sandbox at a time.
const pdfChunkChars = 64 << 10

// extractPDF writes each page's text behind a "--- page N ---" marker, in
// PDFium's reading order.
func extractPDF(b *budget, src io.ReaderAt, size int64, out *textWriter) error {
	pool, err := pdfiumPool(b.lim, size)
	if err != nil {
		return unreadable("%v", err)
	}
	inst, err := pool.GetInstanceWithContext(b.ctx)
	if err != nil {
		if b.ctx.Err() != nil {
			return errTimeout
		}
		return unreadable("PDFium instance: %v", err)
	}
	// The watcher kills the instance when the document's time is up; a
	// call running inside the module then returns with an error.
	finished := make(chan struct{})
	killed := make(chan struct{})
	go func() {
		defer close(killed)
		select {
		case <-b.ctx.Done():
			inst.Kill()
		case <-finished:
		}
	}()
	defer func() {
		close(finished)
		<-killed
		if b.ctx.Err() == nil {
			inst.Close()
		}
	}()
	err = pdfPages(b, inst, src, size, out)
	if b.ctx.Err() != nil {
		return errTimeout
	}
	return err
}

func pdfPages(b *budget, inst pdfium.Pdfium, src io.ReaderAt, size int64, out *textWriter) error {
	doc, err := inst.OpenDocument(&requests.OpenDocument{
		FileReader:     io.NewSectionReader(src, 0, size),
		FileReaderSize: size,
	})
	switch {
	case errors.Is(err, pdferrors.ErrPassword), errors.Is(err, pdferrors.ErrSecurity):
		return encrypted("password-protected PDF (%v)", err)
	case err != nil:
		return unreadable("PDFium cannot open it: %v", err)
	}
	defer inst.FPDF_CloseDocument(&requests.FPDF_CloseDocument{Document: doc.Document})
	count, err := inst.FPDF_GetPageCount(&requests.FPDF_GetPageCount{Document: doc.Document})
	if err != nil {
		return unreadable("page count: %v", err)
	}
	// Past the page limit the first MaxPages pages are read, and the text
	// is cut short there (Extract) unless they held none.
	for i := range min(count.PageCount, b.lim.MaxPages) {
		if err := b.section("page"); err != nil {
			return err
		}
		if err := out.Marker("page", i+1, ""); err != nil {
			return err
		}
		if err := pdfPage(inst, doc.Document, i, out); err != nil {
			return pdfAbort(i+1, b.lim, err)
		}
	}
	if count.PageCount > b.lim.MaxPages {
		return cutOff(sectionsLeft("page", b.lim.MaxPages, count.PageCount), "%d pages, more than %d", count.PageCount, b.lim.MaxPages)
	}
	return out.Err()
}

// pdfAbort words a WebAssembly trap (PDFium calls abort when an
// allocation fails past its memory ceiling) as what it means; the trap's
// stack trace says nothing to a reader of files.json.
func pdfAbort(page int, lim Limits, err error) error {
	msg := err.Error()
	if !strings.Contains(msg, "wasm error") {
		return err
	}
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	return unreadable("PDFium aborted on page %d (out of its %d MiB or an internal error): %s", page, lim.MaxPDFMemory>>20, strings.TrimPrefix(msg, "unreadable: "))
}

func pdfPage(inst pdfium.Pdfium, doc references.FPDF_DOCUMENT, index int, out *textWriter) error {
	page, err := inst.FPDF_LoadPage(&requests.FPDF_LoadPage{Document: doc, Index: index})
	if err != nil {
		return unreadable("page %d: %v", index+1, err)
	}
	defer inst.FPDF_ClosePage(&requests.FPDF_ClosePage{Page: page.Page})
	tp, err := inst.FPDFText_LoadPage(&requests.FPDFText_LoadPage{Page: requests.Page{ByReference: &page.Page}})
	if err != nil {
		return unreadable("page %d text: %v", index+1, err)
	}
	defer inst.FPDFText_ClosePage(&requests.FPDFText_ClosePage{TextPage: tp.TextPage})
	n, err := inst.FPDFText_CountChars(&requests.FPDFText_CountChars{TextPage: tp.TextPage})
	if err != nil {
		return unreadable("page %d text: %v", index+1, err)
	}
	for start := 0; start < n.Count; start += pdfChunkChars {
		t, err := inst.FPDFText_GetText(&requests.FPDFText_GetText{TextPage: tp.TextPage, StartIndex: start, Count: min(pdfChunkChars, n.Count-start)})
		if err != nil {
			return unreadable("page %d text: %v", index+1, err)
		}
		if err := out.Text(t.Text); err != nil {
			return err
		}
	}
	return out.Err()
}
