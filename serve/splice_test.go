package serve

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/repoprep/repoprep/internal/jsonstr"
)

// stdioLines sends tool calls (their params) to a stdio session as
// requests 0, 1, ... and returns the lines it answers, by id. spliced
// picks ServeStdio (results encoded by the handlers, splice.go; the
// express lane) or the SDK's own handling and encoding on the same
// transport.
func stdioLines(t *testing.T, srv *Server, spliced bool, version string, lines []string) map[string]string {
	t.Helper()
	rs := openRaw(t, srv, spliced, version)
	for i, line := range lines {
		rs.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":%s}`, i, line))
		rs.answer(fmt.Sprint(i))
	}
	return rs.got
}

// TestStdioSplicedBytes: over stdio, every tool's answer is byte for byte
// the message the SDK encodes, for texts that need every kind of JSON
// escape, answers that fail, and every tool.
func TestStdioSplicedBytes(t *testing.T) {
	s := baseSnap()
	s.files["web/page.html"] = "<script>if (a < b && c > d) { x = \"q\\\\\"; }</script>\n\u2028line\u2029sep\ttab\x01ctl\x7fdel\n"
	s.files["src/app/quote.go"] = "package main\n\nconst s = `it's \"quoted\" & <tagged>`\n"
	srv, _ := newTestServer(t, &s, Options{})
	calls := []string{
		`{"name":"read_file","arguments":{"files":[{"path":"web/page.html"}]}}`,
		`{"name":"read_file","arguments":{"files":[{"path":"src/app/quote.go"},{"path":"cjk.md"},{"path":"nope.go"}]}}`,
		`{"name":"read_file","arguments":{"files":[{"path":"big.txt"}],"budget_tokens":300}}`,
		`{"name":"read_file","arguments":{"files":[{"path":"dump.sql","ranges":[[2000,2100]]}]}}`,
		`{"name":"read_file","arguments":{"files":[{"path":"vendor/copy.go"}]}}`,
		`{"name":"read_file","arguments":{"files":[{"path":"../etc/passwd"}]}}`,
		`{"name":"read_file","arguments":{"files":[]}}`,
		`{"name":"search","arguments":{"pattern":"TODO|<script>","context_lines":1}}`,
		`{"name":"list_files","arguments":{"prefix":"src/"}}`,
		`{"name":"repo_map","arguments":{}}`,
		`{"name":"instructions","arguments":{"path":"src/app/main.go"}}`,
		`{"name":"no_such_tool","arguments":{}}`,
	}
	// The oldest protocol version the SDK speaks and its newest, which
	// wraps results in more (_meta, resultType).
	for _, version := range []string{"2024-11-05", "2025-06-18", "2026-07-28"} {
		want := stdioLines(t, srv, false, version, calls)
		got := stdioLines(t, srv, true, version, calls)
		for i := range calls {
			id := fmt.Sprint(i)
			if got[id] != want[id] {
				t.Errorf("%s, %s:\nspliced %s\nSDK     %s", version, calls[i], got[id], want[id])
			}
			if strings.Contains(got[id], "repoprep-splice-") {
				t.Errorf("%s, %s: a placeholder reached the client: %s", version, calls[i], got[id])
			}
		}
	}
}

// TestSplicerForgets: a held result is written once; one the SDK never
// sends (a cancelled call) is dropped once newer ones pile up; another
// session's splicer does not take it.
func TestSplicerForgets(t *testing.T) {
	sp := newSplicer()
	res, err := sp.hold("the text", map[string]int{"n": 1})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	id, _ := jsonrpc.MakeID(float64(7))
	msg := &jsonrpc.Response{ID: id, Result: raw}
	if other, ok, _ := newSplicer().spliceMessage(msg); ok {
		t.Errorf("another splicer spliced %s", other)
	}
	data, ok, err := sp.spliceMessage(msg)
	if want := `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"the text"}],"structuredContent":{"n":1}}}`; !ok || err != nil || string(data) != want {
		t.Fatalf("spliced %s (%v, %v), want %s", data, ok, err, want)
	}
	if _, ok, _ := sp.spliceMessage(msg); ok {
		t.Error("a result was written twice")
	}
	for range 3 * maxHeldResults {
		sp.hold("x", nil)
	}
	if n := len(sp.held); n > maxHeldResults+1 {
		t.Errorf("%d results held, at most %d", n, maxHeldResults+1)
	}
}

// TestEncodeReadResult: read_file's results, encoded by hand, are the
// bytes json.Marshal writes, over every answer of the budget corpus
// (texts cut, multi-file, failed files, encodings).
func TestEncodeReadResult(t *testing.T) {
	s := budgetCorpus(t)
	s.files["web/page.html"] = "<a href=\"x&y\">\u2028</a>\x01\n"
	s.files["bad/\"quoted\"&<path>.txt"] = "text\n"
	srv, _ := newTestServer(t, &s, Options{})
	calls := budgetCalls(s)
	calls = append(calls,
		ReadFileArgs{Files: []FileRequest{{Path: "web/page.html"}, {Path: "nope"}, {Path: "bad/\"quoted\"&<path>.txt"}}},
		ReadFileArgs{Files: []FileRequest{{Path: "web/page.html"}, {Path: "http/server.go"}}, BudgetTokens: 100})
	n := 0
	for _, args := range calls {
		text, res, err := read(t, srv, args)
		if err != nil {
			continue
		}
		cuts, ok := readResultCuts(&res, text)
		if !ok {
			t.Fatalf("%+v: the files' texts are not the answer's parts", args)
		}
		escaped, ends := jsonstr.AppendCuts(nil, text, true, cuts, nil)
		got := appendReadResult(nil, &res, escaped, ends)
		wantText, _ := json.Marshal(text)
		want, _ := json.Marshal(res)
		if string(escaped) != string(wantText) || string(got) != string(want) {
			t.Fatalf("%+v:\ngot  %s\nwant %s", args, tail(string(got)), tail(string(want)))
		}
		n++
	}
	for _, r := range []ReadFileResult{{}, {Files: []FileResult{{Shown: [][]int{nil, {}}}}}, {Files: []FileResult{{}}, Failed: 1, Cut: true}} {
		ends := make([]int, len(r.Files))
		for i := range ends {
			ends[i] = 1 // every text empty: after the opening quote
		}
		got := appendReadResult(nil, &r, []byte(`""`), ends)
		for i := range r.Files {
			r.Files[i].Text = ""
		}
		if want, _ := json.Marshal(r); string(got) != string(want) {
			t.Errorf("got  %s\nwant %s", got, want)
		}
	}
	if n < 100 {
		t.Errorf("only %d answers compared", n)
	}
}
