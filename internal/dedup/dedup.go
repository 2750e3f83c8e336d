// Package dedup finds files with identical contents from their BLAKE3 hashes (the
// per-file loop takes each while it holds the text; the manifest records them): it
// compares hashes only within groups of equal size, then names one canonical copy per
// content by a rule that doesn't depend on scheduling.
package dedup

import (
	"cmp"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
)

// File is one staged content to compare.
type File struct {
	Path string // manifest path (slash-separated); decides the canonical copy
	Size int64  // size of that content; files of different sizes are never compared
}

// Result says what Group learned about a set of files.
type Result struct {
	Hash        map[string]string // Path -> "blake3:<hex>", for every file
	DuplicateOf map[string]string // Path -> canonical Path, only for duplicates
}

// HashPrefix starts every Result.Hash value.
const HashPrefix = "blake3:"

// Group marks as duplicates the files whose size and hash equal another's:
// sums[i] is the BLAKE3-256 of files[i]'s content. The canonical copy of
// each content is the shallowest path (fewest '/'), then the first in byte
// order, so the answer is the same for any order of files. Empty files are
// never duplicates: twenty empty __init__.py files are not one file.
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
