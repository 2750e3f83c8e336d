package serve

import (
	"errors"
	"fmt"
	"os"
	"path"
	"slices"
	"strings"

	"github.com/repoprep/repoprep/internal/pathname"
	"github.com/repoprep/repoprep/snapshot"
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
func (sn *view) lookup(name string) (*snapshot.Entry, string, error) {
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
func (sn *view) notFound(name string) error {
	near := sn.closest(name)
	if len(near) == 0 {
		return fmt.Errorf("%w: %s (no similar path; use list_files or search)", ErrNotFound, echo(name))
	}
	return fmt.Errorf("%w: %s; closest existing paths: %s", ErrNotFound, echo(name), strings.Join(near, ", "))
}

// closest ranks readable paths by likeness to name: the same base name
// elsewhere first, then small edit distances over the whole path or the base.
func (sn *view) closest(name string) []string {
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

// open opens the staged file rel (snapshot.OpenStaged); a copy it refuses
// is ErrRefused. A copy removed after the open is not the caller's fault:
// withSnapshot retries on the new snapshot.
func (sn *view) open(rel string) (*os.File, os.FileInfo, error) {
	f, fi, err := snapshot.OpenStaged(sn.tree, rel)
	var unsafe *snapshot.UnsafeError
	if errors.As(err, &unsafe) {
		return nil, nil, fmt.Errorf("%w: %s %s", ErrRefused, echo(rel), unsafe.Why)
	}
	return f, fi, err
}
