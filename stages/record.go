// Package stages holds the pipeline's per-file stages. Each input file is one
// *Record that flows scan → classify → triage → normalize → dedup → secrets
// and becomes one files.json entry; each stage fills in its own fields.
package stages

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/repoprep/repoprep/internal/dirfd"
	"github.com/repoprep/repoprep/internal/secrets"
)

// Kind is what the scan found at a path, from its lstat mode.
type Kind uint8

const (
	KindFile    Kind = iota // a regular file: read by the later stages
	KindSymlink             // recorded with its target, never followed
	KindSpecial             // FIFO, socket or device: recorded, never opened
)

// Record is one file's trip through the pipeline.
type Record struct {
	Path       string     // slash-separated, relative to the input root, escaped as docs/output.md says; the manifest key
	dir        *dirfd.Dir // the directory holding the file; nil for NewRecord's
	name       string     // OS name in dir (for NewRecord's, the OS path from the root); never written to output
	Kind       Kind
	Size       int64    // bytes at scan time; normalize replaces it with the bytes it read
	LinkTarget string   // for symlinks, as written (escaped like Path)
	id         dirfd.ID // identity at scan time; every later open must find the same file
	ident      Identity // the scan's lstat in full, for a refresh to tell an unchanged file (reuse.go)

	// classify
	Mime        string
	ExtMismatch bool
	isText      bool   // the head sniffs as text
	head        []byte // the sniffed head; dropped after triage

	// triage
	Category string
	Reason   string
	Language string
	Test     bool
	why      Decision // the rule that decided Category and Reason
	testWhy  Decision // why Test is set

	// normalize
	Encoding string
	BOM      bool
	CRLF     bool
	Lines    int
	Tokens   int
	Staged   bool
	Oversize bool
	OutSize  int64 // bytes of the staged copy

	// normalize, for documents: what the staged text was extracted from
	ExtractedFrom    string // the document's format ("pdf", "docx", ...)
	Extractor        string // the library or our own reader
	ExtractorVersion string

	// dedup and secrets
	DuplicateOf string
	Hash        string
	Secrets     int

	// Err is the first per-file failure as "stage: cause"; later stages skip the record.
	Err string

	// The one-read loop (Process): the file's bytes while the loop works on
	// it, then what its per-file steps leave for the cross-file stages.
	content *content
	scan    *secrets.Scan // the first secret pass over the staged text; nil when it found nothing
	scanned bool          // scan is set by Process (else Secrets scans the staged copy)
	sum     [32]byte      // BLAKE3-256 of the staged text, when hashed
	// finalHash is a replayed text's hash as staged (its redacted copy's):
	// sum is then its text's digest before redaction, for dedup (Prior).
	finalHash string
	hashed    bool
	// What a refresh knows of a text, for this run and the next (reuse.go):
	// none of the values a previous run's second pass looked for occurs in
	// it (set by Reuse); neither secret pass found anything in it (set by
	// Secrets).
	valuesClean  bool
	contentClean bool
	// A refresh's file read again though unchanged (its text held
	// findings): what its normalized text was last time (Expect). The
	// token count of that text, before redaction, is kept (normTokens) for
	// the next refresh.
	expect     *Expectation
	normTokens int
	normalized bool // normTokens is set
	// Normalize left the count of the text for later (Env.TokensReady):
	// Tokens and normTokens are set by countLater.
	tokensLater bool
	nameClean   bool // the name rules are known to find nothing in this path (PathClean)
}

// Func is one stage on one record; it errs only when the whole run must stop.
// Stages are called from worker pools: a Func must touch only its own record
// and state that is safe for concurrent use.
type Func func(ctx context.Context, rec *Record) error

// NewRecord makes a record for a regular file, for tests and tools that
// bypass the scan. src is the OS path relative to the input root.
func NewRecord(path, src string, size int64) *Record {
	return &Record{Path: path, name: filepath.ToSlash(src), Kind: KindFile, Size: size}
}

// Src is the OS path relative to the input root the record is read from.
func (r *Record) Src() string {
	if r.dir == nil {
		return r.name
	}
	return joinSlash(r.dir.Path(), r.name)
}

// fail records a per-file failure; the file stays in files.json as junk with
// the reason, and later stages skip it.
func (r *Record) fail(stage, reason string, err error) {
	if r.Err == "" {
		r.Err = fmt.Sprintf("%s: %s", stage, cause(err))
	}
	r.Category, r.Reason, r.Staged = "junk", reason, false
}

// cause is err's message without an absolute path: files.json is the same
// on every machine, and a failed write to OUT/tree would otherwise name the
// random temporary directory. The entry's own path says which file it is.
func cause(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) && filepath.IsAbs(pe.Path) {
		return pe.Op + ": " + pe.Err.Error()
	}
	return err.Error()
}

// Skip reports whether later stages should leave the record alone.
func (r *Record) Skip() bool { return r.Err != "" || r.Kind != KindFile }
