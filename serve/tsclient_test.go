package serve

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/repoprep/repoprep/internal/testkit"
)

// mcpClientDir holds the Node script and the package.json and
// package-lock.json that pin the MCP TypeScript SDK it runs with.
var mcpClientDir = filepath.Join("testdata", "mcpclient")

// TestMCPTypeScriptClient runs the official MCP TypeScript SDK's client
// against `repoprep serve OUT` over stdio, on a snapshot made by
// `repoprep run`: it lists the tools and calls each one, and the SDK's
// Client.callTool validates every structuredContent against the tool's
// outputSchema (with Ajv), so a result the schema does not describe fails
// here as it would in any client built on that SDK. The script also checks
// that validation is live and that every tool with an outputSchema was
// called. The answers then come back here, where the structured result
// must rebuild the text (read_file's files[].text, search's lines) and
// carry the encoding, tidied paths and search hints through the real binary.
//
// It costs a go build of the binary and, the first time, an npm ci into
// the user's cache directory (testkit.NPMCI: about 15 s from the network,
// a few from npm's cache); then about 3 s.
func TestMCPTypeScriptClient(t *testing.T) {
	if testkit.Race {
		// The server runs as a child process: the race detector would
		// need a race build of it and a second npm-driven session. The
		// whole pass (make test 4/5) runs this test.
		t.Skip("runs in the pass without -race")
	}
	node, npm := testkit.Node(t, "the MCP TypeScript SDK client check is skipped")
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build the binary with")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	dir := t.TempDir()
	bin := filepath.Join(dir, "repoprep")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	// Built the way this test binary was, so the packages come from the
	// build cache the test run just filled: only the link is new. The
	// build (CPU) runs while npm ci (mostly the network) installs the SDK:
	// in a fresh clone each took most of a minute on a busy runner.
	var (
		buildOut  []byte
		buildErr  error
		buildTook time.Duration
		building  sync.WaitGroup
	)
	building.Go(func() {
		start := time.Now()
		buildOut, buildErr = exec.CommandContext(ctx, goTool, "build", "-o", bin, "github.com/repoprep/repoprep/cmd/repoprep").CombinedOutput()
		buildTook = time.Since(start)
	})
	t.Cleanup(building.Wait) // if npm ci fails: the build, cancelled, ends before dir goes
	modules := testkit.NPMCI(t, ctx, npm, mcpClientDir)
	building.Wait()
	if buildErr != nil {
		t.Fatalf("go build: %v\n%s", buildErr, buildOut)
	}
	t.Logf("go build: %v", buildTook.Round(time.Millisecond))
	src, out := filepath.Join(dir, "src"), filepath.Join(dir, "out")
	testkit.WriteTree(t, src, map[string]string{
		"src/click/__init__.py": "from click.core import main\n",
		"src/click/core.py":     "def main():\n    \"\"\"Entry point.\"\"\"\n    return run()\n\n\ndef run():\n    return 0\n\n\nclass Command:\n    name = \"cmd\"\n",
		"src/click/legacy.py":   "# -*- coding: latin-1 -*-\nNAME = \"caf\xe9\"\nGREETING = \"\xe7a va\"\n", // windows-1252 bytes
		"src/click/copy.py":     "from click.core import main\n",                                            // a duplicate of __init__.py
		"tests/test_core.py":    "from click.core import main\n\n\ndef test_main():\n    assert main() == 0\n",
		"docs/usage.md":         "# Usage\n\nCall main() from your script.\n",
		"CLAUDE.md":             "# Rules\n\nRun the tests with pytest.\n",
		"README.md":             "# click\n\nA tiny Python package.\n",
	})
	run := exec.CommandContext(ctx, bin, "run", "-q", "--progress", "never", "-o", out, src)
	run.Env = append(os.Environ(), "REPOPREP_TOKENS_CACHE=off")
	if msg, err := run.CombinedOutput(); err != nil {
		t.Fatalf("repoprep run: %v\n%s", err, msg)
	}

	type call struct {
		Tool  string         `json:"tool"`
		Args  map[string]any `json:"args"`
		Error bool           `json:"error,omitempty"`
	}
	file := func(p string, ranges ...[]int) map[string]any {
		f := map[string]any{"path": p}
		if len(ranges) > 0 {
			f["ranges"] = ranges
		}
		return f
	}
	calls := []call{
		{Tool: "read_file", Args: map[string]any{"files": []any{file("src/click/core.py")}}},
		{Tool: "read_file", Args: map[string]any{"files": []any{
			file("src/../src/click/core.py", []int{3, 4}, []int{90, 95}), file("src/click/legacy.py"),
			file("src/click/copy.py"), file("src/click/mian.py"),
		}}},
		{Tool: "read_file", Args: map[string]any{"files": []any{file("tests/test_core.py"), file("README.md")}, "budget_tokens": 100}},
		{Tool: "read_file", Args: map[string]any{"files": []any{file("nope.py")}}, Error: true},
		{Tool: "read_file", Args: map[string]any{"files": []any{file("src/../../etc/passwd")}}, Error: true},
		{Tool: "search", Args: map[string]any{"pattern": "main", "context_lines": 1}},
		{Tool: "search", Args: map[string]any{"pattern": "main", "max_results": 1}},
		{Tool: "search", Args: map[string]any{"pattern": "(?i)no such thing"}},
		{Tool: "search", Args: map[string]any{"pattern": "("}, Error: true},
		{Tool: "list_files", Args: map[string]any{}},
		{Tool: "list_files", Args: map[string]any{"prefix": "src/", "limit": 2}},
		{Tool: "instructions", Args: map[string]any{"path": "src/click/core.py"}},
		{Tool: "repo_map", Args: map[string]any{}},
	}
	plan := filepath.Join(dir, "calls.json")
	data, _ := json.Marshal(calls)
	if err := os.WriteFile(plan, data, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, node, testkit.Script(t, modules, filepath.Join(mcpClientDir, "client.mjs")), bin, out, plan)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		t.Fatalf("the TypeScript SDK client failed: %v\n%s", err, stderr.Bytes())
	}
	t.Logf("%d calls through the TypeScript SDK client in %v", len(calls), time.Since(start).Round(time.Millisecond))

	type result struct {
		Tool       string         `json:"tool"`
		Text       string         `json:"text"`
		Structured map[string]any `json:"structured"`
		IsError    bool           `json:"isError"`
	}
	var results []result
	sc := bufio.NewScanner(&stdout)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var r result
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("client output %q: %v", sc.Bytes(), err)
		}
		results = append(results, r)
	}
	if len(results) != len(calls) {
		t.Fatalf("%d results for %d calls:\n%s", len(results), len(calls), stdout.Bytes())
	}
	for i, r := range results {
		if r.IsError {
			continue
		}
		what := r.Tool + " " + string(mustMarshal(calls[i].Args))
		switch r.Tool {
		case "read_file":
			var joined strings.Builder
			files, _ := r.Structured["files"].([]any)
			for _, f := range files {
				text, _ := f.(map[string]any)["text"].(string)
				joined.WriteString(text)
			}
			if joined.String() != r.Text {
				t.Errorf("%s: files[].text joined =\n%q\ntext =\n%q", what, joined.String(), r.Text)
			}
		case "search":
			if got := renderSearch(r.Structured); got != r.Text {
				t.Errorf("%s: lines and summary give\n%q\ntext =\n%q", what, got, r.Text)
			}
		}
	}
	for i, want := range map[int][]string{
		1: {"[file: src/click/core.py | total: 11 lines | shown: 3-4 | past the end: 90-95 | next: start 5]",
			"   2 | NAME = \"café\"\n", "[file: src/click/legacy.py | total: 3 lines | encoding: windows-1252, shown as UTF-8 | shown: 1-3]",
			"duplicate of: src/click/__init__.py", `[error: not found: "src/click/mian.py"`},
		4: {"path refused"},
		6: {`add path_glob (e.g. "src/**/*.py")`},
		7: {"no match", "case-insensitive"},
	} {
		for _, w := range want {
			if !strings.Contains(results[i].Text, w) {
				t.Errorf("%s %s: answer lacks %q:\n%s", calls[i].Tool, mustMarshal(calls[i].Args), w, results[i].Text)
			}
		}
	}
	if strings.Contains(results[7].Text, "prefix (?i)") {
		t.Errorf("a (?i) search is told to prefix (?i):\n%s", results[7].Text)
	}
}

func mustMarshal(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
