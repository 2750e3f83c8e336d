package instructions

import (
	"cmp"
	"path"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// Applies reports whether an agent working on p loads f on its own. p is a
// snapshot path; isDir says it names a directory, and then a glob-scoped
// file applies when it matches p itself or some file listed under p.
// anyListed(prefix, match) reports whether match accepts a listed path that
// starts with prefix ("" for any); each glob asks only about the paths its
// literal directories allow ("src/api/**/*.go" about "src/api/"), so a
// directory query on a large tree does not try every glob on every file. A
// directory's own instruction files apply to it, files in directories below
// it do not (agents load those only when they read there).
func (f *File) Applies(p string, isDir bool, anyListed func(prefix string, match func(string) bool) bool) bool {
	if f.Activation == OnRequest || !under(p, f.Dir) {
		return false
	}
	if f.Activation == Always {
		return true
	}
	if f.Matches(p) {
		return true
	}
	if !isDir || anyListed == nil {
		return false
	}
	sub := ""
	if p != "" {
		sub = p + "/"
	}
	for _, g := range f.Globs {
		want := globDir(g)
		if f.Dir != "" {
			want = f.Dir + "/" + want
		}
		var prefix string
		switch {
		case strings.HasPrefix(want, sub):
			prefix = want
		case strings.HasPrefix(sub, want):
			prefix = sub
		default:
			continue // the glob's directories lie elsewhere
		}
		if anyListed(prefix, func(q string) bool { return f.matchOne(g, q) }) {
			return true
		}
	}
	return false
}

// globDir is the literal directory part a glob's matches all start with:
// "src/api/" for "src/api/**/*.go", "" for "**/*.ts" or "*.md".
func globDir(g string) string {
	segs := strings.Split(g, "/")
	n := 0
	for n < len(segs)-1 && !strings.ContainsAny(segs[n], "*?[{\\") {
		n++
	}
	if n == 0 {
		return ""
	}
	return strings.Join(segs[:n], "/") + "/"
}

// Matches reports whether one of f's globs matches p, taken relative to the
// directory f governs.
func (f *File) Matches(p string) bool {
	for _, g := range f.Globs {
		if f.matchOne(g, p) {
			return true
		}
	}
	return false
}

func (f *File) matchOne(g, p string) bool {
	if !under(p, f.Dir) {
		return false
	}
	r := rel(p, f.Dir)
	// "**/*.ts" is the commonest glob: when the rest has no '/', it matches
	// the base name at any depth, which costs a fraction of the full match.
	if rest, ok := strings.CutPrefix(g, "**/"); ok && !strings.Contains(rest, "/") && !strings.Contains(rest, "**") {
		ok, err := doublestar.Match(rest, path.Base(r))
		return err == nil && ok
	}
	ok, err := doublestar.Match(g, r)
	return err == nil && ok
}

// Order sorts files the way an answer lists them: outermost directory
// first; within one directory Claude's memory, rules and local memory,
// then AGENTS.md, Cursor's and Copilot's files; then by path.
func Order(files []*File) {
	slices.SortStableFunc(files, func(a, b *File) int {
		return cmp.Or(
			cmp.Compare(depth(a.Dir), depth(b.Dir)),
			cmp.Compare(a.Dir, b.Dir),
			cmp.Compare(kindRank(a), kindRank(b)),
			cmp.Compare(a.Path, b.Path),
		)
	})
}

// kindRank orders the files of one directory: CLAUDE.md before
// .claude/CLAUDE.md (both are the project memory), then rules and local
// memory as Claude Code loads them, then the other families.
func kindRank(f *File) int {
	switch f.Kind {
	case KindMemory:
		if path.Base(parentDir(f.Path)) == ".claude" {
			return 1
		}
		return 0
	case KindClaudeRule:
		return 2
	case KindLocalMemory:
		return 3
	case KindAgentsMD:
		return 4
	case KindCursorRules:
		return 5
	case KindCursorRule:
		return 6
	case KindCopilot:
		return 7
	}
	return 8
}
