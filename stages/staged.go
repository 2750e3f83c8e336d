package stages

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"

	"github.com/zeebo/blake3"

	"github.com/repoprep/repoprep/internal/secrets"
)

// The loop's steps after normalize, on the staged text: the secret rules,
// the hash dedup groups by, and the write to the tree. A text held in
// memory is worked on there; one streamed to the tree (over readCapBytes,
// or a document's extracted text) is read back from its staged copy.

// ScanSecrets runs the secret rules over a staged text (the first pass of
// Secrets, which judges the findings per path once duplicates are known).
// Only findings are kept on the record, so a tree with no secret holds no
// scan results.
func (e *Env) ScanSecrets(ctx context.Context, rec *Record) error {
	c := rec.loaded()
	if c == nil || !rec.Staged || e.SecretScanner == nil {
		return nil
	}
	var scan *secrets.Scan
	var err error
	if c.inMemory {
		// Synchronous: the scan reads the worker's buffer, which must not
		// outlive this call. A held text is at most a few MiB, so a
		// cancelled run waits for at most one such scan.
		scan, err = e.SecretScanner.ScanBytes(ctx, c.held, rec.Path)
	} else {
		scan, err = scanOpened(ctx, e.SecretScanner.ScanReader, func() (*os.File, error) { return e.openStaged(rec.Path) }, rec.Path)
	}
	if err != nil {
		return fmt.Errorf("secrets %s: %w", rec.Path, err)
	}
	rec.scanned = true
	if len(scan.Findings) > 0 {
		rec.setFindings(scan)
	}
	return nil
}

// Hash takes the BLAKE3-256 of a staged text, for Dedup.
func (e *Env) Hash(ctx context.Context, rec *Record) error {
	c := rec.loaded()
	if c == nil || !rec.Staged {
		return nil
	}
	if c.inMemory {
		rec.sum = blake3.Sum256(c.held)
	} else {
		f, err := e.openStaged(rec.Path)
		if err != nil {
			return fmt.Errorf("hash %s: %w", rec.Path, err)
		}
		defer f.Close()
		h := blake3.New()
		if _, err := io.Copy(h, &sourceReader{ctx: ctx, r: f}); err != nil {
			return fmt.Errorf("hash %s: %w", rec.Path, err)
		}
		h.Sum(rec.sum[:0])
	}
	rec.hashed = true
	return nil
}

// Write puts a staged text held in memory into the snapshot's tree (a
// streamed one was written as it was decoded). It fails like normalize's
// write: a path too long for OUT is the file's problem, anything else
// (a full disk) the run's.
func (e *Env) Write(ctx context.Context, rec *Record) error {
	c := rec.loaded()
	if c == nil || !c.inMemory || !rec.Staged {
		return nil
	}
	err := e.writeNew(rec, c.held)
	if err == nil {
		return nil
	}
	if errors.Is(err, syscall.ENAMETOOLONG) {
		// As if normalize had failed to create it: nothing was measured.
		rec.Encoding, rec.BOM, rec.CRLF, rec.Lines, rec.Tokens, rec.OutSize = "", false, false, 0, 0, 0
		rec.Oversize, rec.scanned, rec.hashed = false, false, false
		rec.setFindings(nil)
		rec.tokensLater = false
	}
	return e.writeFailed(rec, err)
}

// writeNew creates rec's staged copy (never over an existing file) with
// data.
func (e *Env) writeNew(rec *Record, data []byte) error {
	f, err := e.createStaged(rec.Path)
	if err != nil {
		return err
	}
	_, werr := f.Write(data)
	cerr := f.Close()
	if werr != nil || cerr != nil {
		e.removeStaged(rec.Path)
		return fmt.Errorf("write: %w", errors.Join(werr, cerr))
	}
	return nil
}
