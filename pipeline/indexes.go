package pipeline

import (
	"bufio"
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/repoprep/repoprep/internal/lineindex"
	"github.com/repoprep/repoprep/internal/trigram"
	"github.com/repoprep/repoprep/stages"
)

// writeIndexes writes the server's indexes of the staged tree into tmp: the
// trigram index that lets search open only the files that can match, and
// the line marks that let a ranged read of an oversize file seek. Both are
// built from the staged copies, after redaction, in path order.
// A refresh whose staged files are the previous snapshot's, byte for byte
// (prev.sameIndexes), copies its indexes instead: they are a function of
// those files alone.
func writeIndexes(ctx context.Context, tmp string, tree *os.Root, recs []*stages.Record, prev *prior) error {
	var staged []*stages.Record
	for _, rec := range recs {
		if rec.Staged {
			staged = append(staged, rec)
		}
	}
	slices.SortFunc(staged, func(a, b *stages.Record) int { return strings.Compare(a.Path, b.Path) })
	if prev != nil {
		if ok, err := prev.copyIndexes(staged, tmp); ok || err != nil {
			return err
		}
	}
	files := make([]trigram.File, len(staged))
	for i, rec := range staged {
		files[i] = trigram.File{Path: rec.Path, Open: func() (io.ReadCloser, error) { return tree.Open(filepath.FromSlash(rec.Path)) }}
	}
	if err := trigram.Build(ctx, files, filepath.Join(tmp, trigram.FileName), tmp); err != nil {
		return err
	}
	var ix lineindex.Index
	for _, rec := range staged {
		if !rec.Oversize {
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
		lf.Path = rec.Path
		ix.Files = append(ix.Files, lf)
	}
	return writeFile(filepath.Join(tmp, lineindex.FileName), func(w *bufio.Writer) error { return ix.Encode(w) })
}
