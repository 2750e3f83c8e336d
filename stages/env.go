package stages

import (
	"context"
	"fmt"
	"io"
	"os"
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
	dirs sync.Map // OS directory path relative to Src -> *dirFacts

	// made remembers the directories of the tree already created, so a
	// staged file's directory costs one map lookup instead of a stat.
	made sync.Map // OS path -> struct{}

	// SecretScanner runs the secret rules inside Process (the first pass
	// of Secrets); nil leaves that pass to Secrets.
	SecretScanner *secrets.Scanner

	// Extract bounds each document's text extraction; zero fields take
	// extract.DefaultLimits.
	Extract extract.Limits

	// TokensReady, when set, lets Process go on while it reports that the
	// tokenizer's tables are not built yet (tokens.Ready): a text's count
	// is then left for later (tokens_later.go), and CountLater must run
	// once the loop is over. Nil: every count is taken in Normalize,
	// waiting for the tables if need be.
	TokensReady func() bool
	later       laterQueue
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
	return rec.dir.OpenFile(rec.name, rec.id)
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

// mkdirAll makes dir (and its parents) in the tree being written, once.
// Safe for concurrent use: MkdirAll tolerates a directory another worker
// made meanwhile.
func (e *Env) mkdirAll(dir string) error {
	if _, ok := e.made.Load(dir); ok {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	e.made.Store(dir, struct{}{})
	return nil
}
