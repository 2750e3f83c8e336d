package stages

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/repoprep/repoprep/internal/lineindex"
	"github.com/repoprep/repoprep/internal/textenc"
	"github.com/repoprep/repoprep/internal/tokens"
)

// Counting tokens needs the tokenizer's tables, which take a fraction of a
// second of one core to build, and the per-file loop would wait for them
// with the other cores idle. With Env.TokensReady set it does not: while
// the tables are built, Normalize leaves a text's count for later, and the
// text is counted from its staged copy as soon as the tables are ready, by
// whichever worker finishes a file first; CountLater counts what is left
// once the loop is over. Nothing reads a record's count, or changes its
// staged copy, before then; an in-memory text is counted whole, and a
// streamed one in the very batches the decoder would have counted
// (textenc.StreamTokens: a text with no cut for a MiB gets a count that
// depends on where its batches end), so the counts are the ones Normalize
// would have taken. Reading the copy back costs less than
// holding the texts: a copy of each would have grown the heap by the
// 20-30 MB the workers decode meanwhile.

// laterQueue holds the records whose count is left for later. Safe for
// concurrent use.
type laterQueue struct {
	mu   sync.Mutex
	recs []laterRec
}

// laterRec is a record left for later; whole says its text was held in
// memory, and so is counted whole, as Normalize counts such a text (a
// streamed one is counted in batches, as the decoder counts it).
type laterRec struct {
	rec   *Record
	whole bool
}

// keepForCount counts rec's text at the end of Process if the tables are
// ready by then and the text is still in the worker's buffer, or else
// leaves it to be counted from its staged copy.
func (e *Env) keepForCount(rec *Record) {
	if c := rec.loaded(); c.inMemory && e.TokensReady() {
		setTokens(rec, e.countText(rec, c.w, c.held))
		return
	}
	q := &e.later
	q.mu.Lock()
	q.recs = append(q.recs, laterRec{rec, rec.loaded().inMemory})
	q.mu.Unlock()
}

// setTokens gives rec the count Normalize left for later.
func setTokens(rec *Record, n int) {
	rec.Tokens, rec.Memo.TextTokens, rec.tokensLater = n, n, false
}

// pending reports whether records wait to be counted.
func (q *laterQueue) pending() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.recs) > 0
}

// take returns the next record to count, if any.
func (q *laterQueue) take() (laterRec, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.recs) == 0 {
		return laterRec{}, false
	}
	last := len(q.recs) - 1
	r := q.recs[last]
	q.recs = q.recs[:last]
	return r, true
}

// countLater counts the records waiting until none is left; it stops at
// the first error (a staged copy that cannot be read) or when ctx is done.
// One buffer serves every copy it reads, and one LineCounter every
// text's line tokens (Env.LineTokens), made from the same read.
func (e *Env) countLater(ctx context.Context) error {
	var buf []byte
	var lc *lineindex.LineCounter
	if e.LineTokens != nil {
		lc = new(lineindex.LineCounter)
	}
	for ctx.Err() == nil {
		r, ok := e.later.take()
		if !ok {
			return nil
		}
		n, err := e.countStaged(ctx, r, &buf, lc)
		if err != nil {
			return fmt.Errorf("normalize %s: %w", r.rec.Path, err)
		}
		setTokens(r.rec, n)
		if lc != nil {
			// Staged and hashed: the loop queued it after its last step.
			data, lines, size := lc.Finish()
			if err := e.LineTokens.add(r.rec, r.rec.sum, data, lines, size); err != nil {
				return fmt.Errorf("normalize %s: line tokens: %w", r.rec.Path, err)
			}
		}
	}
	return ctx.Err()
}

// countStaged counts r's staged copy, read into *buf, and its lines into
// lc unless lc is nil.
func (e *Env) countStaged(ctx context.Context, r laterRec, buf *[]byte, lc *lineindex.LineCounter) (int, error) {
	f, err := e.openStaged(r.rec.Path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	var src io.Reader = &sourceReader{ctx: ctx, r: f}
	if lc != nil {
		lc.Reset()
	}
	if !r.whole {
		if lc != nil {
			return textenc.StreamBatches(src, lc) // in the decoder's own batches, lines in their scans
		}
		return textenc.StreamTokens(src) // in the decoder's own batches
	}
	text := bytes.NewBuffer((*buf)[:0])
	if _, err := text.ReadFrom(src); err != nil {
		return 0, err
	}
	*buf = text.Bytes()
	if lc != nil {
		return lc.CountText(*buf), nil // the text's count and its lines' in one scan
	}
	return tokens.CountBytes(*buf), nil
}

// CountLater counts, on workers goroutines, the texts the loop left for
// later, waiting for the tables if need be. Call it once the loop is over.
func (e *Env) CountLater(ctx context.Context, workers int) error {
	var g errgroup.Group
	for range max(workers, 1) {
		g.Go(func() error { return e.countLater(ctx) })
	}
	return g.Wait()
}
