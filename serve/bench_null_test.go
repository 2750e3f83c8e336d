package serve

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// The null server is make bench-mcp's floor: a process that answers every
// MCP request with the bytes `repoprep serve` answers it with, from a map
// in memory, doing no other work. Driven by the same client and harness as
// the servers it is measured beside, its calls/s at 1 and 16 in flight is
// what any server can reach on the machine, since the client (Node) and
// the server share its cores; its CPU per call is what reading a request
// line and writing an answer line costs, the rest of a server's CPU is the
// answer's making.
//
// It is a recording proxy: the first time a request arrives (keyed by its
// line without the id), it is sent to a real `repoprep serve` (its command
// in REPOPREP_MCP_NULL_BACKEND, a JSON array) and the answer kept; every
// later time the kept answer is written with the caller's id in place.
// The bench's warm-up asks every call twice, so every measured call is
// answered from the map: the bytes are repoprep's own, envelope and
// negotiated protocol version included, and nothing is re-made.

// nullBackendEnv names the environment variable that makes
// TestMCPNullServer run the null server on stdin and stdout.
const nullBackendEnv = "REPOPREP_MCP_NULL_BACKEND"

// TestMCPNullServer is the null server's process: bench-mcp runs this
// test binary with -test.run=^TestMCPNullServer$ and the backend's command
// in REPOPREP_MCP_NULL_BACKEND; without it the test is skipped.
func TestMCPNullServer(t *testing.T) {
	spec := os.Getenv(nullBackendEnv)
	if spec == "" {
		t.Skip(nullBackendEnv + " is not set: this test is make bench-mcp's null server")
	}
	var argv []string
	if err := json.Unmarshal([]byte(spec), &argv); err != nil || len(argv) == 0 {
		fmt.Fprintf(os.Stderr, "null server: %s=%q: want a JSON array naming a command\n", nullBackendEnv, spec)
		os.Exit(2)
	}
	backend := exec.Command(argv[0], argv[1:]...)
	backend.Stderr = os.Stderr
	// A profile asked of the servers (REPOPREP_CPUPROFILE) is the measured
	// one's: the backend only answers the warm-up.
	backend.Env = slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, "REPOPREP_CPUPROFILE=") })
	toBackend, err := backend.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	fromBackend, err := backend.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := backend.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "null server: %v\n", err)
		os.Exit(2)
	}
	in, restore := pollable(os.Stdin) // read as repoprep serve reads it
	err = runNullServer(in, os.Stdout, toBackend, fromBackend)
	restore()
	toBackend.Close()
	backend.Wait()
	if err != nil {
		fmt.Fprintf(os.Stderr, "null server: %v\n", err)
		os.Exit(1)
	}
	os.Exit(0) // before the testing package prints PASS on the client's stream
}

// keptAnswer is a response line split around its id.
type keptAnswer struct {
	beforeID, afterID []byte // afterID ends with the newline
}

// runNullServer answers the lines of in on out, each from the map after
// its first time, which goes to the backend (toBackend, fromBackend).
// Requests are answered one at a time, in order, as they come.
func runNullServer(in io.Reader, out io.Writer, toBackend io.Writer, fromBackend io.Reader) error {
	br := bufio.NewReaderSize(in, 64<<10)
	backend := bufio.NewReaderSize(fromBackend, 1<<20)
	byRequest := map[string]keptAnswer{}
	var answer []byte
	for {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			return fmt.Errorf("a request line over %d bytes", br.Size())
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		key, id, isRequest := splitRequestID(line)
		if !isRequest { // a notification: the backend's, no answer
			if _, err := toBackend.Write(line); err != nil {
				return err
			}
			continue
		}
		kept, ok := byRequest[string(key)]
		if !ok {
			if kept, err = askBackend(line, id, toBackend, backend, out); err != nil {
				return err
			}
			byRequest[string(key)] = kept
		}
		answer = append(append(append(answer[:0], kept.beforeID...), id...), kept.afterID...)
		if _, err := out.Write(answer); err != nil {
			return err
		}
	}
}

// splitRequestID finds a request line's id, the value of the last "id"
// key (the TypeScript SDK writes it last), and returns the line before it
// as the request's key; isRequest is false for a line without one.
func splitRequestID(line []byte) (key, id []byte, isRequest bool) {
	at := bytes.LastIndex(line, []byte(`"id":`))
	if at < 0 {
		return nil, nil, false
	}
	rest := line[at+len(`"id":`):]
	end := bytes.IndexAny(rest, ",}")
	if end <= 0 {
		return nil, nil, false
	}
	return line[:at], rest[:end], true
}

// askBackend sends one request line to the backend and returns its answer
// split around the id; lines the backend writes before it (notifications)
// are passed on to out.
func askBackend(line, id []byte, toBackend io.Writer, fromBackend *bufio.Reader, out io.Writer) (keptAnswer, error) {
	if _, err := toBackend.Write(line); err != nil {
		return keptAnswer{}, err
	}
	for {
		resp, err := fromBackend.ReadBytes('\n')
		if err != nil {
			return keptAnswer{}, fmt.Errorf("backend: %w", err)
		}
		// The SDK writes {"jsonrpc":"2.0","id":...: the first "id" key.
		at := bytes.Index(resp, []byte(`"id":`))
		if at < 0 {
			if _, err := out.Write(resp); err != nil {
				return keptAnswer{}, err
			}
			continue
		}
		start := at + len(`"id":`)
		if end := start + len(id); !bytes.HasPrefix(resp[start:], id) || end >= len(resp) || (resp[end] != ',' && resp[end] != '}') {
			return keptAnswer{}, fmt.Errorf("backend answered id %.20s, want %s", resp[start:], id)
		}
		return keptAnswer{beforeID: resp[:start], afterID: resp[start+len(id):]}, nil
	}
}

// countingWriter counts the lines written through it.
type countingWriter struct {
	w     io.Writer
	lines int
}

func (c *countingWriter) Write(p []byte) (int, error) {
	c.lines += bytes.Count(p, []byte("\n"))
	return c.w.Write(p)
}

// TestNullServerReplays: the null server asks the backend each request
// once and answers it again from memory, with the caller's id, in the
// bytes the backend itself answers that id with.
func TestNullServerReplays(t *testing.T) {
	srv, _ := newTestServer(t, nil, Options{})
	ctx := t.Context()
	serverIn, toBackendPipe := io.Pipe()
	fromBackend, serverOut := io.Pipe()
	go srv.ServeStdio(ctx, serverIn, serverOut)
	toBackend := &countingWriter{w: toBackendPipe}

	const (
		initialize = `{"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}},"jsonrpc":"2.0","id":0}`
		notify     = `{"method":"notifications/initialized","jsonrpc":"2.0"}`
		callFmt    = `{"method":"tools/call","params":{"name":"read_file","arguments":{"files":[{"path":%q}]}},"jsonrpc":"2.0","id":%d}`
	)
	var client bytes.Buffer
	for _, line := range []string{
		initialize,
		notify,
		fmt.Sprintf(callFmt, "src/app/main.go", 1),
		fmt.Sprintf(callFmt, "big.txt", 2),
		fmt.Sprintf(callFmt, "src/app/main.go", 12), // from memory from here on
		fmt.Sprintf(callFmt, "big.txt", 1234567),
		fmt.Sprintf(callFmt, "src/app/main.go", 3),
	} {
		client.WriteString(line + "\n")
	}
	var answers bytes.Buffer
	if err := runNullServer(&client, &answers, toBackend, fromBackend); err != nil {
		t.Fatal(err)
	}
	if toBackend.lines != 4 { // initialize, the notification, two reads
		t.Errorf("the backend was sent %d lines, want 4", toBackend.lines)
	}

	// What the backend answers each id itself, asked afresh.
	backend := bufio.NewReader(fromBackend)
	direct := func(path string, id int) string {
		t.Helper()
		if _, err := fmt.Fprintf(toBackendPipe, callFmt+"\n", path, id); err != nil {
			t.Fatal(err)
		}
		line, err := backend.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		return line
	}
	got := bytes.SplitAfter(answers.Bytes(), []byte("\n"))
	if len(got) != 7 || len(got[6]) != 0 { // six answers and the empty tail
		t.Fatalf("%d answers, want 6:\n%s", len(got)-1, answers.Bytes())
	}
	for i, tc := range []struct {
		path string
		id   int
	}{{"src/app/main.go", 1}, {"big.txt", 2}, {"src/app/main.go", 12}, {"big.txt", 1234567}, {"src/app/main.go", 3}} {
		if want := direct(tc.path, tc.id); string(got[i+1]) != want {
			t.Errorf("answer to %s id %d:\n got %.300s\nwant %.300s", tc.path, tc.id, got[i+1], want)
		}
	}
	toBackendPipe.Close()
}

func TestSplitRequestID(t *testing.T) {
	for _, tc := range []struct {
		name, line, key, id string
		isRequest           bool
	}{
		{"request", `{"method":"ping","jsonrpc":"2.0","id":7}`, `{"method":"ping","jsonrpc":"2.0",`, "7", true},
		{"nested id first", `{"params":{"id":1},"jsonrpc":"2.0","id":"x"}`, `{"params":{"id":1},"jsonrpc":"2.0",`, `"x"`, true},
		{"notification", `{"method":"notifications/initialized","jsonrpc":"2.0"}`, "", "", false},
		{"empty id", `{"id":}`, "", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			key, id, ok := splitRequestID([]byte(tc.line))
			if string(key) != tc.key || string(id) != tc.id || ok != tc.isRequest {
				t.Errorf("splitRequestID(%s) = %q, %q, %v; want %q, %q, %v", tc.line, key, id, ok, tc.key, tc.id, tc.isRequest)
			}
		})
	}
}

// FuzzSplitRequestID: whatever the line, a request's key and id are the
// line's own bytes, the id right after the key's "id":, never empty and
// never running past its value.
func FuzzSplitRequestID(f *testing.F) {
	for _, s := range []string{`{"method":"ping","jsonrpc":"2.0","id":7}`, `{"id":}`, `"id":"id":1,`, `{"jsonrpc":"2.0"}`, ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		if len(line) > 1<<16 {
			return // a request line is short; bound the cost
		}
		key, id, ok := splitRequestID([]byte(line))
		if !ok {
			return
		}
		rest, found := strings.CutPrefix(line, string(key)+`"id":`+string(id))
		if !found || len(id) == 0 || strings.ContainsAny(string(id), ",}") || (rest != "" && rest[0] != ',' && rest[0] != '}') {
			t.Fatalf("splitRequestID(%q) = %q, %q", line, key, id)
		}
	})
}
