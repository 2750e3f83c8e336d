package serve

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/repoprep/repoprep/internal/testkit"
	"github.com/repoprep/repoprep/snapshot"
)

// fsServerVersion pins the reference server make bench-mcp measures
// against: the MCP project's filesystem server, from npm.
const fsServerVersion = "2026.8.31"

// TestBenchMCP is make bench-mcp: `repoprep serve` beside the reference
// filesystem server (@modelcontextprotocol/server-filesystem), both over
// stdio and both driven by the official TypeScript SDK client
// (testdata/mcpclient/bench.mjs), on the same 500-line heads of Go's
// net/http: repoprep's read_file with its defaults (500 lines, 8000
// tokens) on a snapshot the binary under test makes, the filesystem
// server's read_text_file with head 500 on that snapshot's tree/. Each is
// measured at 1 and at 16 calls in flight, in rounds that alternate the
// servers, and the table gives calls/s, p50 and p99 (medians over the
// rounds) and the ratios the read server's target is stated in. Beside
// them runs the floor, the null server (bench_null_test.go: this test
// binary answering with repoprep's own bytes from memory), whose calls/s no
// server can pass on this machine with this client.
//
// REPOPREP_BENCH_MCP names the repoprep binary (make bench-mcp builds
// bin/repoprep); REPOPREP_BENCH_MCP_BASE optionally names another, measured
// in the same run on the same snapshot (make bench-mcp BASE=HEAD builds git
// HEAD). The filesystem server is installed with npm into
// REPOPREP_BENCH_MCP_CACHE (default .bench/mcp), never into the
// repository. Without node and npm the benchmark is skipped.
func TestBenchMCP(t *testing.T) {
	bin := os.Getenv("REPOPREP_BENCH_MCP")
	if bin == "" {
		t.Skip("REPOPREP_BENCH_MCP names no repoprep binary; run make bench-mcp")
	}
	node, errNode := exec.LookPath("node")
	npm, errNpm := exec.LookPath("npm")
	if errNode != nil || errNpm != nil {
		t.Skipf("node or npm not found (%v, %v): bench-mcp skipped", errNode, errNpm)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	modules := testkit.NPMCI(t, ctx, npm, mcpClientDir)
	cache := os.Getenv("REPOPREP_BENCH_MCP_CACHE")
	if cache == "" {
		cache = filepath.Join("..", ".bench", "mcp")
	}
	cache, err := filepath.Abs(cache)
	if err != nil {
		t.Fatal(err)
	}
	fsServer := installFSServer(t, ctx, npm, filepath.Join(cache, "server-filesystem"))

	root, err := testkit.GoRoot()
	if err != nil {
		t.Skipf("go env GOROOT: %v", err)
	}
	out := filepath.Join(t.TempDir(), "out")
	start := time.Now()
	run := exec.CommandContext(ctx, bin, "run", "-q", "--progress", "never", "-o", out, filepath.Join(root, "src", "net", "http"))
	if msg, err := run.CombinedOutput(); err != nil {
		t.Fatalf("repoprep run: %v\n%s", err, msg)
	}
	t.Logf("snapshot of net/http in %v", time.Since(start).Round(time.Millisecond))
	m, err := snapshot.ReadManifest(out)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, e := range m.Files {
		if e.Staged && !e.Oversize { // oversize files are read by range only
			paths = append(paths, e.Path)
		}
	}
	slices.Sort(paths)

	type server struct {
		Name    string            `json:"name"`
		Command string            `json:"command"`
		Args    []string          `json:"args"`
		Env     map[string]string `json:"env,omitempty"`
		Tool    string            `json:"tool"`
		Calls   []map[string]any  `json:"calls"`
	}
	repoprep := func(name, bin string) server {
		s := server{Name: name, Command: bin, Args: []string{"serve", "-q", out}, Tool: "read_file"}
		for _, p := range paths {
			s.Calls = append(s.Calls, map[string]any{"files": []any{map[string]any{"path": p}}})
		}
		return s
	}
	// The floor: the null server (bench_null_test.go), this test binary
	// answering with bytes `repoprep serve` made, from memory.
	backend, _ := json.Marshal([]string{bin, "serve", "-q", out})
	null := repoprep("null (repoprep's bytes)", os.Args[0])
	null.Args = []string{"-test.run=^TestMCPNullServer$"}
	null.Env = map[string]string{nullBackendEnv: string(backend)}
	servers := []server{null, repoprep("repoprep", bin)}
	if base := os.Getenv("REPOPREP_BENCH_MCP_BASE"); base != "" {
		servers = append(servers, repoprep("repoprep (base)", base))
	}
	fs := server{Name: "filesystem " + fsServerVersion, Command: node, Args: []string{fsServer, filepath.Join(out, "tree")}, Tool: "read_text_file"}
	for _, p := range paths {
		fs.Calls = append(fs.Calls, map[string]any{"path": filepath.Join(out, "tree", filepath.FromSlash(p)), "head": 500})
	}
	servers = append(servers, fs)
	rounds, seconds := envInt("REPOPREP_BENCH_MCP_ROUNDS", 3), envInt("REPOPREP_BENCH_MCP_SECONDS", 3)
	plan := map[string]any{"servers": servers, "inflight": []int{1, 16}, "rounds": rounds, "seconds": seconds, "warmup": 2 * len(paths)}
	planFile := filepath.Join(t.TempDir(), "plan.json")
	data, _ := json.Marshal(plan)
	if err := os.WriteFile(planFile, data, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, node, testkit.Script(t, modules, filepath.Join(mcpClientDir, "bench.mjs")), planFile)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("bench.mjs: %v\n%s", err, stderr.Bytes())
	}

	type result struct {
		Server    string     `json:"server"`
		Inflight  int        `json:"inflight"`
		Calls     int        `json:"calls"`
		Seconds   float64    `json:"seconds"`
		Latencies [2]float64 `json:"latencies_ms"`
		ServerCPU *float64   `json:"server_cpu_s"`
		ClientCPU float64    `json:"client_cpu_s"`
	}
	type key struct {
		server   string
		inflight int
	}
	byKey := map[key][]result{}
	sc := bufio.NewScanner(&stdout)
	for sc.Scan() {
		var r result
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("bench.mjs output %q: %v", sc.Bytes(), err)
		}
		k := key{r.Server, r.Inflight}
		byKey[k] = append(byKey[k], r)
	}
	type row struct{ rate, p50, p99, cpuUs, clientUs float64 }
	rows := map[key]row{}
	var b strings.Builder
	fmt.Fprintf(&b, "bench-mcp: 500-line heads of %d files of Go's net/http over stdio MCP, official TypeScript SDK client, %d rounds of %d s\n", len(paths), rounds, seconds)
	fmt.Fprintf(&b, "%-28s %9s %9s %8s %8s %16s %16s\n", "server", "in flight", "calls/s", "p50 ms", "p99 ms", "server CPU/call", "client CPU/call")
	for _, inflight := range []int{1, 16} {
		for _, s := range servers {
			rs := byKey[key{s.Name, inflight}]
			if len(rs) == 0 {
				t.Fatalf("no measurement of %s at %d in flight", s.Name, inflight)
			}
			var rate, p50, p99, cpu, client []float64
			for _, r := range rs {
				rate = append(rate, float64(r.Calls)/r.Seconds)
				p50 = append(p50, r.Latencies[0])
				p99 = append(p99, r.Latencies[1])
				if r.ServerCPU != nil && r.Calls > 0 {
					cpu = append(cpu, *r.ServerCPU/float64(r.Calls)*1e6)
				}
				if r.Calls > 0 {
					client = append(client, r.ClientCPU/float64(r.Calls)*1e6)
				}
			}
			rw := row{median(rate), median(p50), median(p99), median(cpu), median(client)}
			rows[key{s.Name, inflight}] = rw
			cpuText := "-"
			if len(cpu) > 0 {
				cpuText = fmt.Sprintf("%.0f µs", rw.cpuUs)
			}
			fmt.Fprintf(&b, "%-28s %9d %9.0f %8.2f %8.2f %16s %13.0f µs\n", s.Name, inflight, rw.rate, rw.p50, rw.p99, cpuText, rw.clientUs)
		}
	}
	ref1, ref16 := rows[key{fs.Name, 1}], rows[key{fs.Name, 16}]
	floor1, floor16 := rows[key{null.Name, 1}], rows[key{null.Name, 16}]
	fmt.Fprintf(&b, "floor (null server) / filesystem: %.2fx calls/s at 1 in flight, %.2fx at 16: no server can pass these here; p99 at 16 %.2f ms\n",
		floor1.rate/ref1.rate, floor16.rate/ref16.rate, floor16.p99)
	for _, s := range servers[1 : len(servers)-1] {
		one, sixteen := rows[key{s.Name, 1}], rows[key{s.Name, 16}]
		fmt.Fprintf(&b, "%s / filesystem: %.2fx calls/s at 1 in flight, %.2fx at 16 (target 3x); p99 at 16 %.2f ms against its p50 %.2f ms (target below); of the floor: %.2f at 1, %.2f at 16; server CPU/call %.1fx the null server's at 16\n",
			s.Name, one.rate/ref1.rate, sixteen.rate/ref16.rate, sixteen.p99, ref16.p50, one.rate/floor1.rate, sixteen.rate/floor16.rate, sixteen.cpuUs/floor16.cpuUs)
	}
	t.Log("\n" + b.String())
}

// installFSServer installs the pinned filesystem server into dir with npm
// unless it is there already, and returns its entry script.
func installFSServer(t *testing.T, ctx context.Context, npm, dir string) string {
	t.Helper()
	pkg := filepath.Join(dir, "node_modules", "@modelcontextprotocol", "server-filesystem")
	script := filepath.Join(pkg, "dist", "index.js")
	var have struct {
		Version string `json:"version"`
	}
	if data, err := os.ReadFile(filepath.Join(pkg, "package.json")); err == nil && json.Unmarshal(data, &have) == nil && have.Version == fsServerVersion {
		return script
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	manifest := fmt.Sprintf(`{"name": "repoprep-bench-mcp-fs", "private": true, "dependencies": {"@modelcontextprotocol/server-filesystem": %q}}`, fsServerVersion)
	if err := os.WriteFile(filepath.Join(dir, "package.json"), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	cmd := exec.CommandContext(ctx, npm, "install", "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Skipf("npm install @modelcontextprotocol/server-filesystem@%s: %v (no registry?): bench-mcp skipped\n%s", fsServerVersion, err, out)
	}
	t.Logf("npm install: @modelcontextprotocol/server-filesystem %s in %v", fsServerVersion, time.Since(start).Round(time.Millisecond))
	return script
}

func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

// BenchmarkReadFileStdio is one read_file call over ServeStdio, as
// bench-mcp makes them (500-line heads of net/http's files at the default
// budget), from a client that writes the request line and reads the
// answer line: the server's share of a call, without Node.
func BenchmarkReadFileStdio(b *testing.B) {
	src := testkit.GoSrc(b)
	entries, err := os.ReadDir(filepath.Join(src, "net", "http"))
	if err != nil {
		b.Fatal(err)
	}
	s := snap{files: map[string]string{}}
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".go") {
			data, err := os.ReadFile(filepath.Join(src, "net", "http", e.Name()))
			if err != nil {
				b.Fatal(err)
			}
			s.files["http/"+e.Name()] = string(data)
		}
	}
	for _, noTokens := range []bool{false, true} {
		name := "index"
		if noTokens {
			name = "counting"
		}
		b.Run(name, func(b *testing.B) {
			s.noTokens = noTokens
			srv, _ := newTestServer(b, &s, Options{})
			serverIn, clientOut := io.Pipe()
			clientIn, serverOut := io.Pipe()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			go srv.ServeStdio(ctx, serverIn, serverOut)
			br := bufio.NewReaderSize(clientIn, 1<<20)
			call := func(line string) {
				if _, err := io.WriteString(clientOut, line+"\n"); err != nil {
					b.Fatal(err)
				}
				if _, err := br.ReadSlice('\n'); err != nil {
					b.Fatal(err)
				}
			}
			call(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`)
			io.WriteString(clientOut, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
			paths := slices.Sorted(maps.Keys(s.files))
			i := 0
			cpu := testkit.CPUTime()
			for b.Loop() {
				i++
				call(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"read_file","arguments":{"files":[{"path":%q}]}}}`, i, paths[i%len(paths)]))
			}
			// CPU time, the client's share included: on a shared machine
			// it varies far less than the wall time.
			b.ReportMetric(float64((testkit.CPUTime()-cpu).Microseconds())/float64(i), "cpu-µs/op")
			clientOut.Close()
		})
	}
}
