package stages

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"runtime"
	"slices"
	"sync"

	"github.com/repoprep/repoprep/internal/dirfd"
	"github.com/repoprep/repoprep/internal/extract"
	"github.com/repoprep/repoprep/internal/secrets"
	"github.com/repoprep/repoprep/rules"
)

// Env is what the per-file stages share: the input and output roots, the
// rules and the limits. It is read-only while stages run (but for its
// concurrency-safe directory cache), so workers share one Env without locks.
type Env struct {
	Src          *dirfd.Tree // the input tree, only read
	TreeDir      string      // OUT/tree of the snapshot being built
	Rules        *rules.Set  // classes, junk names, secret rules
	MaxTextBytes int64       // text larger than this is staged but flagged oversize

	// dirs memoizes triage's per-directory answers (vendored, test,
	// generated), filled lazily by the workers: the only Env state that
	// changes while stages run, and safe for concurrent use.
	dirs  sync.Map // OS directory path relative to Src -> *dirFacts
	mimes sync.Map // media type -> the run's one copy of it (mime)

	// out is TreeDir opened for writing (dirfd.Out: every directory made
	// and file created relative to its parent's descriptor, so a file's
	// cost does not grow with its depth), on first use; Close closes it.
	outOnce sync.Once
	out     *dirfd.Out
	outErr  error

	// SecretScanner runs the secret rules inside Process (the first pass
	// of Secrets); nil leaves that pass to Secrets.
	SecretScanner *secrets.Scanner

	// Extract bounds each document's text extraction; zero fields take
	// extract.DefaultLimits.
	Extract extract.Limits

	// warnings are what the stages tell the run beyond files.json (a
	// document stopped by extraction's time guard), for the caller to log
	// (Warnings); workers add to them under warnMu.
	warnMu   sync.Mutex
	warnings []string
	declared misdeclared

	// TokensReady, when set, lets Process go on while it reports that the
	// tokenizer's tables are not built yet (tokens.Ready): a text's count
	// is then left for later (tokens_later.go), and CountLater must run
	// once the loop is over. Nil: every count is taken in Normalize,
	// waiting for the tables if need be.
	TokensReady func() bool
	later       laterQueue

	// LineTokens, when set, has the loop make each staged text's
	// line-token data (lineindex.LineCounter) where it counts the text's
	// tokens, and spill it there for linetokens.index (linetokens.go).
	// Nil: the index is made from the staged copies after the loop.
	LineTokens *LineTokens
}

// warn adds a warning for the run. Safe for concurrent use.
func (e *Env) warn(format string, args ...any) {
	e.warnMu.Lock()
	defer e.warnMu.Unlock()
	e.warnings = append(e.warnings, fmt.Sprintf(format, args...))
}

// Warnings are what the stages found worth telling whoever runs them but
// that files.json cannot say (it records outcomes, not the machine's
// trouble in reaching them), sorted so a run logs them in one order.
// Call it once the stages are done.
func (e *Env) Warnings() []string {
	e.warnMu.Lock()
	defer e.warnMu.Unlock()
	out := slices.Sorted(slices.Values(e.warnings))
	if n := len(e.declared); n > 0 {
		first := slices.Min(slices.Collect(maps.Keys(e.declared)))
		d := e.declared[first]
		out = append(out, fmt.Sprintf("%d files name a charset their bytes contradict, read by detection instead (the first by path: %s names %s, read as %s)",
			n, first, d.declared, d.read))
	}
	return out
}

// misdeclared holds the texts whose declared charset (a meta tag, a
// coding cookie, a charset in the name) their bytes contradict, by path:
// one warning for the run, not one per file (a MUD client's 248 scripts
// all declare iso-8859-1 and are GBK), naming the first by path. A text
// decided again under a repository prior (Redecide) is noted once, as
// its last decoding says.
type misdeclared map[string]struct{ declared, read string }

// noteMisdeclared records one such text.
func (e *Env) noteMisdeclared(path, declared, read string) {
	e.warnMu.Lock()
	defer e.warnMu.Unlock()
	if e.declared == nil {
		e.declared = misdeclared{}
	}
	e.declared[path] = struct{ declared, read string }{declared, read}
}

// forgetMisdeclared drops what noteMisdeclared recorded of path, for a
// text about to be decoded again.
func (e *Env) forgetMisdeclared(path string) {
	e.warnMu.Lock()
	defer e.warnMu.Unlock()
	delete(e.declared, path)
}

// openSrc opens a record's file for reading relative to its directory's
// descriptor (see dirfd.At.OpenFile): no symlink followed, no FIFO that
// replaced it after the scan blocks, its access time kept where the kernel
// allows, and only the same file (device and inode) the scan saw, so a
// file swapped for a link to an ignored .env is not staged under the
// first name.
func (e *Env) openSrc(rec *Record) (*os.File, error) {
	if rec.dir == nil {
		return e.Src.OpenPath(rec.name)
	}
	return rec.dir.OpenFile(rec.name, rec.fileID())
}

// readFailed handles a failed open or read of a source file: trouble with
// the file (permission, vanished, replaced) is recorded on it and the run
// goes on; a failure of the machine (out of descriptors or memory, an I/O
// error) is returned, since recording it per file would publish a
// snapshot that silently lacks those files.
func readFailed(rec *Record, stage string, err error) error {
	if dirfd.IsResource(err) {
		return fmt.Errorf("%s %s: %w", stage, rec.Path, err)
	}
	rec.fail(stage, "unreadable", err)
	return nil
}

// sourceReader counts the bytes read from a source file and stops at the
// next read once ctx is done, so a run cancelled inside a 200 MB one-line
// file ends within one read instead of at the end of the file.
type sourceReader struct {
	ctx context.Context
	r   io.Reader
	n   int64
}

func (s *sourceReader) Read(p []byte) (int, error) {
	if err := s.ctx.Err(); err != nil {
		return 0, err
	}
	n, err := s.r.Read(p)
	s.n += int64(n)
	return n, err
}

// Tree is the tree being written (TreeDir), opened on first use: what a
// refresh places previous copies into and the later steps read the staged
// copies from. Safe for concurrent use.
func (e *Env) Tree() (*dirfd.Out, error) {
	e.outOnce.Do(func() {
		e.out, e.outErr = dirfd.OpenOut(e.TreeDir)
		if e.out != nil {
			// An Env a caller drops without Close (a test's) gives its
			// descriptors back when collected.
			runtime.AddCleanup(e, func(out *dirfd.Out) { out.Close() }, e.out)
		}
	})
	return e.out, e.outErr
}

// Close closes the tree's directory descriptors, if it was opened. Files
// already written stay; the Env must not write after it.
func (e *Env) Close() error {
	e.outOnce.Do(func() { e.outErr = fs.ErrClosed }) // never opened: nor will it be
	if e.out == nil {
		return nil
	}
	return e.out.Close()
}

// createStaged creates rel's staged copy (never over an existing file),
// making its directories first.
func (e *Env) createStaged(rel string) (*os.File, error) {
	out, err := e.Tree()
	if err != nil {
		return nil, err
	}
	return out.Create(rel, 0o644)
}

// openStaged opens rel's staged copy for reading.
func (e *Env) openStaged(rel string) (*os.File, error) {
	out, err := e.Tree()
	if err != nil {
		return nil, err
	}
	return out.Open(rel)
}
