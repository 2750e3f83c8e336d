package serve

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"

	"github.com/repoprep/repoprep/internal/manifest"
	"github.com/repoprep/repoprep/internal/pathname"
)

const (
	maxPathBytes   = pathname.MaxBytes // PATH_MAX; nothing longer can be a staged file
	maxSuggestions = 3
)

// checkName refuses a requested path that could mean anything but a plain
// relative file path inside the tree. It looks only at the string: it runs
// before any disk access, and a name it accepts is always filepath.IsLocal.
// It is the scan's own test (internal/pathname), so every staged file is
// servable.
func checkName(name string) error {
	if err := pathname.Check(name); err != nil {
		// pathname's own message quotes the whole name: echo caps it.
		var pe *pathname.Error
		switch {
		case errors.As(err, &pe) && pe.Decoded != "":
			return fmt.Errorf("%w: %s: decodes to %s: %s", ErrRefused, echo(name), echo(pe.Decoded), pe.Why)
		case errors.As(err, &pe):
			return fmt.Errorf("%w: %s: %s", ErrRefused, echo(name), pe.Why)
		}
		return fmt.Errorf("%w: %v", ErrRefused, err)
	}
	return nil
}

// lookup checks name and finds the entry that serves it: the staged path to
// open and, for a duplicate, the path the caller asked for differs from it.
func (sn *snapshot) lookup(name string) (*manifest.Entry, string, error) {
	if err := checkName(name); err != nil {
		return nil, "", err
	}
	e, ok := sn.byPath[name]
	if !ok {
		if sn.isDir(name) {
			return nil, "", fmt.Errorf("%w: %s is a directory; use list_files with prefix %s", ErrRefused, echo(name), echo(name+"/"))
		}
		return nil, "", sn.notFound(name)
	}
	canon := sn.canonical(e)
	if canon == "" {
		why := e.Reason
		if why == "" {
			why = e.Category
		}
		return nil, "", fmt.Errorf("%w: %s is in files.json but not staged (%s), so it cannot be read", ErrNotFound, echo(name), why)
	}
	// files.json is our own output, but it is read from disk: check it too.
	if err := checkName(canon); err != nil {
		return nil, "", err
	}
	return e, canon, nil
}

// notFound builds the "not found" error with up to three existing paths that
// look closest. They are offered as suggestions, never served in its place.
func (sn *snapshot) notFound(name string) error {
	near := sn.closest(name)
	if len(near) == 0 {
		return fmt.Errorf("%w: %s (no similar path; use list_files or search)", ErrNotFound, echo(name))
	}
	return fmt.Errorf("%w: %s; closest existing paths: %s", ErrNotFound, echo(name), strings.Join(near, ", "))
}

// closest ranks readable paths by likeness to name: the same base name
// elsewhere first, then small edit distances over the whole path or the base.
func (sn *snapshot) closest(name string) []string {
	type cand struct {
		path string
		dist int
	}
	var cands []cand
	seen := map[string]bool{}
	base := path.Base(name)
	for _, p := range sn.byBase[base] {
		cands = append(cands, cand{p, editDistance(name, p, len(name)+len(p))})
		seen[p] = true
	}
	slices.SortFunc(cands, func(a, b cand) int { return a.dist - b.dist })
	if len(cands) > maxSuggestions {
		cands = cands[:maxSuggestions]
	}
	if len(cands) < maxSuggestions {
		limit := max(2, len(name)/5)
		baseLimit := max(1, len(base)/4)
		var more []cand
		toName, toBase := distanceTo(name), distanceTo(base)
		for _, i := range sn.suggestionCandidates(name, base, limit, baseLimit) {
			e := sn.readable[i]
			if seen[e.Path] {
				continue
			}
			if d := toName(e.Path, limit); d <= limit {
				more = append(more, cand{e.Path, d})
			} else if d := toBase(path.Base(e.Path), baseLimit); d <= baseLimit {
				more = append(more, cand{e.Path, limit + 1 + d}) // rank after whole-path matches
			}
		}
		slices.SortStableFunc(more, func(a, b cand) int { return a.dist - b.dist })
		cands = append(cands, more[:min(len(more), maxSuggestions-len(cands))]...)
	}
	out := make([]string, len(cands))
	for i, c := range cands {
		out[i] = c.path
	}
	return out
}

// editDistance is the Levenshtein distance between a and b in bytes, or
// limit+1 as soon as it is known to exceed limit: the length filter and the
// row minimum keep a scan over a large manifest cheap.
func editDistance(a, b string, limit int) int {
	if d := len(a) - len(b); d > limit || -d > limit {
		return limit + 1
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			rowMin = min(rowMin, cur[j])
		}
		if rowMin > limit {
			return limit + 1
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// open opens the staged file rel through the tree's os.Root, which refuses
// any name that would leave the tree, symlinks included, atomically with the
// open. On top of that the file must be a regular file with one link, and
// the same file the pre-open Lstat saw: a symlink or hard link planted into
// the tree after publication, even one pointing inside it, is refused.
// O_NONBLOCK keeps a FIFO planted in the tree from blocking the open.
func (sn *snapshot) open(rel string) (*os.File, os.FileInfo, error) {
	before, err := sn.tree.Lstat(rel)
	if err != nil {
		return nil, nil, err
	}
	if !before.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("%w: %s is not a regular file in the snapshot (%s)", ErrRefused, echo(rel), before.Mode().Type())
	}
	f, err := sn.tree.OpenFile(rel, os.O_RDONLY|openNoBlock, 0)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	switch {
	case !fi.Mode().IsRegular() || !os.SameFile(before, fi):
		f.Close()
		return nil, nil, fmt.Errorf("%w: %s changed while it was opened (not the regular file files.json lists)", ErrRefused, echo(rel))
	case linkCount(fi) == 0:
		// Unlinked after the open: the publisher removed this (old) snapshot.
		// Not the caller's fault; withSnapshot retries on the new one.
		f.Close()
		return nil, nil, fmt.Errorf("%s: removed while being opened: %w", rel, fs.ErrNotExist)
	case linkCount(fi) != 1:
		f.Close()
		return nil, nil, fmt.Errorf("%w: %s has %d hard links; the snapshot holds single-link files only", ErrRefused, echo(rel), linkCount(fi))
	}
	return f, fi, nil
}
