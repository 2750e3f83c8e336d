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
	"github.com/repoprep/repoprep/snapshot"
)

// Kind is what the scan found at a path, from its lstat mode.
type Kind uint8

const (
	KindFile    Kind = iota // a regular file: read by the later stages
	KindSymlink             // recorded with its target, never followed
	KindSpecial             // FIFO, socket or device: recorded, never opened
)

// Record is one file's trip through the pipeline: the files.json entry
// the stages fill in, each its own fields, and what they keep between
// steps. It becomes its entry when the run is over (Entry).
type Record struct {
	// Entry is what files.json will say of the file. Its Path is
	// slash-separated, relative to the input root and escaped as
	// docs/output.md says: the manifest key. Size is the bytes at scan
	// time until normalize replaces it with the bytes it read; Err is the
	// first per-file failure as "stage: cause", and later stages skip the
	// record.
	snapshot.Entry

	// A Record is kept for every file of the tree for the whole run:
	// the fields are ordered so that it packs (its bools share the last
	// word), and nothing is held twice (the scan's identity of the file
	// is ident's device and inode, fileID).

	dir   *dirfd.Dir // the directory holding the file; nil for NewRecord's
	name  string     // OS name in dir (for NewRecord's, the OS path from the root); never written to output
	src   string     // the OS path from the root when the scan had it (Src); "": built from dir
	ident Identity   // the scan's lstat in full, for a refresh to tell an unchanged file

	// classify
	head []byte // the sniffed head; dropped after triage

	// triage
	why     Decision // the rule that decided Category and Reason
	testWhy Decision // why Test is set

	OutSize int64 // bytes of the staged copy (normalize; redaction changes it)

	// The per-file loop (Process): the file's bytes while the loop works on
	// it, then what its steps leave for the cross-file stages.
	content *content
	scan    *secrets.Scan // the first secret pass over the staged text; nil when it found nothing
	sum     [32]byte      // BLAKE3-256 of the staged text, before redaction

	// Memo is what a refresh carries for the file (memo.go); the loop
	// carries it, the stages consult and fill it.
	Memo Memo

	Kind        Kind
	isText      bool // the head sniffs as text (classify)
	scanned     bool // the secret rules ran on the staged text at this path
	hashed      bool // sum is set
	tokensLater bool // normalize left the count for later (tokens_later.go)
}

// fileID is the file's identity at scan time: every later open must find
// the same file.
func (r *Record) fileID() dirfd.ID { return dirfd.ID{Dev: r.ident.Dev, Ino: r.ident.Ino} }

// Func is one stage on one record; it errs only when the whole run must stop.
// Stages are called from worker pools: a Func must touch only its own record
// and state that is safe for concurrent use.
type Func func(ctx context.Context, rec *Record) error

// NewRecord makes a record for a regular file, for tests and tools that
// bypass the scan. src is the OS path relative to the input root.
func NewRecord(path, src string, size int64) *Record {
	return &Record{Entry: snapshot.Entry{Path: path, Size: size}, name: filepath.ToSlash(src), Kind: KindFile}
}

// Src is the OS path relative to the input root the record is read from.
func (r *Record) Src() string {
	if r.src != "" {
		return r.src // a Dir's path costs its depth: triage asks for it per file
	}
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
