package pipeline

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/repoprep/repoprep/internal/dirfd"
	"github.com/repoprep/repoprep/internal/lineindex"
	"github.com/repoprep/repoprep/internal/trigram"
	"github.com/repoprep/repoprep/refresh"
	"github.com/repoprep/repoprep/snapshot"
	"github.com/repoprep/repoprep/stages"
)

// tokenWindowFiles is how far counting may run ahead of writing, in
// files per worker: the counts of at most that many files are held at
// once, whatever the tree's size.
const tokenWindowFiles = 16

// counters keeps LineCounters (and their line buffers) between files.
var counters = sync.Pool{New: func() any { return new(lineindex.LineCounter) }}

// copyBufs are the read buffers the counting workers stream files through.
var copyBufs = sync.Pool{New: func() any { b := make([]byte, 64<<10); return &b }}

// countingFile, when set, hears of each staged text whose line tokens
// this run counted, in the per-file loop or from its staged copy (from
// several goroutines): tests tell counted from carried. countingCopy
// hears of those counted from their staged copies only.
var countingFile, countingCopy func(path string)

// noSpill, when set, has Run leave every text's line tokens to be
// counted from its staged copy, as before the loop made them: tests
// compare the two.
var noSpill bool

// counted is one file's token index data, once counted: a slot of the
// window, used by one file after another.
type counted struct {
	data        []byte
	lines, size int64
	done        chan struct{} // one value each time the fields are set
	buf         []byte        // what data is read or copied into, kept for the slot's next file
}

// maxSlotBufferBytes is the largest buffer a window slot keeps for its
// next file (a Go file's data is a few hundred bytes): a larger file's
// data is let go once written, so the window holds at most this per slot.
const maxSlotBufferBytes = 64 << 10

// writeLineTokens writes linetokens.index: every staged text's line
// lengths and token counts (lineindex.LineCounter), in path order, bound
// to the staged paths and hashes by their digest, so read_file applies
// its budget by lookup. staged is sorted by path. A text the per-file
// loop counted is copied from the data it spilled (spill) when its staged
// copy is still the text counted; a refresh takes the counts of the texts
// it did not change from the previous index, when the refresh state
// vouches for it (refresh.Prior.TokenCounts; prev is nil otherwise). The
// others (a document's text, a redacted copy, a text the refresh re-read,
// every text when spill is nil) are counted from their staged copies by
// at most workers goroutines. Files are written in
// order as they are done, the counting at most a window of files ahead.
func writeLineTokens(ctx context.Context, out *snapshot.Pending, staged []stages.StagedText, workers int, prev *refresh.Prior, spill *stages.LineTokens) error {
	workers = max(workers, 1)
	treeDir := out.Path(snapshot.TreeDir)
	d := trigram.NewDigest()
	for _, rec := range staged {
		sum, err := snapshot.DecodeHash(rec.Hash)
		if err != nil {
			return fmt.Errorf("token index %s: %w", rec.Path, err)
		}
		d.Add(rec.Path, sum)
	}
	// Nothing here is kept per file beyond the window: file i's counts
	// go in results[i%len(results)], which file i-len(results) has left
	// once the writer gave its window slot back.
	window := make(chan struct{}, tokenWindowFiles*workers) // a slot per file counted but not yet written
	results := make([]counted, cap(window))
	for i := range results {
		results[i].done = make(chan struct{}, 1)
	}
	known := prev.TokenCounts()
	defer known.Close()
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		// The feeder: one worker per file, at most workers at a time, each
		// taking a window slot that the writer gives back.
		fg, fctx := errgroup.WithContext(gctx)
		fg.SetLimit(workers)
		for i, rec := range staged {
			select {
			case window <- struct{}{}:
			case <-fctx.Done():
				return fg.Wait()
			}
			r := &results[i%len(results)]
			sum, _ := snapshot.DecodeHash(rec.Hash) // decoded above without error
			data, ok, err := spill.Read(rec, sum, &r.buf)
			if err != nil {
				fg.Wait()
				return fmt.Errorf("token index %s: %w", rec.Path, err)
			}
			if ok {
				// Counted by the loop from the text staged as it is now.
				if countingFile != nil {
					countingFile(rec.Path)
				}
				r.data, r.lines, r.size = data, int64(rec.Lines), rec.OutSize
				r.done <- struct{}{}
				continue
			}
			if data, ok := known.Counts(rec); ok {
				// The bytes the state's MAC vouches for, of this hash, size
				// and line count: what counting the unchanged text gives.
				r.data, r.lines, r.size = data, int64(rec.Lines), rec.OutSize
				r.done <- struct{}{}
				continue
			}
			fg.Go(func() error {
				if countingFile != nil {
					countingFile(rec.Path)
				}
				if countingCopy != nil {
					countingCopy(rec.Path)
				}
				lc := counters.Get().(*lineindex.LineCounter)
				defer counters.Put(lc)
				lc.Reset()
				if err := countFile(fctx, filepath.Join(treeDir, filepath.FromSlash(rec.Path)), lc); err != nil {
					return fmt.Errorf("token index %s: %w", rec.Path, err)
				}
				data, lines, size := lc.Finish()
				r.buf = append(r.buf[:0], data...)
				r.data, r.lines, r.size = r.buf, lines, size
				r.done <- struct{}{}
				return nil
			})
		}
		return fg.Wait()
	})
	g.Go(func() error {
		return out.WriteFile(snapshot.LineTokens, func(w *bufio.Writer) error {
			tw := lineindex.NewTokenWriter(w, d.Sum())
			for i, rec := range staged {
				r := &results[i%len(results)]
				select {
				case <-r.done:
				case <-gctx.Done():
					return gctx.Err()
				}
				sum, _ := snapshot.DecodeHash(rec.Hash) // decoded above without error
				if err := tw.Add(rec.Path, sum, r.size, r.lines, r.data); err != nil {
					return err
				}
				r.data = nil
				if cap(r.buf) > maxSlotBufferBytes {
					r.buf = nil
				}
				<-window
			}
			return tw.Close()
		})
	})
	if err := g.Wait(); err != nil {
		return err
	}
	return ctx.Err()
}

// countFile streams one staged file into lc, checking ctx between reads.
// Opened by its plain path, as writeIndexes does: the tree is this run's
// own directory.
func countFile(ctx context.Context, name string, lc *lineindex.LineCounter) error {
	f, err := dirfd.OpenPlain(name)
	if err != nil {
		return err
	}
	defer f.Close()
	bp := copyBufs.Get().(*[]byte)
	defer copyBufs.Put(bp)
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		n, err := f.Read(*bp)
		lc.Write((*bp)[:n])
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}
