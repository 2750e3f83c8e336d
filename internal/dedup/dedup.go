// Package dedup finds files with identical contents: it hashes every file with BLAKE3 (the
// manifest records each hash) and compares hashes only within groups of equal size, then
// names one canonical copy per content by a rule that doesn't depend on scheduling.
package dedup

import (
	"cmp"
	"context"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/zeebo/blake3"
	"golang.org/x/sync/errgroup"
)

// File is one staged content to compare.
type File struct {
	Path string // manifest path (slash-separated); decides the canonical copy
	Name string // OS path of the staged content to read
	Size int64  // size of that content; files of different sizes are never compared
}

// Result says what Find learned about a set of files.
type Result struct {
	Hash        map[string]string // Path -> "blake3:<hex>", for every file
	DuplicateOf map[string]string // Path -> canonical Path, only for duplicates
}

// HashPrefix starts every Result.Hash value.
const HashPrefix = "blake3:"

// Find hashes every file with at most workers reads in flight and marks as duplicates the
// files whose size and hash equal another's. The canonical copy of each content is the
// shallowest path (fewest '/'), then the first in byte order, so the answer is the same
// for any workers and any order of files. Empty files are hashed but never duplicates:
// twenty empty __init__.py files are not one file.
func Find(ctx context.Context, files []File, workers int) (Result, error) {
	sums := make([][32]byte, len(files))
	if err := hashAll(ctx, files, workers, sums); err != nil {
		return Result{}, err
	}
	return Group(files, sums)
}

// FindKnown is Find for files some of whose hashes are known: known[i]
// says sums[i] already holds the BLAKE3-256 of files[i]'s content (a
// refresh verified it while placing a previous snapshot's copy), and only
// the others are read.
func FindKnown(ctx context.Context, files []File, workers int, sums [][32]byte, known []bool) (Result, error) {
	var todo []File
	var at []int
	for i, f := range files {
		if !known[i] {
			todo = append(todo, f)
			at = append(at, i)
		}
	}
	got := make([][32]byte, len(todo))
	if err := hashAll(ctx, todo, workers, got); err != nil {
		return Result{}, err
	}
	for j, i := range at {
		sums[i] = got[j]
	}
	return Group(files, sums)
}

// Group is Find for files already hashed: sums[i] is the BLAKE3-256 of
// files[i]'s content (Name is not read). The pipeline's one-read loop
// hashes each staged text while it holds it, and groups them here.
func Group(files []File, sums [][32]byte) (Result, error) {
	res := Result{
		Hash:        make(map[string]string, len(files)),
		DuplicateOf: map[string]string{},
	}
	for i, f := range files {
		if _, dup := res.Hash[f.Path]; dup {
			return Result{}, fmt.Errorf("dedup: path %q given twice", f.Path)
		}
		res.Hash[f.Path] = HashPrefix + hex.EncodeToString(sums[i][:])
	}

	// Group by size, then by hash within a size group of two or more.
	bySize := map[int64][]int{}
	for i, f := range files {
		if f.Size > 0 {
			bySize[f.Size] = append(bySize[f.Size], i)
		}
	}
	for _, group := range bySize {
		if len(group) < 2 {
			continue
		}
		byHash := map[[32]byte][]int{}
		for _, i := range group {
			byHash[sums[i]] = append(byHash[sums[i]], i)
		}
		for _, same := range byHash {
			if len(same) < 2 {
				continue
			}
			canon := slices.MinFunc(same, func(a, b int) int { return canonicalOrder(files[a].Path, files[b].Path) })
			for _, i := range same {
				if i != canon {
					res.DuplicateOf[files[i].Path] = files[canon].Path
				}
			}
		}
	}
	return res, nil
}

// canonicalOrder sorts the path to keep first: fewer '/' (nearer the root), then byte order.
func canonicalOrder(a, b string) int {
	return cmp.Or(cmp.Compare(strings.Count(a, "/"), strings.Count(b, "/")), strings.Compare(a, b))
}

// hashAll fills sums[i] with the BLAKE3-256 of files[i], with at most workers files open.
func hashAll(ctx context.Context, files []File, workers int, sums [][32]byte) error {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(max(workers, 1))
	for i, f := range files {
		if gctx.Err() != nil {
			break // a worker failed or the caller cancelled
		}
		g.Go(func() error {
			sum, err := hashFile(gctx, f.Name)
			if err != nil {
				return fmt.Errorf("dedup %s: %w", f.Path, err)
			}
			sums[i] = sum
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	return ctx.Err()
}

// bufPool holds read buffers; hashFile runs on many goroutines at once.
var bufPool = sync.Pool{New: func() any { b := make([]byte, 256<<10); return &b }}

// hashFile streams name through BLAKE3 in fixed-size reads, checking ctx between them so
// a cancelled run doesn't finish hashing a huge file.
func hashFile(ctx context.Context, name string) ([32]byte, error) {
	var sum [32]byte
	f, err := os.Open(name)
	if err != nil {
		return sum, err
	}
	defer f.Close()
	bp := bufPool.Get().(*[]byte)
	defer bufPool.Put(bp)
	h := blake3.New()
	for {
		if err := ctx.Err(); err != nil {
			return sum, err
		}
		n, err := f.Read(*bp)
		h.Write((*bp)[:n])
		if err == io.EOF {
			break
		}
		if err != nil {
			return sum, err
		}
	}
	h.Sum(sum[:0])
	return sum, nil
}
