package stages

import (
	"cmp"
	"context"
	"fmt"
	"path/filepath"

	"github.com/repoprep/repoprep/internal/dedup"
)

// Dedup is a barrier after normalize: staged copies with identical
// normalized content keep one canonical copy (shallowest path, then byte
// order); the others get DuplicateOf, leave the tree and are no longer
// staged. Files that differed only in encoding or line endings are
// duplicates here, since it compares what normalize wrote. The hashes are
// those Process took while it held each text (or a refresh recorded with
// the text it placed, Record.Placed).
func (e *Env) Dedup(ctx context.Context, recs []*Record) error {
	var files []dedup.File
	var sums [][32]byte
	for _, rec := range recs {
		if !rec.Staged {
			continue
		}
		if !rec.hashed {
			return fmt.Errorf("dedup: %s is staged without a hash", rec.Path)
		}
		files = append(files, dedup.File{Path: rec.Path, Size: rec.OutSize})
		sums = append(sums, rec.sum)
	}
	res, err := dedup.Group(files, sums)
	if err != nil {
		return fmt.Errorf("dedup: %w", err)
	}
	for _, rec := range recs {
		if !rec.Staged {
			continue
		}
		rec.Hash = cmp.Or(rec.Memo.Final, res.Hash[rec.Path]) // a replayed text was grouped by its text before redaction
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
	out, err := e.Tree()
	if err != nil {
		return err
	}
	if err := out.Remove(rec.Path); err != nil {
		return err
	}
	rec.Staged = false
	return nil
}
