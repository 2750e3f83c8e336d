package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	instr "github.com/repoprep/repoprep/instructions"
	"github.com/repoprep/repoprep/instructions/instructionstest"
	"github.com/repoprep/repoprep/internal/testkit"
	"github.com/repoprep/repoprep/internal/tokens"
	"github.com/repoprep/repoprep/snapshot"
)

// publishSource publishes the repository at src as a snapshot at out the
// way the pipeline lays one out, without the pipeline (serve sits above
// it): regular files staged, symlinks listed with their target as written,
// paths named in the root .gitignore listed as ignored, and
// instructions.json built by the same builder the pipeline calls.
func publishSource(t testing.TB, src, out string) {
	t.Helper()
	ignored := map[string]bool{}
	if gi, err := os.ReadFile(filepath.Join(src, ".gitignore")); err == nil {
		for l := range strings.SplitSeq(string(gi), "\n") {
			ignored[strings.TrimSpace(l)] = true
		}
	}
	m := snapshot.Manifest{Schema: snapshot.FilesSchema, Files: []snapshot.Entry{}, Pruned: []snapshot.Pruned{}}
	mustDo(t, os.MkdirAll(filepath.Join(out, "tree"), 0o755))
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		rel = filepath.ToSlash(rel)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			m.Files = append(m.Files, snapshot.Entry{Path: rel, Category: "junk", Reason: "symlink", LinkTarget: target})
		case ignored[rel]:
			m.Files = append(m.Files, snapshot.Entry{Path: rel, Category: "junk", Reason: "ignored"})
		default:
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			dst := filepath.Join(out, "tree", filepath.FromSlash(rel))
			mustDo(t, os.MkdirAll(filepath.Dir(dst), 0o755))
			mustDo(t, os.WriteFile(dst, data, 0o644))
			m.Files = append(m.Files, entryFor(rel, string(data), false))
		}
		return nil
	})
	mustDo(t, err)
	slices.SortFunc(m.Files, func(a, b snapshot.Entry) int { return strings.Compare(a.Path, b.Path) })
	idx, err := instr.Build(&m, os.DirFS(filepath.Join(out, "tree")))
	mustDo(t, err)
	for name, v := range map[string]any{"files.json": &m, "instructions.json": idx} {
		var buf bytes.Buffer
		mustDo(t, snapshot.EncodeJSON(&buf, v))
		mustDo(t, os.WriteFile(filepath.Join(out, name), buf.Bytes(), 0o644))
	}
	mustDo(t, os.WriteFile(filepath.Join(out, "REPO_MAP.md"), []byte("# Repository map\n"), 0o644))
}

// instructionsServer serves the instructionstest repository; dir holds the
// repository, OUT and the outside file.
func instructionsServer(t testing.TB, opts Options) (srv *Server, out, dir string) {
	t.Helper()
	dir = t.TempDir()
	src := instructionstest.Write(t, dir)
	out = filepath.Join(dir, "out")
	publishSource(t, src, out)
	srv, err := New(out, opts)
	mustDo(t, err)
	t.Cleanup(func() { srv.Close() })
	return srv, out, dir
}

func callInstructions(srv *Server, args InstructionsArgs) (string, InstructionsResult, error) {
	ans, err := srv.call(context.Background(), "test", "instructions", nil, func(ctx context.Context, sn *view) (answer, error) {
		return srv.instructionsTool(ctx, sn, args)
	})
	if err != nil {
		return "", InstructionsResult{}, err
	}
	return ans.text, ans.out.(InstructionsResult), nil
}

// TestInstructionsGolden: the answer for several paths of a repository with
// every kind of instruction file, text and structured fields.
func TestInstructionsGolden(t *testing.T) {
	srv, _, _ := instructionsServer(t, Options{})
	for _, tc := range []struct {
		name string
		args InstructionsArgs
	}{
		{"api-handler", InstructionsArgs{Path: "src/api/handler.go"}},
		{"api-test-claude", InstructionsArgs{Path: "src/api/handler_test.go", Agent: "claude"}},
		{"web-dir", InstructionsArgs{Path: "web/"}},
		{"root-agents", InstructionsArgs{Path: ".", Agent: "agents"}},
		{"big-cut", InstructionsArgs{Path: "big/notes.txt", Agent: "claude"}},
		{"api-small-budget", InstructionsArgs{Path: "src/api/handler.go", BudgetTokens: 300}},
		{"lib-outside-symlink", InstructionsArgs{Path: "lib/code.go", Agent: "claude"}},
		{"copilot-ts", InstructionsArgs{Path: "web/app.ts", Agent: "copilot"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text, res, err := callInstructions(srv, tc.args)
			if err != nil {
				t.Fatal(err)
			}
			if n := tokens.Count(text); n > res.BudgetTokens || n != res.Tokens {
				t.Errorf("answer is %d tokens; result says %d, budget %d", n, res.Tokens, res.BudgetTokens)
			}
			if strings.Contains(text, instructionstest.Outside) {
				t.Fatal("answer holds the outside file")
			}
			fields, _ := json.MarshalIndent(res, "", "  ")
			testkit.Golden(t, filepath.Join("testdata", "instructions", tc.name+".txt"), []byte(text+"\n---- structured ----\n"+string(fields)+"\n"))
		})
	}
}

// TestInstructionsRules checks the rules the golden answers rely on, one
// claim at a time.
func TestInstructionsRules(t *testing.T) {
	srv, _, _ := instructionsServer(t, Options{MaxBudget: 32000})
	applied := func(path, agent string) []string {
		t.Helper()
		_, res, err := callInstructions(srv, InstructionsArgs{Path: path, Agent: agent, BudgetTokens: 32000})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, f := range res.Files {
			out = append(out, f.Path)
		}
		return out
	}
	for _, tc := range []struct {
		name, path, agent string
		want              []string
	}{
		{"three nested levels, outermost first, rules between memory and local memory", "src/api/handler.go", "claude",
			[]string{"CLAUDE.md", ".claude/CLAUDE.md", ".claude/rules/api.md", ".claude/rules/style.md", "CLAUDE.local.md", "src/CLAUDE.md", "src/api/CLAUDE.md", "src/api/CLAUDE.local.md"}},
		{"a rule's paths: glob decides", "src/util.go", "claude",
			[]string{"CLAUDE.md", ".claude/CLAUDE.md", ".claude/rules/style.md", "CLAUDE.local.md", "src/CLAUDE.md"}},
		{"a directory gets a rule when a file under it matches", "web", "claude",
			[]string{"CLAUDE.md", ".claude/CLAUDE.md", ".claude/rules/style.md", ".claude/rules/tests.md", "CLAUDE.local.md"}},
		{"the directory's own file applies, a subdirectory's does not; rules matching a file below do", "src", "claude",
			[]string{"CLAUDE.md", ".claude/CLAUDE.md", ".claude/rules/api.md", ".claude/rules/style.md", ".claude/rules/tests.md", "CLAUDE.local.md", "src/CLAUDE.md"}},
		{"AGENTS.md nearest last", "web/app.ts", "agents", []string{"AGENTS.md", "web/AGENTS.md"}},
		{"cursor: always, globs, legacy file; description-only rule left out", "src/util.go", "cursor",
			[]string{".cursorrules", ".cursor/rules/always.mdc", ".cursor/rules/go.mdc"}},
		{"cursor globs do not match", "web/app.ts", "cursor", []string{".cursorrules", ".cursor/rules/always.mdc"}},
		{"copilot applyTo", "web/app.ts", "copilot", []string{".github/copilot-instructions.md", ".github/instructions/ts.instructions.md"}},
		{"copilot without applyTo is on request", "src/util.go", "copilot", []string{".github/copilot-instructions.md"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := applied(tc.path, tc.agent); !slices.Equal(got, tc.want) {
				t.Errorf("applied to %s (%s) = %q,\nwant %q", tc.path, tc.agent, got, tc.want)
			}
		})
	}

	text, res, err := callInstructions(srv, InstructionsArgs{Path: "src/api/handler.go", BudgetTokens: 32000})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"--- @docs/style.md (docs/style.md) ---\nTabs for indentation.\n--- end of @docs/style.md ---\n", // expanded in place
		"[@a.md not imported: import cycle: docs/a.md → docs/b.md → docs/a.md; not imported again]",
		"--- @h5.md (chain/h5.md) ---\nhop 5 @h6.md\n[@h6.md not imported: more than 5 hops",
		"[@../../../outside.md not imported: resolves to ../outside.md, which leaves the snapshot; refused]",
		"=== AGENTS.md · AGENTS.md · applies to the whole repository · same text as CLAUDE.md above ===\n\n",
		"⚠ not staged (ignored); its text is not in the snapshot",
		"--- @docs/guide.md (docs/guide.md) ---", // "See @docs/guide.md." despite the full stop
		"Loaded only on request: .cursor/rules/db.mdc (\"Database migrations\"), .github/instructions/manual.instructions.md.",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("answer lacks %q", want)
		}
	}
	for _, never := range []string{"@docs/never.md (", "hop 6: too deep", instructionstest.Outside, "Validate every request.\n\n=== .claude/rules/api.md"} {
		if strings.Contains(text, never) {
			t.Errorf("answer holds %q", never)
		}
	}
	if strings.Count(text, "Run `make test` before committing.") != 1 {
		t.Error("CLAUDE.md's text is not shown exactly once (AGENTS.md is the same file)")
	}
	if res.Cut || len(res.Next) != 0 {
		t.Errorf("a 32000-token answer was cut: %+v", res.Next)
	}
}

// TestInstructionsBudgetNeverExceeded: for every budget the answer fits,
// and a cut answer says what to read next; reading it gives the rest.
func TestInstructionsBudgetNeverExceeded(t *testing.T) {
	srv, _, _ := instructionsServer(t, Options{})
	for _, path := range []string{"src/api/handler.go", "big/notes.txt", "."} {
		for budget := minBudgetTokens; budget <= 32000; budget = budget*3/2 + 7 {
			text, res, err := callInstructions(srv, InstructionsArgs{Path: path, BudgetTokens: budget})
			if err != nil {
				t.Fatalf("%s at %d: %v", path, budget, err)
			}
			if n := tokens.Count(text); n > budget {
				t.Fatalf("%s at %d: answer is %d tokens", path, budget, n)
			}
			if res.Cut != (len(res.Next) > 0) || res.Cut != strings.Contains(text, "| cut: token budget") {
				t.Fatalf("%s at %d: cut %v, next %v, trailer %q", path, budget, res.Cut, res.Next, lastLine(text))
			}
			for _, n := range res.Next {
				if _, _, err := read(t, srv, ReadFileArgs{Files: []FileRequest{{Path: n.Path, Ranges: [][]int{{n.FromLine, n.FromLine + 10}}}}}); err != nil {
					t.Fatalf("%s at %d: next %+v cannot be read: %v", path, budget, n, err)
				}
			}
		}
	}
	// The cut falls inside big/CLAUDE.md and names the next line exactly.
	text, res, err := callInstructions(srv, InstructionsArgs{Path: "big/notes.txt", Agent: "claude", BudgetTokens: 1000})
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(res.Next, func(r InstructionsRange) bool { return r.Path == "big/CLAUDE.md" })
	if i < 0 {
		t.Fatalf("next %+v lacks big/CLAUDE.md", res.Next)
	}
	from := res.Next[i].FromLine
	lines := strings.Split(instructionstest.Big(), "\n")
	if !strings.Contains(text, lines[from-2]+"\n") || strings.Contains(text, lines[from-1]+"\n") {
		t.Errorf("cut before line %d, but the answer does not end at line %d", from, from-1)
	}
}

func lastLine(s string) string {
	s = strings.TrimSuffix(s, "\n")
	return s[strings.LastIndexByte(s, '\n')+1:]
}

// TestInstructionsPathsChecked: the tool refuses what read_file refuses
// (it shares checkName), answers for directories, and never serves text from
// outside the tree, even when a staged instruction file is swapped for a
// symlink to a secret after publication.
func TestInstructionsPathsChecked(t *testing.T) {
	srv, out, dir := instructionsServer(t, Options{})
	secretPath := filepath.Join(dir, "secret.txt")
	mustDo(t, os.WriteFile(secretPath, []byte(secret+"\n"), 0o644))
	for _, name := range traversals {
		text, _, err := callInstructions(srv, InstructionsArgs{Path: name})
		if strings.Contains(text, secret) {
			t.Fatalf("%q: served the secret", name)
		}
		isRoot := name == "" || name == "." || name == "./"
		if checkName(strings.TrimSuffix(name, "/")) != nil && !isRoot && err == nil {
			t.Errorf("%q: answered, want a refusal", name)
		}
		if err != nil && !errors.Is(err, ErrRefused) && !errors.Is(err, ErrNotFound) {
			t.Errorf("%q: %v, want refused or not found", name, err)
		}
	}
	// Swap a staged instruction file for a symlink to the secret.
	claude := filepath.Join(out, "tree", "CLAUDE.md")
	mustDo(t, os.Remove(claude))
	mustDo(t, os.Symlink(secretPath, claude))
	text, _, err := callInstructions(srv, InstructionsArgs{Path: "src/util.go"})
	if !errors.Is(err, ErrRefused) || strings.Contains(text, secret) {
		t.Errorf("swapped CLAUDE.md: %v, %q; want refused", err, text)
	}
	if _, err := srv.call(context.Background(), "test", "resource", nil, func(ctx context.Context, sn *view) (answer, error) {
		return sn.instructionText("CLAUDE.md")
	}); !errors.Is(err, ErrRefused) {
		t.Errorf("resource of a swapped CLAUDE.md: %v, want refused", err)
	}
}

// TestInstructionsImportsLeftOut: a file whose imports the index's size
// bound left out is shown with its text and the warning, its @paths not
// expanded; the files kept are shown as before.
func TestInstructionsImportsLeftOut(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	publishSource(t, instructionstest.Write(t, dir), out)
	name := filepath.Join(out, "instructions.json")
	data, err := os.ReadFile(name)
	mustDo(t, err)
	idx, err := instr.Parse(data)
	mustDo(t, err)
	const leftOut = "imports left out: instructions.json reached its size bound (1,048,576 bytes); read what this file names with read_file"
	for i := range idx.Files {
		if f := &idx.Files[i]; f.Path == "src/CLAUDE.md" {
			// As the builder leaves a file out: no refs, no chain, none of
			// the warnings about them, and the one that says so.
			f.Imports, f.Chain = nil, nil
			f.Warnings = append(slices.DeleteFunc(f.Warnings, func(w string) bool {
				return strings.HasPrefix(w, "line ") || strings.HasPrefix(w, "in its chain")
			}), leftOut)
		}
	}
	var buf bytes.Buffer
	mustDo(t, snapshot.EncodeJSON(&buf, idx))
	mustDo(t, os.WriteFile(name, buf.Bytes(), 0o644))
	srv, err := New(out, Options{})
	mustDo(t, err)
	defer srv.Close()
	text, res, err := callInstructions(srv, InstructionsArgs{Path: "src/util.go", Agent: "claude", BudgetTokens: 32000})
	mustDo(t, err)
	for _, want := range []string{
		"=== src/CLAUDE.md · Claude Code memory · applies to everything under src/ ===\n⚠ " + leftOut + "\n# src\n",
		"Chain: @../chain/h1.md\n\n",             // its import, not expanded
		"--- @docs/style.md (docs/style.md) ---", // CLAUDE.md's, kept
	} {
		if !strings.Contains(text, want) {
			t.Errorf("answer lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "hop 1") {
		t.Error("a left-out import was expanded")
	}
	for _, f := range res.Files {
		if f.Path == "src/CLAUDE.md" && (len(f.Imports) != 0 || !slices.Contains(f.Warnings, leftOut)) {
			t.Errorf("src/CLAUDE.md: imports %q, warnings %q", f.Imports, f.Warnings)
		}
	}
}

// TestInstructionsArgs: bad arguments are refused with the reason.
func TestInstructionsArgs(t *testing.T) {
	srv, _, _ := instructionsServer(t, Options{})
	for _, tc := range []struct {
		args InstructionsArgs
		want error
		msg  string
	}{
		{InstructionsArgs{Path: "src/api/handlr.go"}, ErrNotFound, "closest existing paths: src/api/handler.go"},
		{InstructionsArgs{Path: "src/api/handler.go", Agent: "vim"}, ErrBadRequest, "want one of all, claude"},
		{InstructionsArgs{Path: "src", BudgetTokens: 10}, ErrBadRequest, "outside 100..32000"},
		{InstructionsArgs{Path: "src/api/handler.go/"}, ErrNotFound, "not found"},
	} {
		_, _, err := callInstructions(srv, tc.args)
		if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%+v: %v, want %v with %q", tc.args, err, tc.want, tc.msg)
		}
	}
	// A snapshot published before instructions.json existed says so.
	old, _ := newTestServer(t, nil, Options{})
	if _, _, err := callInstructions(old, InstructionsArgs{Path: "src"}); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "no instructions.json") {
		t.Errorf("old snapshot: %v", err)
	}
	// A damaged one costs the tool, not the server: read_file goes on.
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	publishSource(t, instructionstest.Write(t, dir), out)
	mustDo(t, os.WriteFile(filepath.Join(out, "instructions.json"), []byte(`{"schema": "repoprep.instructions/v1", "files": [{"nope": 1}]}`), 0o644))
	damaged, err := New(out, Options{})
	if err != nil {
		t.Fatalf("a damaged instructions.json stops the server: %v", err)
	}
	defer damaged.Close()
	if _, _, err := callInstructions(damaged, InstructionsArgs{Path: "src"}); err == nil || !strings.Contains(err.Error(), "unknown field") {
		t.Errorf("damaged index: %v", err)
	}
	if _, _, err := read(t, damaged, ReadFileArgs{Files: []FileRequest{{Path: "CLAUDE.md"}}}); err != nil {
		t.Errorf("read_file beside a damaged index: %v", err)
	}
}

// FuzzInstructionsPath: whatever the path, the tool answers only for names
// read_file's checks accept (or the root), and never with outside text.
func FuzzInstructionsPath(f *testing.F) {
	for _, s := range append(slices.Clone(traversals[:40]), "src/api/handler.go", "web/", "big", "lib/CLAUDE.md") {
		f.Add(s)
	}
	srv, _, _ := instructionsServer(f, Options{})
	f.Fuzz(func(t *testing.T, name string) {
		text, res, err := callInstructions(srv, InstructionsArgs{Path: name, BudgetTokens: 2000})
		if err != nil {
			return
		}
		if strings.Contains(text, instructionstest.Outside) {
			t.Fatalf("%q: answer holds the outside file", name)
		}
		if name != "" && name != "." && name != "./" && checkName(strings.TrimSuffix(name, "/")) != nil {
			t.Fatalf("%q: answered though read_file's check refuses it", name)
		}
		if !filepath.IsLocal(res.Path) && res.Path != "" {
			t.Fatalf("%q: answered for %q, which is not local", name, res.Path)
		}
	})
}

func TestInstructionsOverHTTP(t *testing.T) {
	srv, _, _ := instructionsServer(t, Options{})
	hs := httptest.NewServer(srv.Handler())
	defer hs.Close()
	ts := hs.URL
	code, body := post(t, ts+"/v1/instructions", `{"path": "src/api/handler.go", "agent": "claude"}`)
	if code != 200 || !strings.Contains(fmt.Sprint(body["text"]), "=== src/api/CLAUDE.md · Claude Code memory") {
		t.Fatalf("POST /v1/instructions: %d %v", code, body)
	}
	if code, body := post(t, ts+"/v1/instructions", `{"path": "../x"}`); code != 400 {
		t.Errorf("traversal over HTTP: %d %v", code, body)
	}
	if code, body := post(t, ts+"/v1/instructions", `{"path": "src", "agent": "emacs"}`); code != 400 {
		t.Errorf("bad agent over HTTP: %d %v", code, body)
	}
}

// TestMCPInstructionsAndResources: the tool over MCP, and the resources:
// REPO_MAP.md and each readable instruction file, listed for the snapshot
// being served and refused for anything else.
func TestMCPInstructionsAndResources(t *testing.T) {
	srv, out, dir := instructionsServer(t, Options{})
	cs := connect(t, srv)
	ctx := context.Background()
	text, fields, isErr := callTool(t, cs, "instructions", map[string]any{"path": "src/api/handler.go", "agent": "claude"})
	if isErr || !strings.Contains(text, "Handlers return errors, never panic.") || fields["files"] == nil {
		t.Fatalf("instructions over MCP: error %v, %q, %v", isErr, text, fields)
	}
	if text, _, isErr := callTool(t, cs, "instructions", map[string]any{"path": "../outside.md"}); !isErr || !strings.Contains(text, "path refused") {
		t.Errorf("traversal over MCP: error %v, %q", isErr, text)
	}

	listed := func() map[string]bool {
		t.Helper()
		res, err := cs.ListResources(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		uris := map[string]bool{}
		for _, r := range res.Resources {
			uris[r.URI] = true
		}
		return uris
	}
	uris := listed()
	for _, p := range []string{"CLAUDE.md", "AGENTS.md", ".claude/rules/api.md", ".cursor/rules/db.mdc", "web/AGENTS.md"} {
		if !uris[instructionURI(p)] {
			t.Errorf("resource for %s not listed: %v", p, uris)
		}
	}
	if !uris[repoMapURI] || uris[instructionURI("lib/CLAUDE.md")] || uris[instructionURI("src/api/CLAUDE.local.md")] {
		t.Errorf("resources: %v", uris)
	}
	readRes := func(uri string) (string, error) {
		res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		if err != nil {
			return "", err
		}
		return res.Contents[0].Text, nil
	}
	if got, err := readRes(instructionURI("AGENTS.md")); err != nil || got != instructionstest.Files()["CLAUDE.md"] {
		t.Errorf("AGENTS.md resource = %q, %v; want CLAUDE.md's text", got, err)
	}
	if got, err := readRes(repoMapURI); err != nil || !strings.HasPrefix(got, "# Repository map") {
		t.Errorf("REPO_MAP.md resource = %q, %v", got, err)
	}
	for _, bad := range []string{
		instructionURIPrefix + "..%2Foutside.md", instructionURIPrefix + "../outside.md", instructionURIPrefix + "lib/CLAUDE.md",
		instructionURIPrefix + "src/util.go", instructionURIPrefix + "%2Fetc%2Fpasswd", "repoprep://repo/tree/CLAUDE.md",
	} {
		if got, err := readRes(bad); err == nil || strings.Contains(got, instructionstest.Outside) {
			t.Errorf("%s: read %q, %v; want an error", bad, got, err)
		}
	}

	// A new publication: web/AGENTS.md is gone, docs/AGENTS.md is new.
	src2 := filepath.Join(dir, "repo2")
	instructionstest.Write(t, src2)
	repo2 := filepath.Join(src2, "repo")
	mustDo(t, os.Remove(filepath.Join(repo2, "web", "AGENTS.md")))
	mustDo(t, os.WriteFile(filepath.Join(repo2, "docs", "AGENTS.md"), []byte("docs agents\n"), 0o644))
	next := filepath.Join(dir, "out.next")
	publishSource(t, repo2, next)
	mustDo(t, os.Rename(out, out+".old"))
	mustDo(t, os.Rename(next, out))
	uris = listed()
	if uris[instructionURI("web/AGENTS.md")] || !uris[instructionURI("docs/AGENTS.md")] {
		t.Errorf("after republishing, resources: %v", uris)
	}
	if got, err := readRes(instructionURI("docs/AGENTS.md")); err != nil || got != "docs agents\n" {
		t.Errorf("docs/AGENTS.md after republishing = %q, %v", got, err)
	}
}
