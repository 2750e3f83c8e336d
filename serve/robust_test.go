package serve

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// rawStdio is a client that writes JSON-RPC lines straight into ServeStdio,
// as a sloppy or hostile client would, and reads the answers by id.
type rawStdio struct {
	t    testing.TB
	w    *io.PipeWriter
	mu   sync.Mutex
	got  map[string]map[string]any // answers by id (as JSON text)
	cond *sync.Cond
	done chan error
	bad  []string // lines from the server that are not JSON-RPC answers
}

func newRawStdio(t testing.TB, srv *Server) *rawStdio {
	t.Helper()
	serverIn, clientOut := io.Pipe()
	clientIn, serverOut := io.Pipe()
	c := &rawStdio{t: t, w: clientOut, got: map[string]map[string]any{}, done: make(chan error, 1)}
	c.cond = sync.NewCond(&c.mu)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { c.done <- srv.ServeStdio(ctx, serverIn, serverOut) }()
	go func() {
		sc := bufio.NewScanner(clientIn)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			var m map[string]any
			c.mu.Lock()
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil || m["jsonrpc"] != "2.0" {
				c.bad = append(c.bad, sc.Text())
			} else {
				id, _ := json.Marshal(m["id"])
				c.got[string(id)] = m
			}
			c.cond.Broadcast()
			c.mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		cancel()
		clientOut.Close()
		clientIn.Close()
	})
	c.send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	c.wait(`"init"`)
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return c
}

func (c *rawStdio) send(line string) {
	c.t.Helper()
	if _, err := io.WriteString(c.w, line+"\n"); err != nil {
		c.t.Fatalf("write: %v", err)
	}
}

// wait returns the answer with this id (its JSON text), failing after 10 s.
func (c *rawStdio) wait(id string) map[string]any {
	c.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	timer := time.AfterFunc(10*time.Second, func() { c.mu.Lock(); c.cond.Broadcast(); c.mu.Unlock() })
	defer timer.Stop()
	c.mu.Lock()
	defer c.mu.Unlock()
	for c.got[id] == nil {
		if time.Now().After(deadline) {
			c.t.Fatalf("no answer with id %s in 10 s (bad lines: %q)", id, c.bad)
		}
		select {
		case err := <-c.done:
			c.t.Fatalf("server stopped (%v) before answering id %s", err, id)
		default:
		}
		c.cond.Wait()
	}
	return c.got[id]
}

// Over stdio, no line ends the session: each bad one is answered with a
// JSON-RPC error when its id can be read, and a ping after them all is
// answered.
func TestStdioGarbageLinesThenPing(t *testing.T) {
	srv, _ := newTestServer(t, nil, Options{MaxBodyBytes: 64 << 10})
	c := newRawStdio(t, srv)
	lines := []struct {
		line string
		id   string // "" when no id can be read: the line is skipped
		code float64
	}{
		{`this is not json`, "", 0},
		{`{"jsonrpc":"2.0","id":1,"method":"ping"`, "1", -32700},
		{strings.Repeat("[", 1001) + strings.Repeat("]", 1001), "", 0},
		{`{"jsonrpc":"2.0","id":2,"params":` + strings.Repeat(`{"a":`, 200) + "1" + strings.Repeat("}", 200) + `,"method":"ping"}`, "2", -32600},
		{`{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}`, "", 0},
		{`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, "", 0},
		{`{"id":3,"method":"ping"}`, "3", -32600},
		{`{"jsonrpc":"1.0","id":"v1","method":"ping"}`, `"v1"`, -32600},
		{`[{"jsonrpc":"2.0","id":4,"method":"ping"},{"jsonrpc":"2.0","id":5,"method":"ping"}]`, "4", -32600},
		{`[]`, "", 0},
		{`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"read_file","arguments":{"files":[{"path":"` + strings.Repeat("a", 100<<10) + `"}]}}}`, "6", -32600},
		{`"just a string"`, "", 0},
		{`{"jsonrpc":"2.0","id":7,"method":"no/such/method"}`, "7", -32601},
		{`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":5}`, "8", 0},
		{"\x00\xff\xfe", "", 0},
	}
	for _, l := range lines {
		c.send(l.line)
	}
	for _, l := range lines {
		if l.id == "" {
			continue
		}
		ans := c.wait(l.id)
		e, _ := ans["error"].(map[string]any)
		if e == nil {
			t.Errorf("line %.60q: answer %v, want an error", l.line, ans)
			continue
		}
		if l.code != 0 && e["code"] != l.code {
			t.Errorf("line %.60q: error %v, want code %v", l.line, e, l.code)
		}
		if msg, _ := e["message"].(string); len(msg) > 300 {
			t.Errorf("line %.60q: error message of %d bytes", l.line, len(msg))
		}
	}
	c.send(`{"jsonrpc":"2.0","id":"after","method":"ping"}`)
	if ans := c.wait(`"after"`); ans["result"] == nil {
		t.Errorf("ping after the garbage: %v", ans)
	}
	if len(c.bad) > 0 {
		t.Errorf("server wrote lines that are not JSON-RPC: %q", c.bad)
	}
}

// "arguments": null (and absent, and a body of null) is {} on every
// transport: a tool error the model can read, never a crash.
func TestNullArgumentsOnEveryTransport(t *testing.T) {
	srv, _ := newTestServer(t, nil, Options{})
	want := map[string]string{"read_file": "files is missing", "search": "pattern is missing", "list_files": "", "repo_map": ""}

	c := newRawStdio(t, srv)
	for tool := range want {
		for _, args := range []string{`,"arguments":null`, ``} {
			id := fmt.Sprintf(`"%s%d"`, tool, len(args))
			c.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"` + tool + `"` + args + `}}`)
			res, _ := c.wait(id)["result"].(map[string]any)
			checkNullAnswer(t, "stdio", tool, res, want[tool])
		}
	}

	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	for tool := range want {
		body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + tool + `","arguments":null}}`
		req, _ := http.NewRequest("POST", ts.URL+"/mcp", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var msg struct {
			Result map[string]any `json:"result"`
		}
		data, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err := json.Unmarshal(data, &msg); err != nil {
			t.Fatalf("/mcp %s: %d %q", tool, resp.StatusCode, data)
		}
		checkNullAnswer(t, "http /mcp", tool, msg.Result, want[tool])

		for _, body := range []string{"null", "", " null \n"} {
			status, out := post(t, ts.URL+"/v1/"+tool, body)
			if want[tool] != "" {
				if status != 400 || !strings.Contains(out["error"].(string), want[tool]) {
					t.Errorf("/v1/%s with body %q: %d %v", tool, body, status, out)
				}
			} else if status != 200 {
				t.Errorf("/v1/%s with body %q: %d %v", tool, body, status, out)
			}
		}
	}
}

func checkNullAnswer(t *testing.T, via, tool string, res map[string]any, wantErr string) {
	t.Helper()
	if res == nil {
		t.Errorf("%s %s: no result", via, tool)
		return
	}
	text := fmt.Sprint(res["content"])
	isErr, _ := res["isError"].(bool)
	if wantErr != "" && (!isErr || !strings.Contains(text, wantErr)) {
		t.Errorf("%s %s with null arguments: %v, want a tool error saying %q", via, tool, res, wantErr)
	}
	if wantErr == "" && isErr {
		t.Errorf("%s %s with null arguments failed: %v", via, tool, res)
	}
}

// A handler that panics answers an MCP error or an HTTP 500, logs one line,
// and the server goes on.
func TestPanicIsRecovered(t *testing.T) {
	var logBuf bytes.Buffer
	srv, _ := newTestServer(t, nil, Options{Logger: slog.New(slog.NewTextHandler(&logBuf, nil))})
	schema, _ := jsonschema.For[struct{}](nil)
	if err := addTool(srv, srv.mcp, "boom", "panics", schema, func(context.Context, *view, struct{}) (answer, error) {
		m := nilMap()
		m["x"] = 1 // nil map: the SDK's default-filling did exactly this
		return answer{}, nil
	}, func(struct{}) []slog.Attr { return nil }); err != nil {
		t.Fatal(err)
	}
	cs := connect(t, srv)
	text, _, isErr := callTool(t, cs, "boom", map[string]any{})
	if !isErr || !strings.Contains(text, "internal error") {
		t.Errorf("MCP: %q, want an internal-error tool result", text)
	}
	if text, _, isErr := callTool(t, cs, "list_files", map[string]any{}); isErr {
		t.Errorf("after the panic: %s", text)
	}
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	status, out := post(t, ts.URL+"/v1/boom", `{}`)
	if status != 500 || !strings.Contains(out["error"].(string), "internal error") {
		t.Errorf("HTTP: %d %v", status, out)
	}
	if status, _ := post(t, ts.URL+"/v1/list_files", `{}`); status != 200 {
		t.Errorf("after the panic: %d", status)
	}
	var panics []string
	for _, line := range strings.Split(logBuf.String(), "\n") {
		if strings.Contains(line, "msg=panic") {
			panics = append(panics, line)
		}
	}
	if len(panics) != 2 || !strings.Contains(panics[0], "assignment to entry in nil map") || !strings.Contains(panics[0], "robust_test.go") {
		t.Errorf("want one log line per panic with its cause and place, got:\n%s", strings.Join(panics, "\n"))
	}
}

// Errors quote at most a little of what the caller sent, use this server's
// words, and report numbers exactly as they were written.
func TestErrorsAreShortAndOurOwn(t *testing.T) {
	srv, out := newTestServer(t, nil, Options{MaxBodyBytes: 4 << 20})
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	cs := connect(t, srv)
	huge := strings.Repeat("a/", 50<<10) // a 100 KB path
	tests := []struct {
		tool, body string
		want       string
	}{
		{"read_file", `{"files":[{"path":"` + huge + `"}]}`, "files[0].path is 102400 characters long; want at most 4096"},
		{"read_file", `{"files":[{"path":"` + strings.Repeat("x", 4000) + `"}]}`, `not found: "xxxx`},
		{"read_file", `{"files":[{"path":"nonl.txt"}],"budget_tokens":99}`, "budget_tokens is 99; want a whole number from 100 to 32000"},
		{"read_file", `{"files":[{"path":"nonl.txt"}],"budget_tokens":100.5}`, "budget_tokens: 100.5 is not a whole number"},
		{"read_file", `{"files":[{"path":"nonl.txt"}],"budget_tokens":1e400}`, "budget_tokens is 1e400; want a whole number from 100 to 32000"},
		{"read_file", `{"files":[{"path":"nonl.txt"}],"budget_tokens":9007199254740993}`, "budget_tokens is 9007199254740993;"},
		{"read_file", `{"files":[{"path":"nonl.txt","ranges":[[0,3]]}]}`, "files[0].ranges[0][0] is 0; want a whole number at least 1"},
		{"read_file", `{"files":[{"path":"nonl.txt","ranges":[null]}]}`, "files[0].ranges[0] is null; want an array"},
		{"read_file", `{"files":"nonl.txt"}`, "files is a string; want an array"},
		{"read_file", `{"files":[{"path":"nonl.txt"}],"` + huge + `":1}`, "unknown argument"},
		{"list_files", `{"offset":-1}`, "offset is -1; want a whole number at least 0"},
		{"list_files", `{"category":"` + huge + `"}`, "is not one of source, text, document, data, junk"},
		{"search", `{"pattern":"(` + strings.Repeat("x", 900) + `"}`, "pattern is not RE2: missing closing ): "},
		{"search", `{"pattern":"\\pL{1000}\\pL{1000}"}`, "pattern too costly to match"},
		{"search", `{"pattern":"zzz","path_glob":"[` + strings.Repeat("x", 900) + `"}`, "unclosed or empty ["},
	}
	for _, tt := range tests {
		status, ans := post(t, ts.URL+"/v1/"+tt.tool, tt.body)
		msg, _ := ans["error"].(string)
		if status != 400 && status != 404 || !strings.Contains(msg, tt.want) {
			t.Errorf("%s %.80s: %d %.300q, want it to say %q", tt.tool, tt.body, status, msg, tt.want)
		}
		var args map[string]any
		json.Unmarshal([]byte(tt.body), &args)
		text, _, isErr := callTool(t, cs, tt.tool, json.RawMessage(tt.body))
		if !isErr || text != msg {
			t.Errorf("%s over MCP: %.300q, want the JSON API's %.300q", tt.tool, text, msg)
		}
		for _, leak := range []string{"minimum:", "<invalid reflect.Value>", "100.000000", "statat", "openat", "validating"} {
			if strings.Contains(msg, leak) {
				t.Errorf("%s: error %q carries the library text %q", tt.tool, msg, leak)
			}
		}
		if len(msg) > 4096 {
			t.Errorf("%s: error of %d bytes for a %d-byte request", tt.tool, len(msg), len(tt.body))
		}
	}
	// A file files.json lists but the tree lost: no syscall names.
	os.Remove(filepath.Join(out, "tree", "nonl.txt"))
	status, ans := post(t, ts.URL+"/v1/read_file", `{"files":[{"path":"nonl.txt"}]}`)
	if msg := fmt.Sprint(ans["error"]); status != 500 || strings.Contains(msg, "statat") || strings.Contains(msg, "openat") || !strings.Contains(msg, "missing from the snapshot's tree") {
		t.Errorf("lost file: %d %q", status, msg)
	}
}

// One bad path in a multi-file read is an error line in its place; the
// other files are read, in order. "./a" and "a//b" are the paths they mean.
func TestReadFilePartialAndNormalized(t *testing.T) {
	srv, out := newTestServer(t, nil, Options{})
	text, res, err := read(t, srv, ReadFileArgs{Files: []FileRequest{{Path: "missing.txt"}, {Path: "./nonl.txt"}, {Path: "../x"}, {Path: "src//app/./main.go"}}})
	if err != nil {
		t.Fatal(err)
	}
	want := "[error: not found: \"missing.txt\" (no similar path; use list_files or search)]\n" +
		"   1 | one\n   2 | two\n[file: nonl.txt | total: 2 lines | shown: 1-2]\n" +
		"[error: path refused: \"../x\": '..' segment: paths stay inside the snapshot]\n" +
		"   1 | package main\n"
	if !strings.HasPrefix(text, want) || !strings.Contains(text, "[file: src/app/main.go | total: 5 lines | shown: 1-5]") {
		t.Errorf("answer:\n%s\nwant it to start with:\n%s", text, want)
	}
	if res.Failed != 2 || res.Files[0].Error == "" || res.Files[1].Path != "nonl.txt" || res.Files[2].Error == "" || res.Files[3].TotalLines != 5 {
		t.Errorf("structured: %+v", res)
	}
	// A listed file removed from the tree is that file's error too.
	os.Remove(filepath.Join(out, "tree", "src", "app", "util.go"))
	text, res, err = read(t, srv, ReadFileArgs{Files: []FileRequest{{Path: "src/app/util.go"}, {Path: "nonl.txt"}}})
	if err != nil || !strings.HasPrefix(text, `[error: "src/app/util.go" is listed in files.json but missing from the snapshot's tree]`) || res.Files[1].TotalLines != 2 {
		t.Errorf("removed file: %v\n%s", err, text)
	}
}

// The smallest budget_tokens accepted shows at least one line of ordinary
// length (a 2000-character line alone is over it, and says so).
func TestBudgetMinimumShowsALine(t *testing.T) {
	srv, _ := newTestServer(t, nil, Options{})
	for _, path := range []string{"big.txt", "src/app/main.go", "docs/guide.md", "a b/spaced name.txt"} {
		_, res, err := read(t, srv, ReadFileArgs{Files: []FileRequest{{Path: path}}, BudgetTokens: minBudgetTokens})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Files[0].Shown) == 0 || res.Tokens > minBudgetTokens {
			t.Errorf("%s at budget %d: shown %v, %d tokens", path, minBudgetTokens, res.Files[0].Shown, res.Tokens)
		}
	}
}

// A staged name holding a real U+FFFD (valid UTF-8) is an ordinary name.
func TestReplacementCharacterNameReadable(t *testing.T) {
	s := snap{files: map[string]string{"caf\uFFFD.txt": "ok\n"}}
	srv, _ := newTestServer(t, &s, Options{})
	text, _, err := read(t, srv, ReadFileArgs{Files: []FileRequest{{Path: "caf\uFFFD.txt"}}})
	if err != nil || !strings.Contains(text, "   1 | ok\n") {
		t.Errorf("read U+FFFD name: %v %q", err, text)
	}
}

// structuredContent comes exactly with an outputSchema, and matches it; the
// server advertises only what it does.
func TestStructuredContentAndCapabilities(t *testing.T) {
	srv, _ := newTestServer(t, nil, Options{})
	cs := connect(t, srv)
	caps, _ := json.Marshal(cs.InitializeResult().Capabilities)
	if string(caps) != `{"resources":{"listChanged":true},"tools":{}}` {
		t.Errorf("capabilities %s, want tools without listChanged, resources, and nothing else", caps)
	}
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	args := map[string]any{
		"read_file":  map[string]any{"files": []any{map[string]any{"path": "big.txt"}, map[string]any{"path": "nope"}}},
		"list_files": map[string]any{"limit": 2},
		"search":     map[string]any{"pattern": "TODO"},
		"repo_map":   map[string]any{},
	}
	for _, tool := range tools.Tools {
		if _, ok := args[tool.Name]; !ok {
			continue // instructions: this snapshot has no instructions.json (covered in instructions_test.go)
		}
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool.Name, Arguments: args[tool.Name]})
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %v", tool.Name, err, res)
		}
		if (tool.OutputSchema == nil) != (res.StructuredContent == nil) {
			t.Errorf("%s: outputSchema %v, structuredContent %v", tool.Name, tool.OutputSchema != nil, res.StructuredContent != nil)
			continue
		}
		if tool.OutputSchema == nil {
			continue
		}
		raw, _ := json.Marshal(tool.OutputSchema)
		var sc jsonschema.Schema
		if err := json.Unmarshal(raw, &sc); err != nil {
			t.Fatal(err)
		}
		resolved, err := sc.Resolve(nil)
		if err != nil {
			t.Fatal(err)
		}
		var v any
		data, _ := json.Marshal(res.StructuredContent)
		json.Unmarshal(data, &v)
		if err := resolved.Validate(v); err != nil {
			t.Errorf("%s: structuredContent does not match its outputSchema: %v", tool.Name, err)
		}
	}
}

// /healthz names the snapshot: the sha256 of files.json (as sha256sum
// prints it) and when it was published, and follows a republication.
func TestHealthzNamesTheSnapshot(t *testing.T) {
	parent := t.TempDir()
	out := filepath.Join(parent, "out")
	publish(t, out, baseSnap())
	srv, err := New(out, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	health := func() Health {
		resp, err := http.Get(ts.URL + "/healthz")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var h Health
		json.NewDecoder(resp.Body).Decode(&h)
		return h
	}
	sum := func() string {
		data, _ := os.ReadFile(filepath.Join(out, "files.json"))
		s := sha256.Sum256(data)
		return hex.EncodeToString(s[:])
	}
	h := health()
	fi, _ := os.Stat(filepath.Join(out, "files.json"))
	if h.Status != "ok" || h.FilesJSONHash != sum() || h.Published != fi.ModTime().UTC().Format(time.RFC3339Nano) || !h.SearchIndex {
		t.Errorf("healthz = %+v, want files.json's sha256 %s and mtime %s", h, sum(), fi.ModTime().UTC())
	}
	next := filepath.Join(parent, "next")
	s := baseSnap()
	s.files["new.txt"] = "new\n"
	publish(t, next, s)
	swapDirs(t, next, out)
	if h2 := health(); h2.FilesJSONHash == h.FilesJSONHash || h2.FilesJSONHash != sum() {
		t.Errorf("after republishing: %+v", h2)
	}
}

// swapDirs exchanges next and out as repoprep run publishes, then removes
// the old snapshot (now at next).
func swapDirs(t testing.TB, next, out string) {
	t.Helper()
	if err := exchangeDirs(next, out); errors.Is(err, errors.ErrUnsupported) {
		t.Skip("no atomic exchange of two directories on this platform")
	} else if err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(next)
}

func nilMap() map[string]int { return nil }
