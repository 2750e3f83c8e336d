package serve

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"
)

var fuzzTools = []string{"read_file", "list_files", "search", "repo_map", "no_such_tool"}

// FuzzHandlers drives the JSON API, MCP tools/call and the raw stdio line
// reader with arbitrary bodies: the server must survive every one (a ping
// after it is answered), never answer 500 or panic, and answer well-formed
// JSON: {"text"} or {"error"} over HTTP, a JSON-RPC result or error with
// the right id over MCP, a tool result with text, and a short error.
func FuzzHandlers(f *testing.F) {
	for _, s := range []string{
		`{"files":[{"path":"big.txt","ranges":[[1,3]]}]}`, `null`, ``, `{}`, `[]`, `5`, `"x"`, `{"files":null}`,
		`{"files":[null]}`, `{"files":[{"path":null}]}`, `{"files":[{"path":"./nonl.txt"},{"path":"nope"}],"budget_tokens":100}`,
		`{"pattern":"TODO","context_lines":10,"max_results":500}`, `{"pattern":"(?i)\\pL{999}x"}`, `{"pattern":"a","path_glob":"{"}`,
		`{"limit":1e400}`, `{"offset":-0.0}`, `{"limit":1.0}`, `{"test":"yes"}`, `{"category":null}`, `{"prefix":"\u0000"}`,
		`{"files":[{"path":"big.txt","ranges":[[1e2,2e2],[999999999999999999999,1]]}]}`, `{"a":` + strings.Repeat("[", 200),
		`{"files":[{"path":"dump.sql","ranges":[[2990,3100]]}]}`, `{"files":[{"path":"caf\ufffd.txt"}]}`,
	} {
		for i := range fuzzTools {
			f.Add(uint8(i), []byte(s))
		}
	}
	var logs bytes.Buffer
	srv, _ := newTestServer(f, nil, Options{RequestTimeout: 2 * time.Second, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	h := srv.Handler()
	c := newRawStdio(f, srv)
	n := 0
	f.Fuzz(func(t *testing.T, which uint8, body []byte) {
		c.t = t
		tool := fuzzTools[int(which)%len(fuzzTools)]

		// The JSON API.
		rec := httptest.NewRecorder()
		req := httptest.NewRequest("POST", "/v1/"+tool, bytes.NewReader(body))
		req.Host = "127.0.0.1"
		h.ServeHTTP(rec, req)
		var out map[string]any
		if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
			t.Fatalf("/v1/%s: %d body %q is not a JSON object", tool, rec.Code, rec.Body.Bytes())
		}
		switch {
		case !slices.Contains([]int{200, 400, 404, 413, 504}, rec.Code):
			t.Fatalf("/v1/%s %q: status %d %v", tool, body, rec.Code, out)
		case rec.Code == 200 && out["text"] == nil, rec.Code != 200 && out["error"] == nil:
			t.Fatalf("/v1/%s: %d %v", tool, rec.Code, out)
		case rec.Code != 200 && len(out["error"].(string)) > 4096+len(body):
			t.Fatalf("/v1/%s: %d-byte error", tool, len(out["error"].(string)))
		}

		// MCP tools/call with the body as its arguments.
		n++
		id := fmt.Sprint(n)
		if json.Valid(body) && len(bytes.TrimSpace(body)) > 0 {
			c.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + string(bytes.ReplaceAll(body, []byte("\n"), []byte(" "))) + `}}`)
			ans := c.wait(id)
			res, _ := ans["result"].(map[string]any)
			if tool != "no_such_tool" && (res == nil || res["content"] == nil) {
				t.Fatalf("tools/call %s %q: %v", tool, body, ans)
			}
		}

		// The same bytes as a raw stdio line, then a ping.
		line := strings.ReplaceAll(strings.ReplaceAll(string(body), "\n", " "), "\r", " ")
		c.send(line)
		c.send(`{"jsonrpc":"2.0","id":"ping` + id + `","method":"ping"}`)
		if ans := c.wait(`"ping` + id + `"`); ans["result"] == nil {
			t.Fatalf("ping after %q: %v", line, ans)
		}
		if len(c.bad) > 0 {
			t.Fatalf("server wrote non-JSON-RPC lines: %q", c.bad)
		}
		if strings.Contains(logs.String(), "msg=panic") {
			t.Fatalf("a handler panicked:\n%s", logs.String())
		}
	})
}

// The JSON API answers 400 for a body that is not an object, never 500.
func TestHTTPBodyNotAnObject(t *testing.T) {
	srv, _ := newTestServer(t, nil, Options{})
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	for _, body := range []string{"null", "[]", "5", `"x"`, "true", "{} {}", "{"} {
		status, out := post(t, ts.URL+"/v1/read_file", body)
		if status != http.StatusBadRequest {
			t.Errorf("body %q: %d %v", body, status, out)
		}
	}
}
