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

// benchSnapshot is a snapshot made by `repoprep run` over a real tree,
// named by REPOPREP_BENCH_OUT (make bench-serve builds one of Go's src/).
func benchSnapshot(b *testing.B) string {
	out := os.Getenv("REPOPREP_BENCH_OUT")
	if out == "" {
		b.Skip("REPOPREP_BENCH_OUT names no snapshot; run make bench-serve")
	}
	return out
}

// BenchmarkSearchGoSrc searches a snapshot of Go's src/ with the trigram
// index and without it (every staged file read), beside a plain read of
// every staged file: selective literal, regex, and a pattern that matches
// nothing.
func BenchmarkSearchGoSrc(b *testing.B) {
	out := benchSnapshot(b)
	srv, err := New(out, Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	if srv.cur.trigrams == nil {
		b.Fatal("the snapshot has no usable search.index")
	}
	scan, err := New(out, Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer scan.Close()
	scan.cur.trigrams = nil
	var staged []string
	var bytes int64
	for _, e := range srv.cur.readable {
		if e.Staged {
			staged = append(staged, filepath.Join(out, "tree", filepath.FromSlash(e.Path)))
		}
	}
	b.Run("baseline-read-all", func(b *testing.B) {
		for b.Loop() {
			bytes = 0
			for _, p := range staged {
				data, err := os.ReadFile(p)
				if err != nil {
					b.Fatal(err)
				}
				bytes += int64(len(data))
			}
		}
		b.SetBytes(bytes)
	})
	for _, c := range []struct{ name, pattern string }{
		{"literal", "ErrUnexpectedEOF"},
		{"regex", `func \(\w+ \*Reader\) Read\w*\(`},
		{"no-match", "repoprepNoSuchIdentifier"},
	} {
		for _, v := range []struct {
			name string
			srv  *Server
		}{{"index", srv}, {"scan", scan}} {
			b.Run(c.name+"/"+v.name, func(b *testing.B) {
				b.SetBytes(bytes)
				var res SearchResult
				timed(b, func() error {
					_, r, err := searchText(b, v.srv, SearchArgs{Pattern: c.pattern})
					res = r
					return err
				})
				b.ReportMetric(float64(res.TotalMatches), "matches")
			})
		}
	}
}

// BenchmarkNotFoundGoSrc: an unknown path's closest-path suggestions beside
// a hit, on Go's src/ (9,000 readable paths).
func BenchmarkNotFoundGoSrc(b *testing.B) {
	srv, err := New(benchSnapshot(b), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	for _, c := range []struct{ name, path string }{
		{"hit", "net/http/server.go"},
		{"typo", "net/http/sever.go"},
		{"moved", "http/server.go"},
		{"unknown", "no/such/dir/nothing_like_it.txt"},
	} {
		b.Run(c.name, func(b *testing.B) {
			args := ReadFileArgs{Files: []FileRequest{{Path: c.path, Ranges: [][]int{{1, 5}}}}}
			timed(b, func() error {
				_, _, err := srv.ReadFile(context.Background(), args)
				if c.name == "hit" {
					return err
				}
				return nil
			})
		})
	}
}

// BenchmarkOversizeRange reads 10 lines from the middle of a 30 MB oversize
// file with its line marks and without, beside os.ReadFile of the whole
// file and a ReadAt of exactly those bytes.
func BenchmarkOversizeRange(b *testing.B) {
	var sb strings.Builder
	for i := 1; sb.Len() < 30<<20; i++ {
		fmt.Fprintf(&sb, "INSERT INTO t VALUES (%d, 'row %d', 'some text to make the line longer');\n", i, i)
	}
	content := sb.String()
	lines := strings.Count(content, "\n")
	mid := lines / 2
	s := snap{files: map[string]string{"dump.sql": content}, oversize: []string{"dump.sql"}}
	srv, out := newTestServer(b, &s, Options{})
	plain, _ := newTestServer(b, &snap{files: s.files, oversize: s.oversize, noIndex: true}, Options{})
	name := filepath.Join(out, "tree", "dump.sql")
	start := strings.Index(content, fmt.Sprintf("(%d, ", mid))
	start = strings.LastIndexByte(content[:start], '\n') + 1
	end := start
	for range 10 {
		end += strings.IndexByte(content[end:], '\n') + 1
	}
	args := ReadFileArgs{Files: []FileRequest{{Path: "dump.sql", Ranges: [][]int{{mid, mid + 9}}}}}
	b.Run("marks", func(b *testing.B) {
		b.SetBytes(int64(end - start))
		timed(b, func() error { _, _, err := srv.ReadFile(context.Background(), args); return err })
	})
	b.Run("scan", func(b *testing.B) {
		b.SetBytes(int64(end - start))
		timed(b, func() error { _, _, err := plain.ReadFile(context.Background(), args); return err })
	})
	b.Run("os.ReadFile-whole", func(b *testing.B) {
		b.SetBytes(int64(end - start))
		timed(b, func() error { _, err := os.ReadFile(name); return err })
	})
	b.Run("ReadAt-range", func(b *testing.B) {
		b.SetBytes(int64(end - start))
		f, err := os.Open(name)
		if err != nil {
			b.Fatal(err)
		}
		defer f.Close()
		buf := make([]byte, end-start)
		timed(b, func() error { _, err := f.ReadAt(buf, int64(start)); return err })
	})
}
