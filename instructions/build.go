package instructions

import (
	"bufio"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/repoprep/repoprep/snapshot"
)

// Bounds that keep one hostile file, or many files sharing their imports,
// from making the index large.
const (
	maxImportsPerFile = 200 // imports expanded for one instruction file, all depths
	maxLinkHops       = 8   // symlinks followed from one path
)

// Build indexes every instruction file that files.json lists, reading the
// staged texts through tree (OUT/tree). It reads each text at most once
// and only what the index needs, and stores each text's imports once,
// however many files load it; an error means the tree could not be read.
// The index stays within its size bound (sizeBound); what the bound left
// out is named in Index.Warnings.
func Build(m *snapshot.Manifest, tree fs.FS) (*Index, error) {
	return buildWithin(m, tree, defaultBound)
}

func buildWithin(m *snapshot.Manifest, tree fs.FS, bound sizeBound) (*Index, error) {
	b := newBuilder(m, tree)
	idx := &Index{Schema: Schema, Files: []File{}, Imported: []Text{}}
	for _, p := range b.paths {
		agent, kind, dir, ok := Classify(p)
		if !ok {
			continue
		}
		f, err := b.file(p, agent, kind, dir)
		if err != nil {
			return nil, err
		}
		idx.Files = append(idx.Files, f)
	}
	if err := b.chains(idx, bound); err != nil {
		return nil, err
	}
	idx.texts = idx.lookup()
	return idx, nil
}

func newBuilder(m *snapshot.Manifest, tree fs.FS) *builder {
	b := &builder{
		tree:   tree,
		byPath: make(map[string]*snapshot.Entry, len(m.Files)),
		memo:   map[string]*parsed{},
		nodes:  map[string]*bnode{},
		pruned: m.Pruned,
	}
	for i := range m.Files {
		e := &m.Files[i]
		b.byPath[e.Path] = e
		b.paths = append(b.paths, e.Path)
	}
	slices.Sort(b.paths)
	return b
}

// Resolver finds the staged text behind a listed path the way the index
// does: itself, a duplicate's canonical copy, or a symlink's target inside
// the snapshot. REPO_MAP.md uses it so a symlinked AGENTS.md is measured
// through its target, not reported as unstaged.
type Resolver struct{ b *builder }

// NewResolver indexes m's paths once for many Source calls.
func NewResolver(m *snapshot.Manifest) *Resolver { return &Resolver{newBuilder(m, nil)} }

// Source returns the staged path holding p's text, or "" and why not.
func (r *Resolver) Source(p string) (string, string) { return r.b.source(p) }

type builder struct {
	tree    fs.FS
	byPath  map[string]*snapshot.Entry
	paths   []string // sorted
	pruned  []snapshot.Pruned
	memo    map[string]*parsed // by staged path
	nodes   map[string]*bnode  // texts imports can load, by the path naming them
	br      *bufio.Reader      // reused for every file: Build reads one at a time
	scratch scratch
}

// file builds one instruction file's entry.
func (b *builder) file(p, agent, kind, dir string) (File, error) {
	e := b.byPath[p]
	f := File{Path: p, Agent: agent, Kind: kind, Dir: dir, Activation: defaultActivation(kind), BodyLine: 1, LinkTarget: e.LinkTarget}
	src, why := b.source(p)
	if src == "" {
		f.Warnings = append(f.Warnings, why+"; its text is not in the snapshot")
		return f, nil
	}
	f.Source = src
	wantImports := agent == AgentClaude
	pt, err := b.parse(src, wantImports)
	if err != nil {
		return f, err
	}
	f.Chars, f.Tokens, f.BodyLine = pt.chars, b.byPath[src].Tokens, pt.bodyLine
	if pt.frontErr != "" && hasFrontMatterRules(kind) {
		f.Warnings = append(f.Warnings, fmt.Sprintf("front matter is not valid YAML (%s); read line by line", pt.frontErr))
	}
	b.applyFront(&f, pt.front)
	if f.Chars > WarnChars {
		f.Warnings = append(f.Warnings, fmt.Sprintf("%s characters, over the %s-character warning", thousands(f.Chars), thousands(WarnChars)))
	}
	if pt.partial {
		f.Warnings = append(f.Warnings, fmt.Sprintf("only the first %d MiB were searched for imports", maxParseBytes>>20))
	}
	f.TotalChars, f.TotalTokens = f.Chars, f.Tokens
	if wantImports {
		// Its own imports, resolved once: chains (Build's second step)
		// follow them, and those of the texts they load.
		b.nodes[p] = &bnode{node: node{source: src, chars: f.Chars, tokens: f.Tokens, refs: b.refs(p, pt.imports)}, isFile: true}
	}
	return f, nil
}

func defaultActivation(kind string) string {
	switch kind {
	case KindCursorRule, KindCopilotScoped:
		return OnRequest
	}
	return Always
}

func hasFrontMatterRules(kind string) bool {
	return kind == KindClaudeRule || kind == KindCursorRule || kind == KindCopilotScoped
}

// applyFront sets the scope a rule's front matter gives it.
func (b *builder) applyFront(f *File, front map[string]any) {
	if !hasFrontMatterRules(f.Kind) || front == nil {
		return
	}
	var globKey string
	switch f.Kind {
	case KindClaudeRule:
		globKey = "paths"
	case KindCursorRule:
		globKey = "globs"
	case KindCopilotScoped:
		globKey = "applyTo"
	}
	if d, ok := front["description"].(string); ok && f.Kind != KindClaudeRule {
		f.Description = strings.TrimSpace(d)
	}
	globs, present, problem := frontStrings(front, globKey)
	if problem != "" {
		f.Warnings = append(f.Warnings, "front matter "+problem)
	}
	for _, g := range globs {
		g = strings.TrimPrefix(strings.TrimPrefix(g, "./"), "/")
		if !doublestar.ValidatePattern(g) {
			f.Warnings = append(f.Warnings, fmt.Sprintf("front matter %s: %q is not a valid glob; ignored", globKey, g))
			continue
		}
		f.Globs = append(f.Globs, g)
	}
	if f.Kind == KindCursorRule {
		switch v := front["alwaysApply"].(type) {
		case bool:
			if v {
				f.Activation = Always
				return
			}
		case nil:
		default:
			f.Warnings = append(f.Warnings, fmt.Sprintf("front matter alwaysApply: %v is not a boolean; taken as false", v))
		}
	}
	switch {
	case len(f.Globs) > 0:
		f.Activation = Globs
	case present && f.Kind == KindClaudeRule:
		// paths: given but empty or all invalid: the rule matches nothing.
		f.Activation = Globs
		f.Warnings = append(f.Warnings, "front matter paths: no valid glob; the rule applies to no file")
	}
}

// parse reads a staged file once; later calls reuse the result.
func (b *builder) parse(src string, wantImports bool) (*parsed, error) {
	if pt, ok := b.memo[src]; ok && (pt.scannedImports || !wantImports) {
		return pt, nil
	}
	fh, err := b.tree.Open(src)
	if err != nil {
		return nil, fmt.Errorf("instructions: read %s: %w", src, err)
	}
	defer fh.Close()
	if b.br == nil {
		b.br = bufio.NewReaderSize(fh, 64<<10)
	} else {
		b.br.Reset(fh)
	}
	pt, err := scanWith(b.br, wantImports, &b.scratch)
	if err != nil {
		return nil, fmt.Errorf("instructions: read %s: %w", src, err)
	}
	pt.scannedImports = wantImports
	b.memo[src] = pt
	return pt, nil
}

// source returns the staged path that holds p's text, following duplicates
// to their canonical copy and symlinks to their target inside the snapshot,
// or "" and why not.
func (b *builder) source(p string) (string, string) {
	src, why, _ := b.sourceOf(p)
	return src, why
}

// sourceOf is source, and whether p has no text because a symlink on the
// way leaves the snapshot.
func (b *builder) sourceOf(p string) (src, why string, leaves bool) {
	start := p
	for hop := 0; hop <= maxLinkHops; hop++ {
		e, ok := b.byPath[p]
		if !ok {
			why := b.absent(p)
			if b.isDir(p) {
				why = fmt.Sprintf("%s is a directory", p)
			}
			if p != start {
				why = fmt.Sprintf("%s is a symlink to %s, but %s", start, p, why)
			}
			return "", why, false
		}
		switch {
		case e.Staged:
			return p, "", false
		case e.DuplicateOf != "":
			if c, ok := b.byPath[e.DuplicateOf]; ok && c.Staged {
				return c.Path, "", false
			}
			return "", fmt.Sprintf("%s is a duplicate of %s, which is not staged", p, e.DuplicateOf), false
		case e.Reason == "symlink" && e.LinkTarget != "":
			t := e.LinkTarget
			if path.IsAbs(t) || strings.HasPrefix(t, "~") {
				return "", fmt.Sprintf("%s is a symlink to %s, outside the snapshot", start, t), true
			}
			next := path.Join(parentDir(p), t)
			if next == ".." || strings.HasPrefix(next, "../") {
				return "", fmt.Sprintf("%s is a symlink to %s, which leaves the snapshot", start, t), true
			}
			p = next
		default:
			why := e.Reason
			if why == "" {
				why = e.Category
			}
			if p != start {
				return "", fmt.Sprintf("%s leads to %s, which is not staged (%s)", start, p, why), false
			}
			return "", fmt.Sprintf("not staged (%s)", why), false
		}
	}
	return "", fmt.Sprintf("%s: more than %d symlinks in a row", start, maxLinkHops), false
}

// absent says why a path is not in files.json: under a pruned directory, or
// simply not there.
func (b *builder) absent(p string) string {
	for _, pr := range b.pruned {
		if under(p, pr.Path) {
			return fmt.Sprintf("%s is under %s, which was not scanned (%s)", p, pr.Path, pr.Reason)
		}
	}
	return fmt.Sprintf("%s is not in the snapshot", p)
}

// isDir reports whether some listed path lies under p.
func (b *builder) isDir(p string) bool {
	prefix := p + "/"
	i, _ := slices.BinarySearch(b.paths, prefix)
	return i < len(b.paths) && strings.HasPrefix(b.paths[i], prefix)
}

// thousands formats n with comma separators, as the warnings quote sizes.
func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
