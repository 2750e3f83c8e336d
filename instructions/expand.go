package instructions

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/repoprep/repoprep/snapshot"
)

// node is a text a chain can load, under the path that names it: its
// imports resolve against that path.
type node struct {
	source        string
	chars, tokens int
	refs          []Ref
}

// walker follows one instruction file's @imports over the texts' Refs,
// depth first in the order they appear, as an agent loading the file
// would. Build walks to find each file's chain and totals; Load walks the
// stored index again, taking only what the stored chain says was loaded,
// to give the server the same imports and warnings Build saw.
type walker struct {
	root *File
	// load returns the text an import at path leads to; a nil node with
	// a nil error means it was left out of the index (Load only).
	load func(path string) (*node, error)
	// replay is the stored chain Load follows (when replaying); next is
	// its next entry.
	replaying bool
	replay    []string
	next      int
	// tree asks for the []Import tree and every warning (Load); Build
	// needs only the file's own warnings and counts of the rest.
	tree bool

	seen          map[string]bool // staged texts already expanded for this file
	count         int
	chars, tokens int            // of the texts loaded
	loaded        []string       // the chain: paths loaded, in order
	warnings      []string       // every import warning, in order (tree)
	own           []string       // warnings on the file's own @paths
	notFollowed   map[string]int // by status: imports deeper in the chain it did not follow
}

func newWalker(root *File, load func(string) (*node, error)) *walker {
	return &walker{root: root, load: load, seen: map[string]bool{root.Source: true}}
}

// walkRoot follows the root file's own imports, refs.
func (w *walker) walkRoot(refs []Ref) ([]Import, error) {
	chain := append(make([]string, 0, MaxHops+2), w.root.Path)
	sources := append(make([]string, 0, MaxHops+2), w.root.Source)
	return w.expand(w.root.Path, refs, chain, sources)
}

// expand resolves the imports refs found in the text at logical path from;
// chain holds the logical paths from the root file down to from, sources
// their staged texts.
func (w *walker) expand(from string, refs []Ref, chain, sources []string) ([]Import, error) {
	var out []Import
	isRoot := from == w.root.Path
	for i := range refs {
		ref := &refs[i]
		imp, err := w.one(ref, chain, sources, w.tree || isRoot)
		if err != nil {
			return nil, err
		}
		if imp.Status != ImportOK && imp.Status != ImportRepeat {
			switch {
			case isRoot || w.tree:
				where := ""
				if !isRoot {
					where = " of " + from
				}
				msg := fmt.Sprintf("line %d%s: @%s: %s", imp.Line, where, imp.Spec, imp.Detail)
				w.warnings = append(w.warnings, msg)
				if isRoot {
					w.own = append(w.own, msg)
				}
			case ref.Status == ImportOK:
				// Deeper in the chain, told in one line (chainWarning); an
				// imported text's broken @path is told on its Ref, once.
				if w.notFollowed == nil {
					w.notFollowed = map[string]int{}
				}
				w.notFollowed[imp.Status]++
			}
		}
		if w.tree {
			out = append(out, imp)
		}
	}
	return out, nil
}

// one decides what ref is for the file being walked; it writes out why
// not only when told to (details join the chain, which costs).
func (w *walker) one(ref *Ref, chain, sources []string, detailed bool) (Import, error) {
	imp := Import{Line: ref.Line, Spec: ref.Spec, Path: ref.Path}
	if ref.Status != ImportOK {
		imp.Status, imp.Detail = ref.Status, ref.Detail
		return imp, nil
	}
	target, src := ref.Path, ref.Staged()
	imp.Source = src
	hops := len(chain) // the root is chain[0]: its own imports are one hop away
	switch {
	case slices.Contains(sources, src):
		imp.Status = ImportCycle
		if detailed {
			i := slices.Index(sources, src)
			imp.Detail = "import cycle: " + strings.Join(append(slices.Clone(chain[i:]), target), " → ") + "; not imported again"
		}
		return imp, nil
	case hops > MaxHops:
		imp.Status = ImportTooDeep
		if detailed {
			imp.Detail = fmt.Sprintf("more than %d hops from %s (%s); not imported", MaxHops, w.root.Path, strings.Join(append(slices.Clone(chain), target), " → "))
		}
		return imp, nil
	case w.seen[src]:
		imp.Status, imp.Detail = ImportRepeat, "already imported above"
		return imp, nil
	case w.count >= maxImportsPerFile:
		imp.Status, imp.Detail = ImportTooMany, fmt.Sprintf("more than %d imports for one file; not imported", maxImportsPerFile)
		return imp, nil
	}
	var n *node
	if !w.replaying || w.next < len(w.replay) && w.replay[w.next] == target {
		var err error
		if n, err = w.load(target); err != nil {
			return imp, err
		}
	}
	if n == nil {
		imp.Source = ""
		imp.Status, imp.Detail = ImportMissing, "left out of "+snapshot.InstructionsJSON+" (its size bound); not imported"
		return imp, nil
	}
	w.next++
	w.count++
	w.seen[src] = true
	w.loaded = append(w.loaded, target)
	imp.Status = ImportOK
	imp.Chars, imp.Tokens = n.chars, n.tokens
	w.chars += n.chars
	w.tokens += n.tokens
	var err error
	// chain and sources are stacks (walkRoot gives them room): a sibling
	// reuses this import's slot once it returns, and nothing keeps them.
	imp.Imports, err = w.expand(target, n.refs, append(chain, target), append(sources, src))
	return imp, err
}

// chainPrefix starts the one warning that counts the imports deeper in a
// file's chain it does not follow; Load says each where it is instead.
const chainPrefix = "in its chain, not followed: "

// chainWarning is that warning, or "" when every import was followed.
func (w *walker) chainWarning() string {
	var parts []string
	for _, k := range []struct{ status, what string }{
		{ImportCycle, "closing a cycle"},
		{ImportTooDeep, fmt.Sprintf("more than %d hops away", MaxHops)},
		{ImportTooMany, fmt.Sprintf("past the first %d", maxImportsPerFile)},
	} {
		switch n := w.notFollowed[k.status]; n {
		case 0:
		case 1:
			parts = append(parts, "1 import "+k.what)
		default:
			parts = append(parts, fmt.Sprintf("%d imports %s", n, k.what))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return chainPrefix + strings.Join(parts, ", ") + " (the instructions tool shows each where it is)"
}

// refs resolves the @paths found in the text at logical path from. What
// each one is does not depend on which file loads the text: outside the
// snapshot, missing, or a staged text.
func (b *builder) refs(from string, raws []rawImport) []Ref {
	out := make([]Ref, 0, len(raws))
	for _, raw := range raws {
		r := Ref{Line: raw.line, Spec: raw.spec}
		target, status, detail := b.resolveImport(from, raw.spec)
		if status != ImportOK {
			r.Status, r.Detail = status, detail
			out = append(out, r)
			continue
		}
		if t := strings.TrimRight(raw.spec, ".,;:!?)]}'\""); target != path.Join(parentDir(from), raw.spec) && t != raw.spec {
			r.Spec = t // "see @docs/a.md." imports docs/a.md
		}
		r.Path = target
		switch src, why, leaves := b.sourceOf(target); {
		case src == "" && leaves:
			r.Status, r.Detail = ImportOutside, why
		case src == "":
			r.Status, r.Detail = ImportMissing, why
		default:
			r.Status = ImportOK
			if src != target {
				r.Source = src
			}
		}
		out = append(out, r)
	}
	return out
}

// resolveImport turns an @path written in the file at from into a snapshot
// path. Anything that would leave the snapshot is refused: a home-directory
// path, an absolute path, or one that climbs above the root.
func (b *builder) resolveImport(from, spec string) (string, string, string) {
	switch {
	case strings.HasPrefix(spec, "~"):
		return "", ImportOutside, "a home-directory path, outside the snapshot; refused"
	case path.IsAbs(spec):
		return "", ImportOutside, "an absolute path, outside the snapshot; refused"
	}
	target := path.Join(parentDir(from), spec)
	if target == ".." || strings.HasPrefix(target, "../") {
		return "", ImportOutside, fmt.Sprintf("resolves to %s, which leaves the snapshot; refused", target)
	}
	if target == "." {
		return "", ImportMissing, "names the root directory, not a file"
	}
	if _, ok := b.byPath[target]; ok {
		return target, ImportOK, ""
	}
	// "See @docs/a.md." means docs/a.md: try without trailing punctuation.
	if t := strings.TrimRight(spec, ".,;:!?)]}'\""); t != spec && t != "" {
		if alt := path.Join(parentDir(from), t); alt != ".." && !strings.HasPrefix(alt, "../") {
			if _, ok := b.byPath[alt]; ok {
				return alt, ImportOK, ""
			}
		}
	}
	if b.isDir(target) {
		return "", ImportMissing, fmt.Sprintf("%s is a directory, not a file", target)
	}
	return "", ImportMissing, b.absent(target)
}
