package stages

import (
	"context"

	"golang.org/x/sync/errgroup"

	"github.com/repoprep/repoprep/internal/dirfd"
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
		if p.Reason == "unreadable" || p.dir == nil {
			continue
		}
		g.Go(func() error {
			n, err := countFiles(gctx, opts, p.dir)
			p.Files, p.Capped = n, n >= maxPrunedCount
			return err
		})
	}
	return g.Wait()
}

// countFiles counts the non-directories below dir through directory
// descriptors, as the scan walks: no symlink followed, nothing opened but
// directories. A directory it cannot read counts as nothing; a failure of
// the machine stops the run like any other read.
func countFiles(ctx context.Context, opts ScanOptions, dir *dirfd.Dir) (int, error) {
	n := 0
	stack := []*dirfd.Dir{dir}
	for len(stack) > 0 && n < maxPrunedCount {
		if err := ctx.Err(); err != nil {
			return n, err
		}
		d := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		err := d.Do(func(at dirfd.At) error {
			names, err := at.ReadDir()
			if err != nil {
				return err
			}
			for _, name := range names {
				st, err := at.Lstat(name)
				if err != nil {
					if dirfd.IsResource(err) {
						return err
					}
					continue
				}
				if opts.Skip[st.ID] {
					continue
				}
				if st.IsDir() {
					stack = append(stack, d.Child(name, st.ID))
				} else {
					n++
				}
			}
			return nil
		})
		if dirfd.IsResource(err) {
			return n, err
		}
	}
	return min(n, maxPrunedCount), nil
}
