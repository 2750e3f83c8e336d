package instructions

import (
	"path"
	"strings"
)

// Classify says whether the snapshot path p is an instruction file some
// agent reads on its own, which family and kind it is, and the directory it
// governs ("" for the root): the directory holding it, or, for files kept
// under .claude/, .cursor/ or .github/, the directory holding that.
func Classify(p string) (agent, kind, dir string, ok bool) {
	base := path.Base(p)
	parent := parentDir(p)
	switch {
	case strings.HasSuffix(p, ".md") && hasSegments(p, ".claude/rules"):
		return AgentClaude, KindClaudeRule, before(p, ".claude/rules"), true
	case base == "CLAUDE.md" && path.Base(parent) == ".claude":
		return AgentClaude, KindMemory, parentDir(parent), true
	case base == "CLAUDE.md":
		return AgentClaude, KindMemory, parent, true
	case base == "CLAUDE.local.md":
		return AgentClaude, KindLocalMemory, parent, true
	case base == "AGENTS.md":
		return AgentAgents, KindAgentsMD, parent, true
	case base == ".cursorrules":
		return AgentCursor, KindCursorRules, parent, true
	case strings.HasSuffix(p, ".mdc") && hasSegments(p, ".cursor/rules"):
		return AgentCursor, KindCursorRule, before(p, ".cursor/rules"), true
	case base == "copilot-instructions.md" && path.Base(parent) == ".github":
		return AgentCopilot, KindCopilot, parentDir(parent), true
	case strings.HasSuffix(base, ".instructions.md") && len(base) > len(".instructions.md") && hasSegments(p, ".github/instructions"):
		return AgentCopilot, KindCopilotScoped, before(p, ".github/instructions"), true
	}
	return "", "", "", false
}

// parentDir is path.Dir with "" for the root.
func parentDir(p string) string {
	d := path.Dir(p)
	if d == "." || d == "/" {
		return ""
	}
	return d
}

// hasSegments reports whether the directory part of p contains the
// segments seq ("a/b") as whole segments.
func hasSegments(p, seq string) bool {
	dir := "/" + parentDir(p) + "/"
	return strings.Contains(dir, "/"+seq+"/")
}

// before returns the directory above the last occurrence of the segments
// seq in p's directory part.
func before(p, seq string) string {
	dir := "/" + parentDir(p) + "/"
	i := strings.LastIndex(dir, "/"+seq+"/")
	return strings.Trim(dir[:i], "/")
}

// under reports whether p is dir or lies below it ("" holds everything).
func under(p, dir string) bool {
	return dir == "" || p == dir || strings.HasPrefix(p, dir+"/")
}

// rel returns p relative to dir, which must hold it.
func rel(p, dir string) string {
	if dir == "" {
		return p
	}
	return strings.TrimPrefix(strings.TrimPrefix(p, dir), "/")
}

// depth counts the segments of a directory ("" is 0).
func depth(dir string) int {
	if dir == "" {
		return 0
	}
	return strings.Count(dir, "/") + 1
}
