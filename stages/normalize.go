package stages

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"

	"github.com/zeebo/blake3"

	"github.com/repoprep/repoprep/internal/textenc"
)

// Normalize decodes a source or text file to clean UTF-8 with LF endings and
// writes it to the snapshot's tree at the same relative path; a document's
// extracted text is staged the same way (see extractDocument). A file it
// cannot decode without garbling is refused (reason undecodable,
// invalid-utf8, mojibake or binary) and nothing is staged for it. A failed
// write (a full disk) is returned: a snapshot missing files must not be
// published.
func (e *Env) Normalize(ctx context.Context, rec *Record) error {
	if !rec.Skip() && rec.Category == "document" {
		return e.extractDocument(ctx, rec)
	}
	if rec.Skip() || (rec.Category != "source" && rec.Category != "text") {
		return nil
	}
	if rec.loaded() == nil {
		return fmt.Errorf("normalize %s: not read by the per-file loop", rec.Path)
	}
	in, err := e.openText(ctx, rec)
	if err != nil {
		return readFailed(rec, "normalize", err)
	}
	// The tree is written through e.Tree (dirfd.Out): each directory made
	// and file created relative to its parent's descriptor, not through an
	// os.Root, which re-walks every component with openat on each call (a
	// quarter of this stage on GOROOT/src), nor by whole paths, which make
	// the kernel walk every ancestor (quadratic in a chain's depth). The
	// names come from readdir and are never "..", unsafe names are never
	// staged, and O_EXCL refuses anything already at the final name.
	name := e.treePath(rec)
	if len(name) >= pathMax {
		// Said at once, before a directory is made for it. What fits is
		// what fits by the whole path from OUT, however it is opened.
		return e.writeFailed(rec, &fs.PathError{Op: "mkdir", Path: name, Err: errNameTooLong})
	}
	out, err := e.stagedOut(rec)
	if err != nil {
		return e.writeFailed(rec, err)
	}
	// A streamed text a refresh expects is counted after, only if it is
	// not what it was (settleTokens); one streamed while the tokenizer's
	// tables are built, from its staged copy once the loop is over
	// (tokens_later.go).
	streamLater := !in.c.all && rec.Memo.Expect == nil && e.TokensReady != nil && !e.TokensReady()
	count := rec.Memo.Expect == nil && !streamLater
	var batches textenc.BatchCounter
	if count && out.mem == nil && e.LineTokens != nil {
		// A streamed text's lines are counted in its token batches'
		// scans.
		e.countLines(rec, in.c.w)
		batches = &in.c.w.lines
	}
	res, decErr := in.normalize(out.w, count, batches)
	rec.Memo.Enc = encodingMemo(res, decErr, in.prior, rec.Memo.Enc)
	writeErr := out.finish(decErr)
	switch {
	case writeErr != nil:
		return fmt.Errorf("normalize %s: write: %w", rec.Path, writeErr)
	case decErr != nil:
		out.discard()
		if err := ctx.Err(); err != nil {
			return err
		}
		switch {
		case errors.Is(decErr, textenc.ErrBinary):
			rec.Category, rec.Reason = "junk", "binary"
			rec.ExtMismatch = true // the name or the sniffed head promised text
		case errors.Is(decErr, textenc.ErrMojibake):
			rec.Reason = "mojibake"
		case errors.Is(decErr, textenc.ErrUndecodable):
			rec.Reason = "undecodable"
		case errors.Is(decErr, textenc.ErrInvalidUTF8):
			rec.Reason = "invalid-utf8"
		default:
			if err := readFailed(rec, "normalize", decErr); err != nil {
				return err
			}
		}
		rec.Language = keepLanguage(rec)
		return nil
	}
	if in.changed() {
		out.discard()
		rec.fail("normalize", "unreadable", fmt.Errorf("%s changed while it was read", rec.Path))
		return nil
	}
	if c := rec.loaded(); out.mem != nil {
		// Held in memory for the loop's later steps, and counted once,
		// whole, here (a streamed text is counted in batches as it is
		// decoded).
		c.inMemory, c.held = true, out.mem.Bytes()
		switch x := rec.Memo.Expect; {
		case x != nil && x.matches(blake3.Sum256(c.held)):
			res.Tokens = x.Tokens // a refresh's unchanged text: counted last time
		case e.TokensReady != nil && !e.TokensReady():
			rec.tokensLater = true // Process counts it once the tables are built
		default:
			res.Tokens = e.countText(rec, c.w, c.held)
		}
	} else if streamLater {
		rec.tokensLater = true
	} else if !count {
		n, err := settleTokens(ctx, e, rec)
		if err != nil {
			return fmt.Errorf("normalize %s: %w", rec.Path, err)
		}
		res.Tokens = n
	}
	rec.Encoding, rec.BOM, rec.CRLF = res.Encoding, res.BOM, res.CRLF
	rec.Mojibake = res.Mojibake
	rec.Replaced = res.Replaced
	if res.DeclaredIgnored && res.Encoding != "utf-8" {
		// Valid UTF-8 under an old declaration (a page converted without
		// its meta tag, prose that quotes one) is common and harmless:
		// only a legacy reading against the file's word is worth a line.
		e.noteMisdeclared(rec.Path, res.Declared, res.Encoding)
	}
	rec.Lines, rec.Tokens, rec.OutSize = res.Lines, res.Tokens, res.Bytes
	rec.Memo.TextTokens, rec.Memo.Normalized = res.Tokens, true
	rec.Staged = true
	// The facts are those of the bytes staged: a file that grew or shrank
	// between the scan and this open is recorded with the size read.
	rec.Size = in.bytesRead()
	rec.Oversize = rec.Size > e.MaxTextBytes
	return ctx.Err()
}

// writeFailed handles a failed write to the tree. A path that is legal in
// SRC but too long once OUT's path is put before it is this file's problem:
// it is recorded and the run goes on. Anything else (a full disk, I/O
// errors) would leave the snapshot incomplete, so the run stops.
func (e *Env) writeFailed(rec *Record, err error) error {
	if isNameTooLong(err) {
		e.removeStaged(rec.Path)
		rec.fail("normalize", "path-too-long", err)
		return nil
	}
	return fmt.Errorf("normalize %s: %w", rec.Path, err)
}

// removeStaged removes a staged copy, if any. The directories it may leave
// empty are removed by PruneEmptyDirs once no worker writes any more:
// removing them here would race with a worker that has just made the same
// directory for its own file.
func (e *Env) removeStaged(rel string) {
	if out, err := e.Tree(); err == nil {
		out.Remove(rel)
	}
}

// PruneEmptyDirs removes the directories of the tree that hold no staged
// file (left by refused, duplicate or excluded files), deepest first, so
// tree/ holds exactly what files.json calls staged. Call it after the
// last stage, never while workers write.
func (e *Env) PruneEmptyDirs() error {
	out, err := e.Tree()
	if err != nil {
		return err
	}
	return out.PruneEmpty()
}

// keepLanguage drops the language of a file found to be binary.
func keepLanguage(rec *Record) string {
	if rec.Category == "junk" {
		return ""
	}
	return rec.Language
}

// writeErr remembers the first write error, so a full disk is told apart
// from a file that failed to decode.
type writeErr struct {
	w   io.Writer
	err error
}

func (w *writeErr) Write(p []byte) (int, error) {
	if w.err != nil {
		return 0, w.err
	}
	n, err := w.w.Write(p)
	if err != nil {
		w.err = err
	}
	return n, err
}

// settleTokens is the token count of a streamed staged text a refresh
// expected: last time's when it hashes as it did, else counted from the
// staged copy in the batches normalize counts a stream in
// (textenc.StreamTokens).
func settleTokens(ctx context.Context, e *Env, rec *Record) (int, error) {
	x := rec.Memo.Expect
	f, err := e.openStaged(rec.Path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	h := blake3.New()
	if _, err := io.Copy(h, &sourceReader{ctx: ctx, r: f}); err != nil {
		return 0, err
	}
	if x.matches([32]byte(h.Sum(nil))) {
		return x.Tokens, nil
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return 0, err
	}
	return textenc.StreamTokens(&sourceReader{ctx: ctx, r: f})
}
