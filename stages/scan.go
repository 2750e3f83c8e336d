package stages

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/sync/errgroup"

	"github.com/repoprep/repoprep/internal/dirfd"
	"github.com/repoprep/repoprep/internal/pathname"
	"github.com/repoprep/repoprep/rules"
	"github.com/repoprep/repoprep/snapshot"
)

// Pruned is a directory the scan did not walk, with why.
type Pruned struct {
	Path   string
	Reason string     // "excluded-dir", "ignored", "unreadable" or "excluded-by-rule"
	Files  int        // files below it, filled by CountPruned
	Capped bool       // Files stopped at CountPruned's bound
	dir    *dirfd.Dir // the directory itself, for CountPruned; nil when unreadable
}

// ScanOptions configures one Scan.
type ScanOptions struct {
	Root     *dirfd.Tree // the input tree; only read
	Rules    *rules.Set  // exclude dirs
	NoIgnore bool        // do not honour .gitignore / .ignore files
	Workers  int         // directories read at once
	// Skip holds the identities (device, inode) of entries to pass over
	// silently: the output directory, its lock and temporary snapshots
	// when OUT lies inside the input. Identity, not name: a file of the
	// input that merely shares their names is scanned like any other.
	Skip map[dirfd.ID]bool
	// Only, when set, limits the walk to the entries whose OS path
	// relative to the root it accepts (explain walks just the paths it is
	// asked about and their parents).
	Only func(rel string) bool
	// Found is called once per record as the walk finds it, from any
	// goroutine; nil ignores. It feeds progress.
	Found func()
	// RootPath is the OS path Root was opened from, for a .git file
	// ("gitdir: PATH", a worktree or submodule) whose PATH is relative;
	// "" leaves such an index unread.
	RootPath string
	// Warn is told, once, what the scan could not do but went on without
	// (an index it could not read); nil discards. Called from any
	// goroutine.
	Warn func(msg string)
}

// Scan walks the tree without following symlinks and returns one record per
// file, sorted by Path, and the directories it pruned. Each directory is
// opened relative to its parent's descriptor (internal/dirfd), so the walk
// costs the same per directory at any depth. Per-directory trouble (a
// directory it cannot read) is recorded in pruned; a cancelled context or
// a failure of the machine (out of descriptors or memory, an I/O error)
// fails the scan: a snapshot missing what it could not read must not be
// published as whole.
func Scan(ctx context.Context, opts ScanOptions) ([]*Record, []Pruned, error) {
	w := &walker{opts: opts, tracked: &tracked{root: opts.Root, rootPath: opts.RootPath, warn: opts.Warn}}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(max(opts.Workers, 1))
	w.g = g
	root := &dirNode{d: opts.Root.Root(), vi: noVerdict}
	if !opts.NoIgnore {
		// git's own per-repository excludes, as git check-ignore reads them.
		pats, err := w.readExclude()
		if err != nil {
			return nil, nil, err
		}
		root.ign = newIgnoreSet(nil, pats)
	}
	g.Go(func() error { return w.dir(gctx, root) })
	if err := g.Wait(); err != nil {
		return nil, nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	slices.SortFunc(w.recs, func(a, b *Record) int { return strings.Compare(a.Path, b.Path) })
	slices.SortFunc(w.pruned, func(a, b Pruned) int { return strings.Compare(a.Path, b.Path) })
	return w.recs, w.pruned, nil
}

type walker struct {
	opts    ScanOptions
	g       *errgroup.Group
	tracked *tracked // what git tracks, asked only about what an ignore pattern excludes

	mu     sync.Mutex // guards recs and pruned
	recs   []*Record
	pruned []Pruned
}

// dirNode is one directory on the walk. It holds its own name only:
// paths are built from the chain when needed, so a 10,000-level tree does
// not hold 10,000 ever longer path strings.
type dirNode struct {
	parent *dirNode
	d      *dirfd.Dir
	esc    string // escaped name ("" for the root)
	unsafe bool   // this or a parent component needed escaping
	ign    *ignoreSet
	vi     verdict // this directory's own ignore verdict
	// base is the escaped path of baseNode, the nearest ancestor whose
	// path was built when this node was made (nil: the root, path ""):
	// a directory's path is built from there, at the cost of the
	// directories between, not of its depth.
	base     string
	baseNode *dirNode
	// shipped: this directory or an ancestor holds a tree the repository
	// ships (a template, fixtures): editor and output directories in it
	// are content (rules.Shipped).
	shipped bool
}

// dirPath is s's escaped manifest path, built from its base.
func (s *dirNode) dirPath() string {
	var parts []string
	for x := s; x != s.baseNode && x.parent != nil; x = x.parent {
		parts = append(parts, x.esc)
	}
	if s.base != "" {
		parts = append(parts, s.base)
	}
	slices.Reverse(parts)
	return strings.Join(parts, "/")
}

// path is the escaped manifest path of name in s ("" name: s itself).
func (s *dirNode) path(name string) string {
	var parts []string
	if name != "" {
		parts = append(parts, name)
	}
	for x := s; x.parent != nil; x = x.parent {
		parts = append(parts, x.esc)
	}
	slices.Reverse(parts)
	return strings.Join(parts, "/")
}

// comps is the OS path components of name in s, for ignore patterns.
func (s *dirNode) comps(name string) []string {
	parts := []string{name}
	for x := s; x.parent != nil; x = x.parent {
		parts = append(parts, x.d.Name())
	}
	slices.Reverse(parts)
	return parts
}

// entry is one name of a directory with its lstat.
type entry struct {
	name string
	st   dirfd.Stat
	err  error // lstat failed: recorded as unreadable
}

// dir reads one directory and spawns its subdirectories on the pool, or
// walks them inline when the pool is full (so a deep tree cannot deadlock).
func (w *walker) dir(ctx context.Context, s *dirNode) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	var ents []entry
	var own []ignorePattern
	err := s.d.Do(func(at dirfd.At) error {
		names, err := at.ReadDir()
		if err != nil {
			return err
		}
		ents = make([]entry, 0, len(names))
		for _, name := range names {
			st, err := at.Lstat(name)
			if dirfd.IsResource(err) {
				return err
			}
			if err == nil && w.opts.Skip[st.ID] {
				continue
			}
			ents = append(ents, entry{name: name, st: st, err: err})
		}
		if w.opts.NoIgnore {
			return nil
		}
		domain := func() []string { // built only when an ignore file exists: it costs the depth
			if s.parent == nil {
				return nil
			}
			c := s.comps("")
			return c[:len(c)-1]
		}
		for _, name := range []string{".gitignore", ".ignore"} {
			if !slices.Contains(names, name) {
				continue // not in the listing: no open that fails (two per directory)
			}
			ps, err := readIgnoreAt(at, name, domain)
			if err != nil {
				return err
			}
			own = append(own, ps...)
		}
		return nil
	})
	if err != nil {
		if dirfd.IsResource(err) {
			return fmt.Errorf("scan %s: %w", orDot(s.path("")), err)
		}
		w.prune(s.path(""), "unreadable", nil)
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	ign := newIgnoreSet(s.ign, own)
	// Generic output dirs (dist, build, target) are build output only beside
	// the manifest of a tool that writes them.
	var manifests []string
	for _, e := range ents {
		if e.err == nil && !e.st.IsDir() && w.opts.Rules.IsManifest(e.name) {
			manifests = append(manifests, e.name)
		}
	}
	// This directory's path costs the directories between it and its
	// nearest ancestor whose path was built: only files and pruned
	// directories need it, so a chain of directories holding one directory
	// each never builds it. A directory holding a file builds it before
	// its subdirectories are made, so they build theirs from it: a chain
	// holding a file at each level costs one component per level, not its
	// depth.
	var dirPath string
	built := false
	build := func() {
		if !built {
			dirPath, built = s.dirPath(), true
		}
	}
	join := func(name string) string {
		build()
		return joinSlash(dirPath, name)
	}
	if slices.ContainsFunc(ents, func(e entry) bool { return e.err != nil || !e.st.IsDir() }) {
		build()
	}
	// The OS components of this directory, for ignore patterns: built once
	// for all its entries, with room for the entry's own name.
	var dirComps []string
	entryComps := func(name string) []string {
		if dirComps == nil {
			c := s.comps("")
			dirComps = c[: len(c)-1 : len(c)]
		}
		return append(dirComps[:len(dirComps):len(dirComps)+1], name)
	}
	for _, e := range ents {
		if w.opts.Only != nil && !w.opts.Only(strings.Join(s.comps(e.name), "/")) {
			continue
		}
		nameEsc, nameUnsafe := EscapeName(e.name)
		unsafe := s.unsafe || nameUnsafe
		isDir := e.err == nil && e.st.IsDir()
		comps := func() []string { return entryComps(e.name) }
		// A rules file's include takes a path back from every built-in
		// pruning; its exclude is the last word (rules/paths.go). Both
		// need the entry's path, built only when there are such rules.
		included, excluded := false, false
		if paths := &w.opts.Rules.Paths; paths.Include.Len()+paths.Exclude.Len() > 0 {
			p := join(nameEsc)
			_, included = paths.Include.Match(p, isDir)
			if isDir {
				_, excluded = paths.Exclude.Match(p, true)
			}
		}
		if isDir {
			v := ign.match(s.vi, e.name, true, comps)
			child := func() *dirfd.Dir { return s.d.Child(e.name, e.st.ID) }
			reason := ""
			switch {
			case excluded:
				reason = ReasonExcludedByRule
			case !included && w.isExcludedDir(s, e.name, manifests):
				reason = "excluded-dir"
			case v.exclude && !included:
				// An ignored directory holding files git tracks is walked
				// with its verdict (v), so that only those are kept.
				holds, err := w.tracked.hasUnder(comps())
				if err != nil {
					return fmt.Errorf("scan %s: %w", join(nameEsc), err)
				}
				if !holds {
					reason = "ignored"
				}
			}
			if reason != "" {
				w.prune(join(nameEsc), reason, child())
			} else {
				child := &dirNode{
					parent: s, d: s.d.Child(e.name, e.st.ID), esc: nameEsc, unsafe: unsafe, ign: ign,
					vi: v, base: s.base, baseNode: s.baseNode,
					shipped: s.shipped || w.opts.Rules.Shipped.IsTree(e.name),
				}
				if built {
					child.base, child.baseNode = dirPath, s
				}
				walk := func() error { return w.dir(ctx, child) }
				if !w.g.TryGo(walk) {
					if err := walk(); err != nil {
						return err
					}
				}
			}
			continue
		}
		ignored := ign.match(s.vi, e.name, false, comps).exclude && !included
		if ignored {
			// git keeps a file it tracks whatever .gitignore says.
			isTracked, err := w.tracked.has(comps())
			if err != nil {
				return fmt.Errorf("scan %s: %w", join(nameEsc), err)
			}
			ignored = !isTracked
		}
		rec, err := w.record(s.d, e, join(nameEsc), unsafe, ignored)
		if err != nil {
			return fmt.Errorf("scan %s: %w", rec.Path, err)
		}
		w.add(rec)
	}
	return nil
}

// isExcludedDir reports whether the directory name in s is pruned as
// excluded-dir: an exclude_dirs name, or a build-output directory beside
// the manifest of the tool that writes it; unless s lies in a shipped
// tree (a template, fixtures) whose rules keep it.
func (w *walker) isExcludedDir(s *dirNode, name string, manifests []string) bool {
	r := w.opts.Rules
	isExclude, isOutput := r.ExcludeDirs[name], r.IsOutputDir(name, manifests)
	if !isExclude && !isOutput {
		return false
	}
	return !s.shipped || !r.Shipped.Keeps(name, isExclude, isOutput)
}

// record makes the record of one non-directory entry; it errs only when
// reading a link failed for lack of a resource (the run must stop).
func (w *walker) record(d *dirfd.Dir, e entry, path string, unsafe, ignored bool) (*Record, error) {
	rec := &Record{Entry: snapshot.Entry{Path: path}, dir: d, name: e.name}
	if !unsafe && strings.HasSuffix(path, e.name) {
		// Nothing escaped: the OS path is the manifest's, and the name
		// is its last element (held once: a record is kept per file).
		rec.srcIsPath, rec.name = true, path[len(path)-len(e.name):]
	}
	if e.err != nil {
		rec.fail("scan", "unreadable", e.err)
		return rec, nil
	}
	rec.Size = e.st.Size
	rec.ident = identityOf(e.st) // its device and inode are the file's ID (fileID)
	// A name the read server would refuse can never be served: percent
	// encodings and NFKC look-alikes of "..", bidi controls, a drive
	// letter. Only the length is the write's business (path-too-long).
	if err := pathname.Check(path); err != nil && !errors.Is(err, pathname.ErrTooLong) {
		unsafe = true
	}
	switch {
	case e.st.IsSymlink():
		rec.Kind, rec.Category, rec.Reason = KindSymlink, "junk", "symlink"
		target, err := d.Readlink(e.name)
		if dirfd.IsResource(err) {
			return rec, err
		}
		if err == nil {
			rec.LinkTarget, _ = EscapeName(target)
		}
	case e.st.IsRegular():
		switch {
		case unsafe:
			rec.Category, rec.Reason = "junk", "unsafe-name"
		case ignored:
			rec.Category, rec.Reason = "junk", "ignored"
		}
	default:
		rec.Kind, rec.Category, rec.Reason = KindSpecial, "junk", "special-file"
	}
	return rec, nil
}

func (w *walker) add(rec *Record) {
	if w.opts.Found != nil {
		w.opts.Found()
	}
	w.mu.Lock()
	w.recs = append(w.recs, rec)
	w.mu.Unlock()
}

func (w *walker) prune(esc, reason string, d *dirfd.Dir) {
	w.mu.Lock()
	w.pruned = append(w.pruned, Pruned{Path: orDot(esc), Reason: reason, dir: d})
	w.mu.Unlock()
}

// readExclude reads .git/info/exclude, one component at a time and
// without following a symlink.
func (w *walker) readExclude() ([]ignorePattern, error) {
	f, err := w.opts.Root.OpenPath(".git/info/exclude")
	if err != nil {
		if dirfd.IsResource(err) {
			return nil, err
		}
		return nil, nil
	}
	defer f.Close()
	ps, err := parseIgnore(f, nil)
	if err != nil && dirfd.IsResource(err) {
		return nil, err
	}
	return ps, nil
}

// EscapeName writes a file name so it is safe in JSON, logs and terminals:
// bytes of invalid UTF-8 and of control characters become \xNN and a
// backslash becomes \\. unsafe reports whether anything was escaped, which
// makes the file unstageable (reason unsafe-name).
func EscapeName(name string) (esc string, unsafe bool) {
	clean := utf8.ValidString(name) // a valid U+FFFD in a name is the author's
	for _, r := range name {
		if r == '\\' || unicode.IsControl(r) {
			clean = false
			break
		}
	}
	if clean {
		return name, false
	}
	var b strings.Builder
	for i := 0; i < len(name); {
		r, size := utf8.DecodeRuneInString(name[i:])
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case r == utf8.RuneError && size <= 1, unicode.IsControl(r):
			for _, c := range []byte(name[i : i+size]) {
				fmt.Fprintf(&b, `\x%02X`, c)
			}
		default:
			b.WriteString(name[i : i+size])
		}
		i += size
	}
	return b.String(), true
}

func joinSlash(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}

func orDot(rel string) string {
	if rel == "" {
		return "."
	}
	return rel
}
