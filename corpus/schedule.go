package corpus

import (
	"cmp"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"

	"golang.org/x/sync/errgroup"
)

// maxEstimateEntries bounds what estimate reads of one tree: past it a
// repository is simply large, and every tree that large starts first.
const maxEstimateEntries = 200_000

// estimateBatch is how many directory entries estimate reads at a time,
// so one huge directory is not read whole.
const estimateBatch = 1024

// schedule is the order the repositories at slots 0..len(paths)-1 start
// in: the largest first, by estimate, ties in LIST order. Started in LIST
// order, a large repository near the end of LIST ran alone at the end
// with its one share of the worker budget while the other cores idled
// (in the twenty of make bench-corpus, matomo, 19th, ran alone for a
// third of the corpus's wall time); largest first, the small ones fill
// in beside it and the last to finish are short. Only the order of the
// work changes: every result keeps its slot, so nothing written depends
// on it.
func schedule(ctx context.Context, paths []string, workers int) []int {
	size := make([]int, len(paths))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(max(1, workers))
	for i, p := range paths {
		if gctx.Err() != nil {
			break
		}
		g.Go(func() error {
			size[i] = estimate(gctx, p)
			return nil
		})
	}
	g.Wait() // estimate never fails: a tree it cannot read is small to it, and its run says why
	order := make([]int, len(paths))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(size[b], size[a]) })
	return order
}

// estimate ranks the tree at root by how much work it is likely to be:
// about the entries (files, directories, links) under it. A git work
// tree's index says so in one stat, about 100 bytes an entry (62 and the
// path); any other tree is walked, .git aside, up to maxEstimateEntries.
// The walk reads directories only, a batch of names at a time, and never
// follows a link. Only the order of the runs depends on it.
func estimate(ctx context.Context, root string) int {
	if fi, err := os.Lstat(filepath.Join(root, ".git", "index")); err == nil && fi.Mode().IsRegular() {
		return int(min(fi.Size()/indexEntryBytes, maxEstimateEntries))
	}
	n := 0
	stack := []string{root}
	for len(stack) > 0 && n < maxEstimateEntries && ctx.Err() == nil {
		dir := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		n = estimateDir(dir, n, &stack)
	}
	return min(n, maxEstimateEntries)
}

// indexEntryBytes is about what one entry takes in a git index.
const indexEntryBytes = 100

// estimateDir counts dir's entries onto n, pushing its subdirectories.
func estimateDir(dir string, n int, stack *[]string) int {
	f, err := os.Open(dir)
	if err != nil {
		return n
	}
	defer f.Close()
	for n < maxEstimateEntries {
		entries, err := f.ReadDir(estimateBatch)
		for _, e := range entries {
			if e.IsDir() && e.Name() == ".git" {
				continue
			}
			n++
			if e.IsDir() {
				*stack = append(*stack, filepath.Join(dir, e.Name()))
			}
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				return n // unreadable: its run reports it
			}
			break
		}
	}
	return n
}
