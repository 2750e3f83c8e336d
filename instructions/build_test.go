package instructions

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/repoprep/repoprep/snapshot"
)

// build indexes a staged tree given as path -> content; symlinks are
// "->target" contents, listed but not staged.
func build(t *testing.T, files map[string]string) *Index {
	t.Helper()
	tree := fstest.MapFS{}
	m := &snapshot.Manifest{Schema: snapshot.FilesSchema}
	for p, c := range files {
		if target, ok := strings.CutPrefix(c, "->"); ok {
			m.Files = append(m.Files, snapshot.Entry{Path: p, Category: "junk", Reason: "symlink", LinkTarget: target})
			continue
		}
		tree[p] = &fstest.MapFile{Data: []byte(c)}
		m.Files = append(m.Files, snapshot.Entry{Path: p, Staged: true, Tokens: len(c)})
	}
	slices.SortFunc(m.Files, func(a, b snapshot.Entry) int { return strings.Compare(a.Path, b.Path) })
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
	loaded := func(f File) []Import {
		imps, _ := idx.Load(&f)
		return imps
	}
	root := get("CLAUDE.md")
	want := []string{"a.md=ok", "a.md=repeat", "link.md=repeat", "dir=missing", "x/../a.md=repeat"}
	if got := statuses(loaded(root)); !slices.Equal(got, want) {
		t.Errorf("root imports %q, want %q", got, want)
	}
	if root.TotalChars != root.Chars+2 {
		t.Errorf("total chars %d: a.md must count once", root.TotalChars)
	}
	if got := statuses(loaded(get("self/CLAUDE.md"))); !slices.Equal(got, []string{"CLAUDE.md=cycle"}) {
		t.Errorf("a file importing itself: %q", got)
	}
	if f := get("up/CLAUDE.md"); f.Source != "CLAUDE.md" || f.Dir != "up" || len(f.Imports) != 5 {
		t.Errorf("symlinked CLAUDE.md: source %q dir %q imports %d", f.Source, f.Dir, len(f.Imports))
	}
	if f := get("loop/CLAUDE.md"); f.Source != "" || len(f.Warnings) != 1 || !strings.Contains(f.Warnings[0], "more than 8 symlinks") {
		t.Errorf("a symlink to itself: source %q warnings %q", f.Source, f.Warnings)
	}
	imps := loaded(get("many/CLAUDE.md"))
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

func TestAppliesToDirectories(t *testing.T) {
	listed := []string{"pkg/docs/a.md", "pkg/src/a.go", "pkg/src/b/c.go", "src/x.go", "z.go"}
	calls := 0
	anyListed := func(prefix string, match func(string) bool) bool {
		calls++
		for _, p := range listed {
			if strings.HasPrefix(p, prefix) && match(p) {
				return true
			}
		}
		return false
	}
	f := &File{Dir: "pkg", Activation: Globs, Globs: []string{"src/**/*.go"}}
	for _, tc := range []struct {
		path  string
		isDir bool
		want  bool
	}{
		{"pkg", true, true},           // a file under it matches
		{"pkg/src", true, true},       // the glob's own directory
		{"pkg/src/b", true, true},     // below it
		{"pkg/docs", true, false},     // the glob's directories lie elsewhere
		{"src", true, false},          // outside the rule's directory
		{"", true, false},             // the root is above it
		{"pkg/src/a.go", false, true}, // a file matches itself
		{"pkg/docs/a.md", false, false},
	} {
		calls = 0
		if got := f.Applies(tc.path, tc.isDir, anyListed); got != tc.want {
			t.Errorf("Applies(%q, dir=%v) = %v, want %v", tc.path, tc.isDir, got, tc.want)
		}
		if tc.path == "pkg/docs" && calls != 0 {
			t.Errorf("pkg/docs: %d scans of the listing, want none", calls)
		}
	}
	for g, want := range map[string]string{"src/**/*.go": "src/", "*.md": "", "**/*.ts": "", "a/b/c.go": "a/b/", "a/{b,c}/d": "a/", "docs/**": "docs/"} {
		if got := globDir(g); got != want {
			t.Errorf("globDir(%q) = %q, want %q", g, got, want)
		}
	}
}

// TestMatchShortcut: the base-name shortcut for "**/x" globs agrees with
// doublestar on every path.
func TestMatchShortcut(t *testing.T) {
	paths := []string{"a.ts", "x/a.ts", "x/y/a.ts", "a.tsx", "x/a.ts/b", ".ts", "x/.hidden.ts", "a/b/c.test.ts", "ts"}
	for _, g := range []string{"**/*.ts", "**/a.ts", "**/*.{ts,tsx}", "**/*.test.ts", "**/[ab].ts", "**/*"} {
		f := &File{Globs: []string{g}}
		for _, p := range paths {
			want, _ := doublestar.Match(g, p)
			if got := f.Matches(p); got != want {
				t.Errorf("%q on %q: %v, doublestar says %v", g, p, got, want)
			}
		}
	}
}
