package stages

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path"

	"github.com/repoprep/repoprep/internal/textenc"
)

// textIn is what normalize reads: the bytes Process holds, then streamed
// on from the same descriptor past readCapBytes.
type textIn struct {
	c    *content
	src  *sourceReader
	name string // the file's base name: a charset in it is evidence (textenc.Options)
	// prior is the repository's charset, for a text decided again on weak
	// evidence (Memo.Enc.Prior; textenc.Options.Prior)
	prior string
}

// openText prepares normalize's input for rec.
func (e *Env) openText(ctx context.Context, rec *Record) (*textIn, error) {
	c := rec.loaded()
	whole, err := c.readAll()
	if err != nil {
		return nil, err
	}
	var r io.Reader = c.w.reader(c.data)
	if !whole {
		r = c.stream()
	}
	return &textIn{c: c, src: &sourceReader{ctx: ctx, r: r}, name: path.Base(rec.Path), prior: rec.Memo.Enc.Prior}, nil
}

// normalize decodes the input into dst with the loop's worker's decoder,
// which keeps its buffers; a text it holds whole is counted afterwards,
// once, and a streamed one as it is decoded unless count is false, its
// batches by batches unless that is nil.
func (in *textIn) normalize(dst io.Writer, count bool, batches textenc.BatchCounter) (textenc.Result, error) {
	return in.c.w.norm.Normalize(in.src, dst, textenc.Options{Name: in.name, Prior: in.prior, NoTokens: in.c.all || !count, Batches: batches})
}

// changed reports whether the file moved while it was read.
func (in *textIn) changed() bool { return in.c.changed() }

// bytesRead is how many bytes of the source the text was made from.
func (in *textIn) bytesRead() int64 { return in.src.n }

// stagedOut is where normalize writes: the worker's buffer when Process
// holds the whole file (Write then puts it in the tree), or else a new
// file in the tree, written as it is decoded.
type stagedOut struct {
	w    io.Writer
	mem  *bytes.Buffer // in memory; nil for a file
	e    *Env
	rec  *Record
	file *os.File
	bw   *bufio.Writer
	werr *writeErr
}

func (e *Env) stagedOut(rec *Record) (*stagedOut, error) {
	c := rec.loaded()
	if c.all {
		c.w.out.Reset()
		return &stagedOut{w: &c.w.out, mem: &c.w.out}, nil
	}
	f, err := e.createStaged(rec.Path)
	if err != nil {
		return nil, err
	}
	o := &stagedOut{e: e, rec: rec, file: f, werr: &writeErr{w: f}}
	switch {
	case c.w.bw == nil:
		c.w.bw = bufio.NewWriterSize(o.werr, 64<<10)
		o.bw = c.w.bw
	default:
		c.w.bw.Reset(o.werr)
		o.bw = c.w.bw
	}
	o.w = o.bw
	return o, nil
}

// finish flushes and closes a file; it returns a write error (a full
// disk), never a decoding one.
func (o *stagedOut) finish(decErr error) error {
	if o.file == nil {
		return nil
	}
	if decErr == nil {
		o.bw.Flush() // a failure lands in werr
	}
	o.bw.Reset(nil)
	closeErr := o.file.Close()
	if o.werr.err != nil || closeErr != nil && decErr == nil {
		return errors.Join(o.werr.err, closeErr)
	}
	return nil
}

// discard drops what was written for a text that is not staged.
func (o *stagedOut) discard() {
	if o.mem != nil {
		o.mem.Reset()
		return
	}
	o.e.removeStaged(o.rec.Path)
}
