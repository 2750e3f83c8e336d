package stages

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"os"
	"sync/atomic"
	"time"

	"github.com/repoprep/repoprep/internal/lineindex"
	"github.com/repoprep/repoprep/internal/textenc"
)

// readCapBytes bounds what Process holds of one file: a file up to this
// size is read whole into its worker's buffer and every per-file step
// works on that buffer; a larger one keeps its first readCapBytes there
// and the rest is streamed from the same descriptor.
const readCapBytes = 1 << 20

// Worker is one pool worker's buffers for Process, kept from file to file:
// the source bytes (grown to the largest file the worker met, up to
// readCapBytes), the normalized text, the decoder's buffers. The loop's
// memory thus grows with the workers, not with the files. Not safe for
// concurrent use: each goroutine of the pool takes one from a WorkerSet.
type Worker struct {
	in   []byte
	out  bytes.Buffer
	src  bytes.Reader
	norm textenc.Normalizer
	bw   *bufio.Writer // for texts streamed to the tree

	// lines counts the line tokens of linesOf's text (Env.LineTokens),
	// which Process spills once the text is hashed.
	lines   lineindex.LineCounter
	linesOf *Record
}

// WorkerSet hands out a fixed number of Workers to a pool's goroutines.
type WorkerSet chan *Worker

// NewWorkerSet makes n Workers.
func NewWorkerSet(n int) WorkerSet {
	s := make(WorkerSet, n)
	for range n {
		s <- &Worker{}
	}
	return s
}

// Get takes a Worker, waiting for one if all are in use.
func (s WorkerSet) Get() *Worker { return <-s }

// Put gives a Worker back.
func (s WorkerSet) Put(w *Worker) { s <- w }

// reader is w's bytes.Reader over b (no allocation per file).
func (w *Worker) reader(b []byte) *bytes.Reader {
	w.src.Reset(b)
	return &w.src
}

// Steps names the parts of Process in order, as the run report lists them.
var Steps = [...]string{"read", "classify", "triage", "normalize", "secrets", "hash", "write"}

const (
	stepRead = iota
	stepClassify
	stepTriage
	stepNormalize
	stepSecrets
	stepHash
	stepWrite
)

// Clock adds up the time workers spend in each step of Process, so a run
// can report each stage's share of the loop. Safe for concurrent use.
type Clock struct{ spent [len(Steps)]atomic.Int64 }

// Spent is the time all workers spent in step i of Steps.
func (c *Clock) Spent(i int) time.Duration { return time.Duration(c.spent[i].Load()) }

// Process is the pipeline's per-file loop body: it opens a record's file
// once, reads it once into w's buffer, and runs classify → triage →
// normalize → the secret rules → hash → write on those bytes before the
// next file is taken. Each step is a stage function (Classify, Triage,
// Normalize, ScanSecrets, Hash, Write) that finds the bytes on the record;
// none opens the file again. What needs every file (dedup, the cross-file
// secret pass, indexes) runs on the records afterwards. Call it from a pool; it errs only when the whole
// run must stop.
func (e *Env) Process(ctx context.Context, rec *Record, w *Worker, clock *Clock) error {
	defer rec.done() // the loop's state goes with the file (run last: after unload)
	w.linesOf = nil
	t := time.Now()
	lap := func(step int) {
		now := time.Now()
		clock.spent[step].Add(int64(now.Sub(t)))
		t = now
	}
	if e.readsContent(rec) {
		err := e.load(rec, w)
		lap(stepRead)
		if err != nil {
			return err
		}
		defer e.unload(rec)
	}
	steps := [...]Func{stepClassify: e.Classify, stepTriage: e.Triage, stepNormalize: e.Normalize,
		stepSecrets: e.ScanSecrets, stepHash: e.Hash, stepWrite: e.Write}
	for i, step := range steps[stepClassify:] {
		if err := step(ctx, rec); err != nil {
			return err
		}
		lap(stepClassify + i)
	}
	if rec.tokensLater {
		e.keepForCount(rec)
	}
	if err := e.spillLines(rec, w); err != nil {
		return err
	}
	if e.TokensReady != nil && e.later.pending() && e.TokensReady() {
		if err := e.countLater(ctx); err != nil {
			return err
		}
	}
	lap(stepNormalize)
	return nil
}

// Sniff runs classify and triage on one record, reading its head as
// Process does (the same open, the same checks): what `repoprep explain`
// shows of a file, without staging it.
func (e *Env) Sniff(ctx context.Context, rec *Record) error {
	if err := e.readAndClassify(ctx, rec, &Worker{}); err != nil {
		return err
	}
	return e.Triage(ctx, rec)
}

// readAndClassify reads rec's head into w as Process does and classifies
// it; the head stays on the record, in w's buffer.
func (e *Env) readAndClassify(ctx context.Context, rec *Record, w *Worker) error {
	if e.readsContent(rec) {
		if err := e.load(rec, w); err != nil {
			return err
		}
		defer e.unload(rec)
	}
	return e.Classify(ctx, rec)
}

// content is a record's bytes while Process works on it.
type content struct {
	w    *Worker
	f    *os.File    // the open source file, until unload
	info os.FileInfo // f's stat when opened
	data []byte      // the file's bytes from its start: its head, then as much as readAll took
	all  bool        // data is the whole file (readAll)

	// normalize: the staged text. Held in memory (held, when inMemory) for
	// the later steps and written by Write; or, for a file streamed
	// through, written by Normalize and read back by the later steps.
	inMemory bool
	held     []byte
}

// readsContent reports whether classify reads the record's file: every
// file that is not already decided (by the scan, a failure or its path) or
// empty, but for the empty files staged for their name (__init__.py:
// meaningfulEmpty), which normalize stages from what it reads.
func (e *Env) readsContent(rec *Record) bool {
	return !(rec.Skip() || rec.Category != "" || rec.Size == 0 && !e.meaningfulEmpty(rec) || e.decidedByPath(rec))
}

// load opens rec's file and reads its head (what classify sniffs) into
// w's buffer; normalize reads the rest (readAll) if the file is text.
// Trouble with the file is recorded as classify's, as when classify opened
// it.
func (e *Env) load(rec *Record, w *Worker) error {
	f, err := e.openSrc(rec)
	if err != nil {
		return readFailed(rec, "classify", err)
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return readFailed(rec, "classify", err)
	}
	c := &content{w: w, f: f, info: info}
	rec.state().content = c
	if err := c.readTo(min(info.Size(), sniffBytes)); err != nil {
		return readFailed(rec, "classify", err)
	}
	return nil
}

// unload closes the record's file and lets go of the worker's buffers.
func (e *Env) unload(rec *Record) {
	if c := rec.loaded(); c != nil {
		c.f.Close()
		if cap(c.data) > cap(c.w.in) {
			c.w.in = c.data[:0] // keep the grown buffer for the next file
		}
		rec.work.content = nil
	}
}

// readTo reads the file on until data holds n bytes or the file ends. The
// worker's buffer grows (in powers of two, to readCapBytes at most) when a
// file needs more than it has, and is reused from file to file.
func (c *content) readTo(n int64) error {
	if int64(len(c.data)) >= n {
		return nil
	}
	if int64(cap(c.data)) < n {
		buf := c.w.in
		if int64(cap(buf)) < n {
			size := int64(64 << 10)
			for size < n {
				size *= 2
			}
			buf = make([]byte, 0, min(size, readCapBytes))
		}
		c.data = append(buf[:0], c.data...)
	}
	got, err := io.ReadFull(c.f, c.data[len(c.data):n])
	c.data = c.data[:len(c.data)+got]
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		err = nil // shrunk since the stat: changed() tells normalize
	}
	return err
}

// readAll reads as much of the file as the loop holds, all of it up to
// readCapBytes, and reports whether that is the whole file (as it was
// when opened; changed() tells whether it moved since).
func (c *content) readAll() (bool, error) {
	if err := c.readTo(min(c.info.Size(), readCapBytes)); err != nil {
		return false, err
	}
	c.all = c.info.Size() <= readCapBytes
	return c.all, nil
}

// stream is the whole file as a reader: the bytes held, then the rest of
// the descriptor.
func (c *content) stream() io.Reader {
	return io.MultiReader(bytes.NewReader(c.data), c.f)
}

// changed reports whether the file's size or modification time moved
// since it was opened: its bytes may then be a mix of two versions.
func (c *content) changed() bool {
	return changedSince(c.f, c.info)
}

func changedSince(f *os.File, before os.FileInfo) bool {
	after, err := f.Stat()
	return err != nil || after.Size() != before.Size() || !after.ModTime().Equal(before.ModTime())
}
