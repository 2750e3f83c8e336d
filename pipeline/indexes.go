package pipeline

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/repoprep/repoprep/internal/dirfd"
	"github.com/repoprep/repoprep/internal/lineindex"
	"github.com/repoprep/repoprep/internal/trigram"
	"github.com/repoprep/repoprep/refresh"
	"github.com/repoprep/repoprep/snapshot"
	"github.com/repoprep/repoprep/stages"
)

// writeIndexes writes the server's indexes of the staged tree into tmp: the
// trigram index that lets search open only the files that can match, the
// line marks that let a ranged read of an oversize file seek, and the line
// token counts that let read_file apply its budget without counting
// (writeLineTokens, which takes the counts the per-file loop spilled).
// All are of the staged copies, after redaction, in path order.
// Each records what it indexes: search.index and linetokens.index the
// digest of every staged path and hash, lines.json and linetokens.index
// each file's hash, so a reader holding files.json refuses them when they
// are of other texts.
// A refresh whose staged files are the previous snapshot's, byte for byte,
// copies its indexes (refresh.Prior.CopyIndexes); otherwise it takes each unchanged
// file's trigrams and line marks from them and reads only the others
// (refresh.Prior.UpdateIndex, refresh.Prior.LineMarks). Either way the indexes are those a
// build from scratch writes: a previous index that is not bound to the
// previous files.json is not used at all.
// staged is buildManifest's list, sorted by path.
func writeIndexes(ctx context.Context, out *snapshot.Pending, tree *os.Root, staged []stages.StagedText, workers int, prev *refresh.Prior, spill *stages.LineTokens) error {
	// The line token counts are made beside the other indexes, on their
	// own workers: they cost about as much CPU as the trigram index and
	// need nothing from it. A refresh takes an unchanged text's counts
	// from the previous index when the refresh state's MAC covers it.
	counting := make(chan error, 1)
	tctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() { counting <- writeLineTokens(tctx, out, staged, workers, prev, spill) }()
	err := writeSearchIndexes(ctx, out, tree, staged, workers, prev)
	if err != nil {
		cancel()
		<-counting
		return err
	}
	return <-counting
}

// stagedCount is the number and source bytes of the staged records among
// recs: the index stage's row in report.json.
func stagedCount(recs []*stages.Record) (files int, bytes int64) {
	for _, rec := range recs {
		if rec.Staged {
			files++
			bytes += rec.Size
		}
	}
	return files, bytes
}

// indexBuild is writeIndexes running beside the writing of the other
// outputs (run.build): wait joins it.
type indexBuild struct {
	done   chan error
	cancel context.CancelFunc
	took   time.Duration // its wall time, once done
	err    error
	waited bool
}

// indexesStarting, when set, is called as the index build starts, on its
// goroutine; an error fails the build: tests hold the build back to see
// what is written beside it.
var indexesStarting func(ctx context.Context, out *snapshot.Pending) error

// startIndexes starts writeIndexes on its own goroutine, of the staged
// texts it is handed on ready (buildManifest's, once the records are
// gone), then removes the line-token spill it copies from; a failure is
// handed to failed as well. Its wall time counts from the hand-over.
func (r *run) startIndexes(ctx context.Context, tree *os.Root, ready <-chan []stages.StagedText, spill *stages.LineTokens, failed context.CancelCauseFunc) *indexBuild {
	ctx, cancel := context.WithCancel(ctx)
	b := &indexBuild{done: make(chan error, 1), cancel: cancel}
	go func() {
		var staged []stages.StagedText
		select {
		case staged = <-ready:
		case <-ctx.Done():
		}
		begin := time.Now()
		err := ctx.Err()
		if err == nil && indexesStarting != nil {
			err = indexesStarting(ctx, r.out)
		}
		if err == nil {
			err = writeIndexes(ctx, r.out, tree, staged, r.opts.Workers, r.prior, spill)
		}
		if cerr := spill.Close(); err == nil {
			err = cerr
		}
		b.took = time.Since(begin)
		if err != nil {
			failed(err)
		}
		b.done <- err
	}()
	return b
}

// wait returns once the build is over, with its error; later calls return
// the same.
func (b *indexBuild) wait() error {
	if !b.waited {
		b.err, b.waited = <-b.done, true
	}
	return b.err
}

// stop cancels the build if it is still running and waits for it: a run
// that fails elsewhere leaves nothing running.
func (b *indexBuild) stop() {
	b.cancel()
	b.wait()
}

// writeSearchIndexes writes search.index and lines.json of staged (sorted
// by path): see writeIndexes.
func writeSearchIndexes(ctx context.Context, out *snapshot.Pending, tree *os.Root, staged []stages.StagedText, workers int, prev *refresh.Prior) error {
	if prev != nil {
		if ok, err := prev.CopyIndexes(staged, out); ok || err != nil {
			return err
		}
	}
	// Opened by plain paths, not through tree (an os.Root re-walks every
	// component with openat on each open): tmp is this run's own
	// directory, made 0700, and the names come from readdir, as for
	// normalize's writes.
	treeDir := out.Path(snapshot.TreeDir)
	open := func(path string) (io.ReadCloser, error) {
		return dirfd.OpenPlain(filepath.Join(treeDir, filepath.FromSlash(path)))
	}
	files := make([]trigram.File, len(staged))
	for i, rec := range staged {
		// The index records the digest of every path and hash (the one
		// files.json records), which binds it to these texts.
		sum, err := snapshot.DecodeHash(rec.Hash)
		if err != nil {
			return fmt.Errorf("index %s: %w", rec.Path, err)
		}
		files[i] = trigram.File{Path: rec.Path, Hash: sum, Size: rec.OutSize}
		if prev != nil {
			// A refresh's update opens each File itself. A build shares
			// one opener: a closure a file would be held, 32 bytes each,
			// until the index is written.
			files[i].Open = func() (io.ReadCloser, error) { return open(rec.Path) }
		}
	}
	dst := out.Path(snapshot.SearchIndex)
	updated := false
	if prev != nil {
		var err error
		if updated, err = prev.UpdateIndex(ctx, staged, files, dst); err != nil {
			return err
		}
	}
	if !updated {
		if err := trigram.BuildOpen(ctx, files, open, dst, out.Dir(), workers); err != nil {
			return err
		}
	}
	var known map[string]lineindex.File
	if prev != nil {
		known = prev.LineMarks(staged)
	}
	var ix lineindex.Index
	for _, rec := range staged {
		if !rec.Oversize {
			continue
		}
		if lf, ok := known[rec.Path]; ok {
			ix.Files = append(ix.Files, lf)
			continue
		}
		f, err := tree.Open(filepath.FromSlash(rec.Path))
		if err != nil {
			return err
		}
		lf, err := lineindex.Scan(ctx, f)
		f.Close()
		if err != nil {
			return err
		}
		lf.Path, lf.Hash = rec.Path, rec.Hash
		ix.Files = append(ix.Files, lf)
	}
	return out.WriteFile(snapshot.LinesJSON, func(w *bufio.Writer) error { return ix.Encode(w) })
}
