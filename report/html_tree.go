package report

import (
	"container/heap"
	"path"
	"sort"
	"strings"

	"github.com/repoprep/repoprep/snapshot"
)

// The treemap's data: the staged tokens as a tree of directories, embedded
// in report.html as JSON for the page's script to draw. A tree of 11,000
// files would be a megabyte of JSON and cells no one can read, so it is
// bounded at treeMaxCells: the directory holding the most tokens is opened
// first, then the next largest of what is shown, until the budget is
// spent; a directory left closed is one cell, and the files and
// directories that did not fit when one was opened are summed in one
// "other" cell (named "").

// treeMaxCells bounds the treemap's cells: at about 50 bytes a cell the
// data stays under 100 KB, whatever the tree.
const treeMaxCells = 1500

// treeNode is one cell: N its name (a path segment, or "" for the rest of
// a directory's files), T its tokens, F its staged files, D whether it is
// a directory (or the rest of one), C its cells. The JSON names are short:
// the page embeds one object per cell.
type treeNode struct {
	N string      `json:"n"`
	T int64       `json:"t"`
	F int         `json:"f"`
	D bool        `json:"d,omitempty"`
	C []*treeNode `json:"c,omitempty"`

	path  string      // from the root, for a total order among equal cells
	dirs  []*treeNode // its directories, until it is opened
	files []int32     // its files (indexes into files.json), until it is opened
}

// tokenTree builds the bounded tree of m's staged tokens, cells sorted by
// tokens, most first, then by name (the same manifest gives the same
// bytes). The root is named name.
func tokenTree(m *snapshot.Manifest, name string) *treeNode {
	root := &treeNode{N: name, D: true}
	order := make([]int, 0, len(m.Files))
	for i := range m.Files {
		if m.Files[i].Staged {
			order = append(order, i)
		}
	}
	// files.json is sorted by path, so a directory's files are adjacent and
	// the tree grows from a stack of open directories, without a map; a
	// caller's unsorted manifest is sorted here.
	if !sort.SliceIsSorted(order, func(i, j int) bool { return m.Files[order[i]].Path < m.Files[order[j]].Path }) {
		sort.SliceStable(order, func(i, j int) bool { return m.Files[order[i]].Path < m.Files[order[j]].Path })
	}
	stack := []*treeNode{root} // stack[k] is the open directory k levels down
	for _, i := range order {
		e := &m.Files[i]
		// Keep the open directories this path shares, then open its others.
		depth, start := 1, 0
		for {
			j := strings.IndexByte(e.Path[start:], '/')
			if j < 0 {
				break
			}
			seg := e.Path[start : start+j]
			if depth < len(stack) && stack[depth].N == seg {
				depth++
				start += j + 1
				continue
			}
			stack = stack[:depth]
			d := &treeNode{N: seg, D: true, path: e.Path[:start+j]}
			parent := stack[depth-1]
			parent.dirs = append(parent.dirs, d)
			stack = append(stack, d)
			depth++
			start += j + 1
		}
		stack = stack[:depth]
		for _, d := range stack {
			d.T += int64(e.Tokens)
			d.F++
		}
		dir := stack[depth-1]
		dir.files = append(dir.files, int32(i))
	}
	open := &treeHeap{root}
	budget := treeMaxCells - 1
	for open.Len() > 0 && budget > 0 {
		n := heap.Pop(open).(*treeNode)
		for _, c := range n.expand(m, budget) {
			budget--
			if len(c.dirs)+len(c.files) > 0 {
				heap.Push(open, c)
			}
		}
		if len(n.C) > 0 && n.C[len(n.C)-1].N == "" {
			budget-- // the "other" cell
		}
	}
	return root
}

// expand makes n's children its cells, largest first, as many as budget
// allows (keeping one for "other" when they do not all fit); children
// without tokens go to "other" too, having no area to draw. It returns
// the children it made cells. A file becomes a node only here, and only
// when it is a cell: a directory of 100,000 files costs its index list.
func (n *treeNode) expand(m *snapshot.Manifest, budget int) []*treeNode {
	type kid struct {
		dir   *treeNode // a directory, or nil for the file m.Files[file]
		file  int32
		t     int64
		key   string // its path, for the order among equal cells
		files int
	}
	kids := make([]kid, 0, len(n.dirs)+len(n.files))
	for _, d := range n.dirs {
		kids = append(kids, kid{dir: d, t: d.T, key: d.path, files: d.F})
	}
	for _, i := range n.files {
		e := &m.Files[i]
		kids = append(kids, kid{file: i, t: int64(e.Tokens), key: e.Path, files: 1})
	}
	n.dirs, n.files = nil, nil
	sort.Slice(kids, func(i, j int) bool {
		if kids[i].t != kids[j].t {
			return kids[i].t > kids[j].t
		}
		return kids[i].key < kids[j].key
	})
	take := len(kids)
	for take > 0 && kids[take-1].t == 0 {
		take--
	}
	if take < len(kids) || take > budget {
		take = min(take, budget-1) // one cell for the rest
	}
	if take <= 0 {
		return nil // no room: n stays one cell
	}
	n.C = make([]*treeNode, take, take+1)
	for i, k := range kids[:take] {
		if k.dir == nil {
			e := &m.Files[k.file]
			k.dir = &treeNode{N: path.Base(e.Path), T: k.t, F: 1, path: e.Path}
		}
		n.C[i] = k.dir
	}
	if take < len(kids) {
		rest := &treeNode{D: true}
		for _, k := range kids[take:] {
			rest.T += k.t
			rest.F += k.files
		}
		n.C = append(n.C, rest)
	}
	return n.C[:take]
}

// before orders cells by tokens, most first, then by path.
func before(a, b *treeNode) bool {
	if a.T != b.T {
		return a.T > b.T
	}
	return a.path < b.path
}

// treeHeap holds the cells that could be opened, largest first.
type treeHeap []*treeNode

func (h treeHeap) Len() int           { return len(h) }
func (h treeHeap) Less(i, j int) bool { return before(h[i], h[j]) }
func (h treeHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *treeHeap) Push(x any)        { *h = append(*h, x.(*treeNode)) }
func (h *treeHeap) Pop() any {
	old := *h
	n := old[len(old)-1]
	*h = old[:len(old)-1]
	return n
}
