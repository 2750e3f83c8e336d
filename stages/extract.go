package stages

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/repoprep/repoprep/internal/extract"
	"github.com/repoprep/repoprep/internal/textenc"
)

// errStopped unblocks an extractor whose reader stopped reading.
var errStopped = errors.New("normalize stopped reading")

// extractDocument is normalize for a document: its text, extracted under
// e.Extract's limits, is staged under the document's own path (so
// read_file("docs/spec.pdf") answers with the text), and goes through the
// same UTF-8 check, line and token counting as any text; dedup and the
// secret scan then see it like any staged file. A text cut short at a work
// limit is staged as it is (it ends in a marker line) and its entry's
// truncated field says what was left out. A document no extractor reads
// (legacy .doc, .xls, Pages...) stays unstaged, as before; one that is
// refused keeps its category and gets the refusal's reason (encrypted,
// unreadable, over-limit, no-text) with the cause in its error field. A
// refusal by extraction's time guard is also a warning for the run: it
// says the machine, not the document, decided.
func (e *Env) extractDocument(ctx context.Context, rec *Record) error {
	format, ok := extract.FormatOf(rec.Path, rec.Mime)
	if !ok {
		return nil
	}
	if rec.loaded() == nil {
		return fmt.Errorf("normalize %s: not read by the per-file loop", rec.Path)
	}
	in, before, err := e.openDocument(rec)
	if err != nil {
		rec.fail("normalize", "unreadable", err)
		return nil
	}
	out, err := e.createStaged(rec.Path)
	if err != nil {
		return e.writeFailed(rec, err)
	}
	dst := &writeErr{w: out}
	bw := bufio.NewWriterSize(dst, 64<<10)

	// The extractor writes into a pipe that textenc.Normalize reads: the
	// text is never held whole, and a document costs what any text does.
	pr, pw := io.Pipe()
	var meta extract.Meta
	var exErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		meta, exErr = extract.Extract(ctx, format, in, before.Size(), e.Extract, pw)
		pw.CloseWithError(exErr) // nil: the reader sees EOF
	}()
	res, normErr := textenc.Normalize(bufio.NewReaderSize(pr, 64<<10), bw)
	if normErr == nil {
		normErr = bw.Flush()
	}
	pr.CloseWithError(errStopped)
	<-done
	closeErr := out.Close()

	var refusal *extract.Refusal
	switch {
	case dst.err != nil || closeErr != nil && normErr == nil:
		return fmt.Errorf("normalize %s: write: %w", rec.Path, errors.Join(dst.err, closeErr))
	case ctx.Err() != nil:
		e.removeStaged(rec.Path)
		return ctx.Err()
	case errors.As(exErr, &refusal):
		e.removeStaged(rec.Path)
		rec.Reason, rec.Err = refusal.Reason, "extract: "+refusal.Err.Error()
		rec.Memo.Lasting = extract.IsLasting(refusal) // remembered by a refresh, not met again
		if extract.IsTimeGuard(refusal) {
			e.warn("extract %s: refused, %v; a refresh tries it again", rec.Path, refusal.Err)
		}
		return nil
	case exErr != nil && !errors.Is(exErr, errStopped):
		e.removeStaged(rec.Path)
		return fmt.Errorf("extract %s: %w", rec.Path, exErr)
	case errors.Is(normErr, textenc.ErrMojibake):
		e.removeStaged(rec.Path)
		rec.Reason, rec.Err = "mojibake", "extract: the extracted text is garbled"
		return nil
	case normErr != nil:
		e.removeStaged(rec.Path)
		rec.Reason, rec.Err = extract.ReasonUnreadable, "extract: "+normErr.Error()
		return nil
	}
	if in.changed() {
		e.removeStaged(rec.Path)
		rec.fail("normalize", "unreadable", fmt.Errorf("%s changed while it was read", rec.Path))
		return nil
	}
	rec.Encoding = res.Encoding
	rec.Mojibake = res.Mojibake
	rec.Lines, rec.Tokens, rec.OutSize = res.Lines, res.Tokens, res.Bytes
	rec.Staged = true
	rec.Oversize = res.Bytes > e.MaxTextBytes // the text is what a reader pays for
	rec.ExtractedFrom, rec.Extractor, rec.ExtractorVersion = string(meta.Format), meta.Extractor, meta.Version
	rec.Truncated = meta.Truncated
	return nil
}

// document is a document's bytes for an extractor: those Process holds,
// the whole file up to readCapBytes, or its open descriptor past that.
type document struct {
	io.ReaderAt
	c *content
}

// openDocument gives extractDocument random access to rec's file.
func (e *Env) openDocument(rec *Record) (*document, os.FileInfo, error) {
	c := rec.loaded()
	whole, err := c.readAll()
	if err != nil {
		return nil, nil, err
	}
	d := &document{c: c, ReaderAt: c.f}
	if whole {
		d.ReaderAt = bytes.NewReader(c.data)
	}
	return d, c.info, nil
}

func (d *document) changed() bool { return d.c.changed() }
