package instructions

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/repoprep/repoprep/snapshot"
)

// sizeBound is how large instructions.json may grow: perChar bytes for
// each character of the texts it indexes (each text once), never less
// than min bytes nor more than max. Only imports are ever left out: every
// instruction file is listed, with its scope and sizes.
type sizeBound struct {
	perChar, min, max int
}

// defaultBound allows four bytes of index for each character of text: a
// file's own imports cost about seven bytes of JSON for each byte of an
// "@path" line, and prose costs nothing, so only files whose imports load
// far more than they hold come near it. A megabyte is always allowed.
var defaultBound = sizeBound{perChar: 4, min: 1 << 20, max: 16 << 20}

// maxNamedLeftOut is how many files the index warning names.
const maxNamedLeftOut = 10

// bnode is a node while Build runs.
type bnode struct {
	node
	isFile bool // a Claude instruction file's own text: its Refs can stay on its File
	stored bool // its Refs are in the index
	size   int  // what storing its Refs costs, estimated; 0 until asked
}

// load is the walker's load during Build: the text at p, read and its
// imports resolved the first time any chain reaches it.
func (b *builder) load(p string) (*node, error) {
	if n, ok := b.nodes[p]; ok {
		return &n.node, nil
	}
	src, _, _ := b.sourceOf(p) // the Ref was ImportOK: p has a staged text
	pt, err := b.parse(src, true)
	if err != nil {
		return nil, err
	}
	n := &bnode{node: node{source: src, chars: pt.chars, tokens: b.byPath[src].Tokens, refs: b.refs(p, pt.imports)}}
	b.nodes[p] = n
	return &n.node, nil
}

// chains follows each Claude file's imports and keeps, within the size
// bound, its chain and the Refs of every text the chain loads. It walks
// twice: once to total each file and learn which texts the index covers
// (the bound is a multiple of their characters), once more, nearest the
// root first, to keep what fits.
func (b *builder) chains(idx *Index, bound sizeBound) error {
	var roots []int
	for i := range idx.Files {
		if f := &idx.Files[i]; f.Agent == AgentClaude && f.Source != "" {
			roots = append(roots, i)
		}
	}
	for _, i := range roots {
		f := &idx.Files[i]
		w := newWalker(f, b.load)
		if _, err := w.walkRoot(b.nodes[f.Path].refs); err != nil {
			return err
		}
		f.TotalChars += w.chars
		f.TotalTokens += w.tokens
	}
	k := b.newKeeper(idx, roots, bound)
	slices.SortStableFunc(roots, func(i, j int) int {
		a, c := &idx.Files[i], &idx.Files[j]
		return cmp.Or(cmp.Compare(depth(a.Dir), depth(c.Dir)), cmp.Compare(a.Path, c.Path))
	})
	for _, i := range roots {
		if err := k.keep(&idx.Files[i]); err != nil {
			return err
		}
	}
	k.store()
	return nil
}

// keeper decides, file by file, whose chains the index keeps.
type keeper struct {
	b      *builder
	idx    *Index
	bound  sizeBound
	roots  int // Claude files with a text
	chars  int // of the texts the index covers, each once
	limit  int // bytes
	used   int // bytes, estimated
	kept   map[string]bool
	left   []string
	leftOf string // the warning on a file left out
}

func (b *builder) newKeeper(idx *Index, roots []int, bound sizeBound) *keeper {
	k := &keeper{b: b, idx: idx, bound: bound, roots: len(roots), kept: map[string]bool{}}
	chars := map[string]int{} // by staged text
	for i := range idx.Files {
		if f := &idx.Files[i]; f.Source != "" {
			chars[f.Source] = f.Chars
		}
	}
	for _, n := range b.nodes {
		chars[n.source] = n.chars
	}
	for _, c := range chars {
		k.chars += c
	}
	k.limit = min(max(bound.perChar*k.chars, bound.min), bound.max)
	k.leftOf = fmt.Sprintf("imports left out: %s reached its size bound (%s bytes); read what this file names with read_file", snapshot.InstructionsJSON, thousands(k.limit))
	// Room for what the bound cannot leave out: the files, the index's
	// own warning, which names up to maxNamedLeftOut of them; on each
	// file, the warning that its imports were left out (given back when
	// they are kept) and the one about its size with them.
	longest := 0
	k.used = baseSize(idx) + 1024
	for _, i := range roots {
		f := &idx.Files[i]
		longest = max(longest, len(f.Path))
		k.used += warningSize(k.leftOf)
		if b.tooLargeWithImports(f) {
			k.used += warningSize(totalWarning(f.TotalChars))
		}
	}
	k.used += maxNamedLeftOut * (longest + 2)
	return k
}

// keep walks f's chain again and keeps it when it fits: its paths, its
// warnings and the Refs of every text on it not kept before.
func (k *keeper) keep(f *File) error {
	own := k.b.nodes[f.Path]
	w := newWalker(f, k.b.load)
	if _, err := w.walkRoot(own.refs); err != nil {
		return err
	}
	if cw := w.chainWarning(); cw != "" {
		w.own = append(w.own, cw)
	}
	texts := append([]string{f.Path}, w.loaded...)
	cost := listSize(w.loaded) + listSize(w.own) - warningSize(k.leftOf)
	for _, p := range texts {
		if n := k.b.nodes[p]; !n.stored {
			cost += k.b.refsSize(p, n)
		}
	}
	if k.used+cost <= k.limit {
		k.used += cost
		k.kept[f.Path] = true
		for _, p := range texts {
			k.b.nodes[p].stored = true
		}
		f.Chain = w.loaded
		f.Warnings = append(f.Warnings, w.own...)
	} else {
		k.left = append(k.left, f.Path)
		f.Warnings = append(f.Warnings, k.leftOf)
	}
	if k.b.tooLargeWithImports(f) {
		f.Warnings = append(f.Warnings, totalWarning(f.TotalChars))
	}
	return nil
}

// store puts each kept text's Refs in the index once: on its File when
// that file kept its chain, else among Imported; and names what was left
// out.
func (k *keeper) store() {
	idx := k.idx
	for i := range idx.Files {
		if f := &idx.Files[i]; k.kept[f.Path] {
			f.Imports = k.b.nodes[f.Path].refs
		}
	}
	for p, n := range k.b.nodes {
		if n.stored && !(n.isFile && k.kept[p]) {
			idx.Imported = append(idx.Imported, Text{Path: p, Source: n.source, Chars: n.chars, Tokens: n.tokens, Imports: n.refs})
		}
	}
	slices.SortFunc(idx.Imported, func(a, c Text) int { return strings.Compare(a.Path, c.Path) })
	if len(k.left) == 0 {
		return
	}
	slices.Sort(k.left)
	named := k.left[:min(len(k.left), maxNamedLeftOut)]
	more := ""
	if n := len(k.left) - len(named); n > 0 {
		more = fmt.Sprintf(" and %d more", n)
	}
	idx.Warnings = append(idx.Warnings, fmt.Sprintf(
		"%s reached its size bound of %s bytes (%d bytes per character of the %s characters it indexes, at least %s, at most %s): the imports of %d of %d Claude files were left out: %s%s",
		snapshot.InstructionsJSON, thousands(k.limit), k.bound.perChar, thousands(k.chars), thousands(k.bound.min), thousands(k.bound.max),
		len(k.left), k.roots, strings.Join(named, ", "), more))
}

// tooLargeWithImports reports a file under WarnChars that its imports
// take over it.
func (b *builder) tooLargeWithImports(f *File) bool {
	return len(b.nodes[f.Path].refs) > 0 && f.TotalChars > WarnChars && f.Chars <= WarnChars
}

// totalWarning is the warning of a file whose imports take it over
// WarnChars; Load puts it after the import warnings, as Build found them.
func totalWarning(totalChars int) string {
	return fmt.Sprintf("%s characters with its imports, over the %s-character warning", thousands(totalChars), thousands(WarnChars))
}

// refsSize is what storing n's Refs costs: as a Text among Imported,
// the larger of the two places they may go.
func (b *builder) refsSize(p string, n *bnode) int {
	if n.size == 0 {
		n.size = textSize(p, n.source, n.chars, n.tokens, n.refs)
	}
	return n.size
}

// baseSize is the index without any Refs or chains, as encoded: what
// the bound can never leave out.
func baseSize(idx *Index) int {
	var c counter
	if err := snapshot.EncodeJSON(&c, idx); err != nil {
		return 0 // the index is plain data: it always encodes
	}
	return c.n
}

// The sizes below count bytes as snapshot.EncodeJSON writes them (two
// spaces a level), without encoding: a Text's fields and a File's sit
// three levels deep, their Refs' fields five. A string needing escapes
// is counted at its longest.

// textSize is the size of a Text among Imported.
func textSize(p, src string, chars, tokens int, refs []Ref) int {
	const in = 6
	n := in + in + 1 // "{" and "}," lines, one level up
	n += fieldSize(in, "path", strSize(p)) + fieldSize(in, "source", strSize(src)) +
		fieldSize(in, "chars", len(strconv.Itoa(chars))) + fieldSize(in, "tokens", len(strconv.Itoa(tokens)))
	if len(refs) > 0 {
		n += fieldSize(in, "imports", 1) + in + 2 // `"imports": [` and "],"
		for i := range refs {
			n += refSize(&refs[i])
		}
	}
	return n
}

// refSize is the size of one Ref in an imports list.
func refSize(r *Ref) int {
	const in = 10
	n := (in - 2) + 2 + (in - 2) + 3 // "{" and "}," lines
	n += fieldSize(in, "line", len(strconv.Itoa(r.Line))) + fieldSize(in, "spec", strSize(r.Spec)) + fieldSize(in, "status", strSize(r.Status))
	for _, f := range []struct{ key, v string }{{"path", r.Path}, {"source", r.Source}, {"detail", r.Detail}} {
		if f.v != "" {
			n += fieldSize(in, f.key, strSize(f.v))
		}
	}
	return n
}

// fieldSize is `"key": value,` on its own line.
func fieldSize(indent int, key string, value int) int {
	return indent + len(key) + 4 + value + 2
}

// strSize is a quoted string's size as encoding/json escapes it (an
// invalid byte becomes \ufffd: counted at six bytes a byte).
func strSize(s string) int {
	if !utf8.ValidString(s) {
		return 6*len(s) + 2
	}
	n := len(s) + 2
	for _, r := range s {
		switch {
		case r < 0x20 || r == '"' || r == '\\':
			n += 5 // \u00XX at most
		case r == '\u2028' || r == '\u2029':
			n += 3
		}
	}
	return n
}

// warningSize is one more warning on a File.
func warningSize(w string) int { return 8 + strSize(w) + 2 }

// listSize is a list of strings on a File: a line each, four levels deep.
func listSize(list []string) int {
	if len(list) == 0 {
		return 0
	}
	n := fieldSize(6, "chain", 1) + 6 + 2
	for _, s := range list {
		n += warningSize(s)
	}
	return n
}

type counter struct{ n int }

func (c *counter) Write(p []byte) (int, error) { c.n += len(p); return len(p), nil }
