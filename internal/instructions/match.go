package instructions

import (
	"cmp"
	"path"
	"slices"

	"github.com/bmatcuk/doublestar/v4"
)

// Applies reports whether an agent working on p loads f on its own. p is a
// snapshot path; isDir says it names a directory, and then a glob-scoped
// file applies when it matches p itself or, as reported by anyFileUnder,
// some file listed under p. A directory's own instruction files apply to
// it, files in directories below it do not (agents load those only when
// they read there).
func (f *File) Applies(p string, isDir bool, anyFileUnder func(dir string, match func(string) bool) bool) bool {
	if f.Activation == OnRequest || !under(p, f.Dir) {
		return false
	}
	if f.Activation == Always {
		return true
	}
	if f.Matches(p) {
		return true
	}
	return isDir && anyFileUnder != nil && anyFileUnder(p, f.Matches)
}

// Matches reports whether one of f's globs matches p, taken relative to the
// directory f governs.
func (f *File) Matches(p string) bool {
	if !under(p, f.Dir) {
		return false
	}
	r := rel(p, f.Dir)
	for _, g := range f.Globs {
		if ok, err := doublestar.Match(g, r); err == nil && ok {
			return true
		}
	}
	return false
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
