package stages

import (
	"context"
	"io/fs"

	"golang.org/x/sync/errgroup"
)

// maxPrunedCount bounds the files counted under one pruned directory: a
// node_modules of a million files is reported as "100,000 or more" rather
// than walked to the end.
const maxPrunedCount = 100_000

// CountPruned fills in each pruned directory's Files: the files below it,
// counted from directory entries alone (no stat, no open of a file, no
// symlink followed), at most maxPrunedCount each, so the audit can say what
// a pruning left out. An unreadable subdirectory counts as nothing.
func CountPruned(ctx context.Context, opts ScanOptions, pruned []Pruned) error {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(max(opts.Workers, 1))
	for i := range pruned {
		p := &pruned[i]
		if p.Reason == "unreadable" || p.src == "" {
			continue
		}
		g.Go(func() error {
			n, err := countFiles(gctx, opts, p.src)
			p.Files, p.Capped = n, n >= maxPrunedCount
			return err
		})
	}
	return g.Wait()
}

func countFiles(ctx context.Context, opts ScanOptions, dir string) (int, error) {
	n := 0
	stack := []string{dir}
	for len(stack) > 0 && n < maxPrunedCount {
		if err := ctx.Err(); err != nil {
			return n, err
		}
		d := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		f, err := openDir(opts.Root, d)
		if err != nil {
			continue
		}
		entries, _ := f.ReadDir(-1)
		f.Close()
		for _, e := range entries {
			child := join(d, e.Name())
			if opts.Skip != nil && opts.Skip(child) {
				continue
			}
			if e.Type()&fs.ModeDir != 0 {
				stack = append(stack, child)
			} else {
				n++
			}
		}
	}
	return min(n, maxPrunedCount), nil
}
