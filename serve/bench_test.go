package serve

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// benchFile is a 500-line Go-like file, the read the benchmarks compare.
func benchFile() string {
	var b strings.Builder
	b.WriteString("package bench\n")
	for i := 2; i <= 500; i++ {
		fmt.Fprintf(&b, "\tif err := s.handle%d(ctx, req); err != nil { return fmt.Errorf(\"step %d: %%w\", err) }\n", i, i)
	}
	return b.String()
}

func benchServer(b *testing.B) (*Server, string) {
	s := snap{files: map[string]string{"pkg/bench.go": benchFile()}}
	return newTestServer(b, &s, Options{})
}

// A whole 500-line read: the budget is the ceiling so nothing is cut.
var benchArgs = map[string]any{"files": []any{map[string]any{"path": "pkg/bench.go"}}, "budget_tokens": 32000}

// timed runs one call per iteration and reports p50/p99 latency and req/s.
func timed(b *testing.B, call func() error) {
	b.Helper()
	lat := make([]time.Duration, 0, b.N)
	start := time.Now()
	for b.Loop() {
		t0 := time.Now()
		if err := call(); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t0))
	}
	elapsed := time.Since(start)
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
	b.ReportMetric(float64(len(lat))/elapsed.Seconds(), "req/s")
}

func BenchmarkOSReadFile(b *testing.B) {
	_, out := benchServer(b)
	p := filepath.Join(out, "tree", "pkg", "bench.go")
	timed(b, func() error { _, err := os.ReadFile(p); return err })
}

func BenchmarkReadFileDirect(b *testing.B) {
	srv, _ := benchServer(b)
	args := ReadFileArgs{Files: []FileRequest{{Path: "pkg/bench.go"}}, BudgetTokens: 32000}
	timed(b, func() error {
		text, res, err := srv.ReadFile(context.Background(), args)
		if err == nil && (res.Files[0].Shown[0][1] != 500 || len(text) == 0) {
			err = fmt.Errorf("short read: %+v", res.Files[0])
		}
		return err
	})
}

// BenchmarkReadFileDirectCold counts every batch afresh: the cost of a
// file's first read (the other benchmarks re-read and hit the count memo).
func BenchmarkReadFileDirectCold(b *testing.B) {
	srv, _ := benchServer(b)
	srv.counter = nil
	args := ReadFileArgs{Files: []FileRequest{{Path: "pkg/bench.go"}}, BudgetTokens: 32000}
	timed(b, func() error { _, _, err := srv.ReadFile(context.Background(), args); return err })
}

func BenchmarkReadFileMCP(b *testing.B) {
	srv, _ := benchServer(b)
	cs := connect(b, srv)
	timed(b, func() error {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "read_file", Arguments: benchArgs})
		if err == nil && res.IsError {
			err = fmt.Errorf("tool error: %v", res.Content)
		}
		return err
	})
}

func BenchmarkReadFileHTTPJSON(b *testing.B) {
	srv, _ := benchServer(b)
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	body := `{"files":[{"path":"pkg/bench.go"}],"budget_tokens":32000}`
	timed(b, func() error {
		resp, err := http.Post(ts.URL+"/v1/read_file", "application/json", strings.NewReader(body))
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		if _, err := io.Copy(io.Discard, resp.Body); err != nil {
			return err
		}
		if resp.StatusCode != 200 {
			return fmt.Errorf("status %d", resp.StatusCode)
		}
		return nil
	})
}

func BenchmarkReadFileHTTPMCP(b *testing.B) {
	srv, _ := benchServer(b)
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).
		Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp", DisableStandaloneSSE: true}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	timed(b, func() error {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "read_file", Arguments: benchArgs})
		if err == nil && res.IsError {
			err = fmt.Errorf("tool error: %v", res.Content)
		}
		return err
	})
}
