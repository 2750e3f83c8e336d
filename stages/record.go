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

	// A Record is kept for every file of the tree for the whole run, so
	// its size is memory per file (TestRecordPacks): the fields are
	// ordered so that it packs (its bools share the last word), nothing
	// is held twice (the scan's identity of the file is ident's device
	// and inode, fileID; the OS path is Path's when nothing was escaped),
	// and what only the per-file loop needs is off it (work).

	dir   *dirfd.Dir // the directory holding the file; nil for NewRecord's
	name  string     // OS name in dir (for NewRecord's, the OS path from the root); never written to output
	ident Identity   // the scan's lstat in full, for a refresh to tell an unchanged file

	OutSize int64 // bytes of the staged copy (normalize; redaction changes it)

	// work is what only the per-file loop needs (the file's bytes, the
	// sniffed head, triage's reasons): Process lets go of it when the file
	// is done, but for a text with findings, which keeps its secret scan
	// for the cross-file pass. nil when no step has run, or all are done.
	work *work
	sum  [32]byte // BLAKE3-256 of the staged text, before redaction

	// Memo is what a refresh carries for the file (memo.go); the loop
	// carries it, the stages consult and fill it.
	Memo Memo

	Kind        Kind
	srcIsPath   bool // the OS path from the root is Path (the scan escaped nothing): Src
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
	if r.srcIsPath {
		return r.Path // a Dir's path costs its depth: triage asks for it per file
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

// work is a record's state while the per-file loop has it (Record.work).
type work struct {
	content *content      // the file's bytes while Process works on it
	head    []byte        // the sniffed head (classify); dropped after triage
	why     Decision      // the rule that decided Category and Reason (triage)
	testWhy Decision      // why Test is set (triage)
	scan    *secrets.Scan // the first secret pass over the staged text; nil when it found nothing
}

// state is the record's loop state, made on first use.
func (r *Record) state() *work {
	if r.work == nil {
		r.work = new(work)
	}
	return r.work
}

// loaded is the file's bytes while Process works on it; nil otherwise.
func (r *Record) loaded() *content {
	if r.work == nil {
		return nil
	}
	return r.work.content
}

// sniffed is the head classify sniffed, until triage is done with it.
func (r *Record) sniffed() []byte {
	if r.work == nil {
		return nil
	}
	return r.work.head
}

// findings is the first secret pass's scan of the staged text; nil when
// it found nothing or the cross-file pass has taken it.
func (r *Record) findings() *secrets.Scan {
	if r.work == nil {
		return nil
	}
	return r.work.scan
}

// setFindings keeps scan (nil: nothing found, or taken) on the record.
func (r *Record) setFindings(scan *secrets.Scan) {
	if scan == nil && r.work == nil {
		return
	}
	r.state().scan = scan
}

// done lets go of the loop's state once Process is done with the file:
// all of it, but for a scan with findings, which the cross-file secret
// pass takes.
func (r *Record) done() {
	if r.work == nil {
		return
	}
	if scan := r.work.scan; scan != nil {
		*r.work = work{scan: scan}
		return
	}
	r.work = nil
}

// Skip reports whether later stages should leave the record alone.
func (r *Record) Skip() bool { return r.Err != "" || r.Kind != KindFile }

// StagedText is what the index stage needs of a staged file once its
// record is gone: its entry in the manifest and the size of its staged
// copy. 16 bytes a file, where the record it replaces is 512: the run lets
// every record go as it copies its entry into the manifest, and the
// indexes are built from these (pipeline's buildManifest).
type StagedText struct {
	*snapshot.Entry
	OutSize int64 // the staged copy's bytes (Record.OutSize)
}
