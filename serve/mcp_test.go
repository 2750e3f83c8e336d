package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/repoprep/repoprep/internal/tokens"
)

// connect opens an SDK client session to srv over in-memory transports.
func connect(t testing.TB, srv *Server) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.MCP().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Close() })
	return cs
}

func callTool(t testing.TB, cs *mcp.ClientSession, name string, args any) (string, map[string]any, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: protocol error: %v", name, err)
	}
	var text strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text.WriteString(tc.Text)
		}
	}
	var out map[string]any
	if res.StructuredContent != nil {
		b, _ := json.Marshal(res.StructuredContent)
		json.Unmarshal(b, &out)
	}
	if !res.IsError {
		if err := checkOutput(cs, name, out); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	return text.String(), out, res.IsError
}

// outputSchemas holds, per client session, each tool's outputSchema as
// tools/list declared it, resolved.
var outputSchemas sync.Map // *mcp.ClientSession -> map[string]*jsonschema.Resolved

// checkOutput does what a client that validates structured results does (the
// TypeScript SDK's Client.callTool, for one): a tool that declares an
// outputSchema must answer structuredContent that the schema accepts, and a
// tool that declares none must send none.
func checkOutput(cs *mcp.ClientSession, name string, out map[string]any) error {
	v, ok := outputSchemas.Load(cs)
	if !ok {
		res, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			return err
		}
		m := map[string]*jsonschema.Resolved{}
		for _, tool := range res.Tools {
			if tool.OutputSchema == nil {
				m[tool.Name] = nil
				continue
			}
			data, err := json.Marshal(tool.OutputSchema)
			if err != nil {
				return err
			}
			var sc jsonschema.Schema
			if err := json.Unmarshal(data, &sc); err != nil {
				return fmt.Errorf("%s outputSchema: %w", tool.Name, err)
			}
			if m[tool.Name], err = sc.Resolve(nil); err != nil {
				return fmt.Errorf("%s outputSchema: %w", tool.Name, err)
			}
		}
		v, _ = outputSchemas.LoadOrStore(cs, m)
	}
	rs, ok := v.(map[string]*jsonschema.Resolved)[name]
	switch {
	case !ok:
		return nil // an unknown tool: its error is the caller's to check
	case rs == nil && out != nil:
		return fmt.Errorf("structuredContent without an outputSchema: %v", out)
	case rs == nil:
		return nil
	case out == nil:
		return fmt.Errorf("an outputSchema but no structuredContent")
	}
	var inst any = out
	if err := rs.Validate(inst); err != nil {
		return fmt.Errorf("structuredContent does not match the declared outputSchema: %v", err)
	}
	return nil
}

func TestMCPToolsDescribeTheirLimits(t *testing.T) {
	srv, _ := newTestServer(t, nil, Options{})
	cs := connect(t, srv)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{
		"read_file":    {"up to 5 files", "first 500 lines", "2000 characters", "default 8000, max 32000", "next: start 501", "Oversize"},
		"list_files":   {"default 200, max 1000", "offset", "tokens"},
		"search":       {"RE2", "max_results (1-500, default 50)", "0-10", "8000 tokens", "left out"},
		"repo_map":     {"REPO_MAP.md"},
		"instructions": {"outermost first", "at most 5 hops", "default 8000, max 32000", "read_file"},
	}
	if len(res.Tools) != len(want) {
		t.Fatalf("%d tools, want %d", len(res.Tools), len(want))
	}
	for _, tool := range res.Tools {
		for _, w := range want[tool.Name] {
			if !strings.Contains(tool.Description, w) {
				t.Errorf("%s description lacks %q", tool.Name, w)
			}
		}
		if tool.Annotations == nil || !tool.Annotations.ReadOnlyHint {
			t.Errorf("%s is not marked read-only", tool.Name)
		}
	}
	i := slices.IndexFunc(res.Tools, func(t *mcp.Tool) bool { return t.Name == "read_file" })
	schema, _ := json.Marshal(res.Tools[i].InputSchema)
	for _, w := range []string{`"maxItems":5`, `"minItems":1`, `"maximum":32000`, `"minimum":100`} {
		if !strings.Contains(string(schema), w) {
			t.Errorf("read_file schema lacks %s: %s", w, schema)
		}
	}
}

func TestMCPReadFile(t *testing.T) {
	srv, _ := newTestServer(t, nil, Options{})
	cs := connect(t, srv)
	text, out, isErr := callTool(t, cs, "read_file", map[string]any{"files": []any{map[string]any{"path": "big.txt", "ranges": [][]int{{1, 2}}}}})
	if isErr {
		t.Fatal(text)
	}
	if want := "   1 | line 1 of big\n   2 | line 2 of big\n[file: big.txt | total: 812 lines | shown: 1-2 | next: start 3]\n"; text != want {
		t.Errorf("text = %q, want %q", text, want)
	}
	if files := out["files"].([]any); files[0].(map[string]any)["next"].(float64) != 3 {
		t.Errorf("structured = %v", out)
	}

	for name, args := range map[string]any{
		"six files":     map[string]any{"files": []any{map[string]any{"path": "a"}, map[string]any{"path": "a"}, map[string]any{"path": "a"}, map[string]any{"path": "a"}, map[string]any{"path": "a"}, map[string]any{"path": "a"}}},
		"no files":      map[string]any{"files": []any{}},
		"tiny budget":   map[string]any{"files": []any{map[string]any{"path": "big.txt"}}, "budget_tokens": 10},
		"huge budget":   map[string]any{"files": []any{map[string]any{"path": "big.txt"}}, "budget_tokens": 1 << 30},
		"line zero":     map[string]any{"files": []any{map[string]any{"path": "big.txt", "ranges": [][]int{{0, 3}}}}},
		"three numbers": map[string]any{"files": []any{map[string]any{"path": "big.txt", "ranges": [][]int{{1, 2, 3}}}}},
		"unknown field": map[string]any{"files": []any{map[string]any{"path": "big.txt", "from": 1}}},
		"traversal":     map[string]any{"files": []any{map[string]any{"path": "../files.json"}}},
		"unknown path":  map[string]any{"files": []any{map[string]any{"path": "src/app/mian.go"}}},
	} {
		text, _, isErr := callTool(t, cs, "read_file", args)
		if !isErr {
			t.Errorf("%s: accepted: %s", name, text)
		}
	}
	text, _, _ = callTool(t, cs, "read_file", map[string]any{"files": []any{map[string]any{"path": "src/app/mian.go"}}})
	if !strings.Contains(text, "not found") || !strings.Contains(text, "src/app/main.go") {
		t.Errorf("unknown path error = %q", text)
	}
}

func TestMCPListFiles(t *testing.T) {
	srv, _ := newTestServer(t, nil, Options{})
	cs := connect(t, srv)
	tests := []struct {
		name string
		args map[string]any
		want []string // paths, in order
		tail string
	}{
		{"prefix", map[string]any{"prefix": "src/"}, []string{"src/app/main.go", "src/app/main_test.go", "src/app/util.go"}, "[files: 1-3 of 3]"},
		{"no tests", map[string]any{"prefix": "src/", "test": false}, []string{"src/app/main.go", "src/app/util.go"}, ""},
		{"tests only", map[string]any{"test": true}, []string{"src/app/main_test.go"}, ""},
		{"glob by name", map[string]any{"glob": "*.go"}, []string{"src/app/main.go", "src/app/main_test.go", "src/app/util.go", "vendor/copy.go"}, ""},
		{"glob with **", map[string]any{"glob": "src/**/*_test.go"}, []string{"src/app/main_test.go"}, ""},
		{"category", map[string]any{"category": "source", "prefix": "vendor/"}, []string{"vendor/copy.go"}, ""},
		{"page 1", map[string]any{"limit": 2}, []string{"a b/spaced name.txt", "big.txt"}, "next: offset 2"},
		{"page 2", map[string]any{"limit": 2, "offset": 2}, []string{"cjk.md", "docs/guide.md"}, "[files: 3-4 of 12 | next: offset 4]"},
		{"none", map[string]any{"prefix": "nope/"}, nil, "none match"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text, out, isErr := callTool(t, cs, "list_files", tt.args)
			if isErr {
				t.Fatal(text)
			}
			var got []string
			for _, f := range out["files"].([]any) {
				got = append(got, f.(map[string]any)["path"].(string))
			}
			if strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Errorf("paths = %v, want %v", got, tt.want)
			}
			if !strings.Contains(text, tt.tail) {
				t.Errorf("text lacks %q:\n%s", tt.tail, text)
			}
		})
	}
	text, _, _ := callTool(t, cs, "list_files", map[string]any{"prefix": "vendor/"})
	if !strings.Contains(text, "vendor/copy.go | 60 bytes | 4 lines | 17 tokens | source") || !strings.Contains(text, "duplicate of src/app/util.go") {
		t.Errorf("list line = %q", text)
	}
	if text, _, isErr := callTool(t, cs, "list_files", map[string]any{"category": "weird"}); !isErr {
		t.Errorf("unknown category accepted: %s", text)
	}
	if text, _, isErr := callTool(t, cs, "list_files", map[string]any{"limit": 5000}); !isErr {
		t.Errorf("limit 5000 accepted: %s", text)
	}
}

func TestMCPSearch(t *testing.T) {
	srv, _ := newTestServer(t, nil, Options{})
	cs := connect(t, srv)
	text, out, isErr := callTool(t, cs, "search", map[string]any{"pattern": "TODO"})
	if isErr {
		t.Fatal(text)
	}
	want := "docs/guide.md:4:TODO: write more\n--\nsrc/app/util.go:3:// TODO: tidy\n[search: 2 matching lines in 2 files]\n"
	if text != want {
		t.Errorf("search TODO =\n%s\nwant\n%s", text, want)
	}
	if out["total_matches"].(float64) != 2 {
		t.Errorf("structured = %v", out)
	}

	text, _, _ = callTool(t, cs, "search", map[string]any{"pattern": "tidy", "context_lines": 1, "path_glob": "src/**"})
	if want := "src/app/util.go-2-\nsrc/app/util.go:3:// TODO: tidy\nsrc/app/util.go-4-func helper() int { return 42 }\n"; !strings.HasPrefix(text, want) {
		t.Errorf("context search =\n%s\nwant prefix\n%s", text, want)
	}

	text, out, _ = callTool(t, cs, "search", map[string]any{"pattern": "of big", "max_results": 3})
	if out["matches"].(float64) != 3 || out["left_out"].(float64) != 809 || !strings.Contains(text, "left out: 809 (cut: max_results 3)") || !strings.Contains(text, "path_glob") {
		t.Errorf("capped search: %v\n%s", out, text)
	}

	small, _ := newTestServer(t, nil, Options{DefaultBudget: 1000})
	text, out, _ = callTool(t, connect(t, small), "search", map[string]any{"pattern": "line", "max_results": 500})
	if out["cut"] != "token budget" || !strings.Contains(text, "(cut: token budget 1000)") {
		t.Errorf("search over budget not cut by tokens: %v\n%s", out, text)
	}
	if n := tokens.Count(text); n > 1000 {
		t.Errorf("search answer is %d tokens, over 1000", n)
	}

	text, _, _ = callTool(t, cs, "search", map[string]any{"pattern": "(?i)PACKAGE main", "path_glob": "*_test.go"})
	if !strings.Contains(text, "src/app/main_test.go:1:package main") || strings.Contains(text, "util.go") {
		t.Errorf("glob + case-insensitive search:\n%s", text)
	}
	text, _, _ = callTool(t, cs, "search", map[string]any{"pattern": "no such thing"})
	if !strings.Contains(text, "no match") {
		t.Errorf("empty search: %s", text)
	}
	for _, bad := range []map[string]any{{"pattern": "("}, {"pattern": ""}, {"pattern": "x", "context_lines": 11}, {"pattern": "x", "max_results": 0}} {
		if text, _, isErr := callTool(t, cs, "search", bad); !isErr {
			t.Errorf("search %v accepted: %s", bad, text)
		}
	}
}

func TestMCPRepoMap(t *testing.T) {
	srv, _ := newTestServer(t, nil, Options{})
	text, out, isErr := callTool(t, connect(t, srv), "repo_map", map[string]any{})
	if isErr || text != "# Repository map\n\nsrc/ — Go\n" || out != nil { // no outputSchema, so no structuredContent
		t.Errorf("repo_map = %q, %v", text, out)
	}
}

func TestServeStdio(t *testing.T) {
	srv, _ := newTestServer(t, nil, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	serverIn, clientOut := io.Pipe()
	clientIn, serverOut := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- srv.ServeStdio(ctx, serverIn, serverOut) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).
		Connect(ctx, &mcp.IOTransport{Reader: clientIn, Writer: clientOut}, nil)
	if err != nil {
		t.Fatal(err)
	}
	text, _, isErr := callTool(t, cs, "read_file", map[string]any{"files": []any{map[string]any{"path": "nonl.txt"}}})
	if isErr || !strings.Contains(text, "   2 | two\n") {
		t.Errorf("stdio read = %q", text)
	}
	cs.Close()
	cancel()
	if err := <-done; err != nil {
		t.Errorf("ServeStdio = %v", err)
	}
}

// TestMCPStructuredCarriesTheResult: structuredContent is the whole result,
// not only the metadata beside the text, so a client that shows the model
// structured output shows it the lines. read_file's files[].text joined is
// the text content; search's lines, errors and summary rebuild it.
func TestMCPStructuredCarriesTheResult(t *testing.T) {
	srv, _ := newTestServer(t, nil, Options{})
	cs := connect(t, srv)
	for name, args := range map[string]map[string]any{
		"one file": {"files": []any{map[string]any{"path": "src/app/main.go"}}},
		"ranges, a duplicate, a bad path, the end": {"files": []any{
			map[string]any{"path": "big.txt", "ranges": [][]int{{3, 5}, {800, 900}}},
			map[string]any{"path": "vendor/copy.go"},
			map[string]any{"path": "src/app/mian.go"},
			map[string]any{"path": "nonl.txt"},
			map[string]any{"path": "empty.txt"},
		}},
		"cut by the budget": {"files": []any{map[string]any{"path": "big.txt"}, map[string]any{"path": "nonl.txt"}}, "budget_tokens": 400},
	} {
		text, out, isErr := callTool(t, cs, "read_file", args)
		if isErr {
			t.Fatalf("%s: %s", name, text)
		}
		var joined strings.Builder
		for _, f := range out["files"].([]any) {
			part, _ := f.(map[string]any)["text"].(string)
			joined.WriteString(part)
		}
		if joined.String() != text {
			t.Errorf("read_file %s: files[].text joined =\n%q\nthe text content =\n%q", name, joined.String(), text)
		}
	}

	for name, args := range map[string]map[string]any{
		"matches in two files": {"pattern": "TODO"},
		"context, groups":      {"pattern": "package|return", "context_lines": 1},
		"cut by max_results":   {"pattern": "of big", "max_results": 3, "context_lines": 2},
		"no match":             {"pattern": "no such thing"},
		"500 matches":          {"pattern": "line", "max_results": 500},
	} {
		text, out, isErr := callTool(t, cs, "search", args)
		if isErr {
			t.Fatalf("%s: %s", name, text)
		}
		if got := renderSearch(out); got != text {
			t.Errorf("search %s: lines and summary give\n%q\nthe text content is\n%q", name, got, text)
		}
		if lines, _ := out["lines"].([]any); name != "no match" && len(lines) == 0 {
			t.Errorf("search %s: no lines in %v", name, out)
		}
	}

	// Cut by the token budget, with a file that could not be searched.
	small, out := newTestServer(t, nil, Options{DefaultBudget: 1000})
	mustDo(t, os.Remove(filepath.Join(out, "tree", "docs", "guide.md")))
	text, res, isErr := callTool(t, connect(t, small), "search", map[string]any{"pattern": "e", "max_results": 500})
	if isErr || res["cut"] != "token budget" || res["failed"].(float64) != 1 {
		t.Fatalf("search over budget with a missing file: %v\n%s", res, text)
	}
	if got := renderSearch(res); got != text {
		t.Errorf("search cut by the budget: lines, errors and summary give\n%q\nthe text content is\n%q", got, text)
	}
}

// renderSearch is the grep-style text a client rebuilds from search's
// structuredContent: path:line:text for a match, path-line-text for
// context, "--" where a file or a run of lines starts, then the error lines
// and the summary.
func renderSearch(out map[string]any) string {
	var b strings.Builder
	prevPath, prevLine := "", 0
	lines, _ := out["lines"].([]any)
	for i, l := range lines {
		m := l.(map[string]any)
		p, n, match := m["path"].(string), int(m["line"].(float64)), m["match"].(bool)
		if i > 0 && (p != prevPath || n != prevLine+1) {
			b.WriteString("--\n")
		}
		sep := "-"
		if match {
			sep = ":"
		}
		fmt.Fprintf(&b, "%s%s%d%s%s\n", p, sep, n, sep, m["text"])
		prevPath, prevLine = p, n
	}
	errs, _ := out["errors"].([]any)
	for _, e := range errs {
		fmt.Fprintf(&b, "[error: %s]\n", e.(map[string]any)["error"])
	}
	s, _ := out["summary"].(string)
	return b.String() + s
}
