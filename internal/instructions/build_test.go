package instructions

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/repoprep/repoprep/internal/manifest"
)

// build indexes a staged tree given as path -> content; symlinks are
// "->target" contents, listed but not staged.
func build(t *testing.T, files map[string]string) *Index {
	t.Helper()
	tree := fstest.MapFS{}
	m := &manifest.Manifest{Schema: manifest.FilesSchema}
	for p, c := range files {
		if target, ok := strings.CutPrefix(c, "->"); ok {
			m.Files = append(m.Files, manifest.Entry{Path: p, Category: "junk", Reason: "symlink", LinkTarget: target})
			continue
		}
		tree[p] = &fstest.MapFile{Data: []byte(c)}
		m.Files = append(m.Files, manifest.Entry{Path: p, Staged: true, Tokens: len(c)})
	}
	slices.SortFunc(m.Files, func(a, b manifest.Entry) int { return strings.Compare(a.Path, b.Path) })
	idx, err := Build(m, tree)
	if err != nil {
		t.Fatal(err)
	}
	return idx
}

func statuses(imps []Import) []string {
	var out []string
	for _, im := range imps {
		out = append(out, im.Spec+"="+im.Status)
		for _, s := range statuses(im.Imports) {
			out = append(out, "  "+s)
		}
	}
	return out
}

func TestBuildImports(t *testing.T) {
	many := strings.Builder{}
	files := map[string]string{}
	for i := range maxImportsPerFile + 3 {
		fmt.Fprintf(&many, "@n/%d.md\n", i)
		files[fmt.Sprintf("n/%d.md", i)] = "x\n"
	}
	files["many/CLAUDE.md"] = strings.ReplaceAll(many.String(), "@n/", "@../n/")
	files["CLAUDE.md"] = "@a.md and again @a.md; @link.md; @dir and @x/../a.md\n"
	files["a.md"] = "A\n"
	files["link.md"] = "->a.md"
	files["dir/f.md"] = "in a directory\n"
	files["up/CLAUDE.md"] = "->../CLAUDE.md"
	files["loop/CLAUDE.md"] = "->CLAUDE.md" // itself
	files["self/CLAUDE.md"] = "@CLAUDE.md\n"
	idx := build(t, files)
	get := func(p string) File {
		i := slices.IndexFunc(idx.Files, func(f File) bool { return f.Path == p })
		if i < 0 {
			t.Fatalf("%s not indexed", p)
		}
		return idx.Files[i]
	}
	root := get("CLAUDE.md")
	want := []string{"a.md=ok", "a.md=repeat", "link.md=repeat", "dir=missing", "x/../a.md=repeat"}
	if got := statuses(root.Imports); !slices.Equal(got, want) {
		t.Errorf("root imports %q, want %q", got, want)
	}
	if root.TotalChars != root.Chars+2 {
		t.Errorf("total chars %d: a.md must count once", root.TotalChars)
	}
	if got := statuses(get("self/CLAUDE.md").Imports); !slices.Equal(got, []string{"CLAUDE.md=cycle"}) {
		t.Errorf("a file importing itself: %q", got)
	}
	if f := get("up/CLAUDE.md"); f.Source != "CLAUDE.md" || f.Dir != "up" || len(f.Imports) != 5 {
		t.Errorf("symlinked CLAUDE.md: source %q dir %q imports %d", f.Source, f.Dir, len(f.Imports))
	}
	if f := get("loop/CLAUDE.md"); f.Source != "" || len(f.Warnings) != 1 || !strings.Contains(f.Warnings[0], "more than 8 symlinks") {
		t.Errorf("a symlink to itself: source %q warnings %q", f.Source, f.Warnings)
	}
	imps := get("many/CLAUDE.md").Imports
	ok := 0
	for _, im := range imps {
		if im.Status == ImportOK {
			ok++
		} else if im.Status != ImportTooMany {
			t.Errorf("%s: %s", im.Spec, im.Status)
		}
	}
	if ok != maxImportsPerFile || len(imps) != maxImportsPerFile+3 {
		t.Errorf("%d of %d imports followed, want %d", ok, len(imps), maxImportsPerFile)
	}
}

func TestClassify(t *testing.T) {
	for _, tc := range []struct{ path, agent, kind, dir string }{
		{"CLAUDE.md", AgentClaude, KindMemory, ""},
		{"a/b/CLAUDE.md", AgentClaude, KindMemory, "a/b"},
		{".claude/CLAUDE.md", AgentClaude, KindMemory, ""},
		{"pkg/.claude/CLAUDE.md", AgentClaude, KindMemory, "pkg"},
		{"CLAUDE.local.md", AgentClaude, KindLocalMemory, ""},
		{".claude/rules/go.md", AgentClaude, KindClaudeRule, ""},
		{".claude/rules/backend/api.md", AgentClaude, KindClaudeRule, ""},
		{"pkg/.claude/rules/x.md", AgentClaude, KindClaudeRule, "pkg"},
		{"AGENTS.md", AgentAgents, KindAgentsMD, ""},
		{"web/AGENTS.md", AgentAgents, KindAgentsMD, "web"},
		{".cursorrules", AgentCursor, KindCursorRules, ""},
		{".cursor/rules/go.mdc", AgentCursor, KindCursorRule, ""},
		{"app/.cursor/rules/x/y.mdc", AgentCursor, KindCursorRule, "app"},
		{".github/copilot-instructions.md", AgentCopilot, KindCopilot, ""},
		{".github/instructions/ts.instructions.md", AgentCopilot, KindCopilotScoped, ""},
		{".github/instructions/a/b.instructions.md", AgentCopilot, KindCopilotScoped, ""},
		{"docs/CLAUDE.md.bak", "", "", ""},
		{".claude/settings.json", "", "", ""},
		{".claude/rules/notes.txt", "", "", ""},
		{".cursor/rules/readme.md", "", "", ""},
		{".github/instructions/.instructions.md", "", "", ""},
		{"docs/copilot-instructions.md", "", "", ""},
		{"agents.md", "", "", ""},
	} {
		agent, kind, dir, _ := Classify(tc.path)
		if agent != tc.agent || kind != tc.kind || dir != tc.dir {
			t.Errorf("Classify(%q) = %q %q %q, want %q %q %q", tc.path, agent, kind, dir, tc.agent, tc.kind, tc.dir)
		}
	}
}
