package stages

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/repoprep/repoprep/internal/dedup"
)

// Dedup is a barrier after normalize: staged copies with identical
// normalized content keep one canonical copy (shallowest path, then byte
// order); the others get DuplicateOf, leave the tree and are no longer
// staged. Files that differed only in encoding or line endings are
// duplicates here, since it compares what normalize wrote. The hashes are
// those Process took while it held each text; in the stage-by-stage order
// the staged copies are read and hashed here.
func (e *Env) Dedup(ctx context.Context, recs []*Record, workers int) error {
	var files []dedup.File
	var sums [][32]byte // the hashes Process took, if it hashed every staged text
	hashed := true
	for _, rec := range recs {
		if rec.Staged {
			files = append(files, dedup.File{Path: rec.Path, Name: e.treePath(rec), Size: rec.OutSize})
			sums = append(sums, rec.sum)
			hashed = hashed && rec.hashed
		}
	}
	var res dedup.Result
	var err error
	if hashed {
		res, err = dedup.Group(files, sums)
	} else {
		res, err = dedup.Find(ctx, files, workers)
	}
	if err != nil {
		return fmt.Errorf("dedup: %w", err)
	}
	for _, rec := range recs {
		if !rec.Staged {
			continue
		}
		rec.Hash = cmp.Or(rec.finalHash, res.Hash[rec.Path]) // a replayed text was grouped by its text before redaction
		canon, ok := res.DuplicateOf[rec.Path]
		if !ok {
			continue
		}
		if err := e.unstage(rec); err != nil {
			return fmt.Errorf("dedup: %w", err)
		}
		rec.DuplicateOf = canon
	}
	return nil
}

// treePath is the staged copy's OS path.
func (e *Env) treePath(rec *Record) string { return e.treePathOf(rec.Path) }

func (e *Env) treePathOf(rel string) string {
	return filepath.Join(e.TreeDir, filepath.FromSlash(rel))
}

// unstage removes a record's staged copy (its empty directories go in
// PruneEmptyDirs).
func (e *Env) unstage(rec *Record) error {
	if err := os.Remove(e.treePath(rec)); err != nil {
		return err
	}
	rec.Staged = false
	return nil
}
