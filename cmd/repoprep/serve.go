package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"regexp"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/repoprep/repoprep/serve"
)

// serveFlags registers the read limits shared by `serve` and `read` on fs,
// each defaulting to its REPOPREP_* environment variable when set.
func serveFlags(fs *flags, o *serve.Options) func() error {
	var errs []error
	intFlag := func(p *int, name, env string, def int, value, usage string) {
		v, err := serveEnvInt(env, def)
		if err != nil {
			errs = append(errs, err)
		}
		fs.IntVar(p, name, v, usage+"; env "+env)
		fs.doc(name, "", value, "")
	}
	intFlag(&o.MaxFiles, "max-files", "REPOPREP_READ_MAX_FILES", 5, "N", "files per read_file call")
	intFlag(&o.MaxLines, "max-lines", "REPOPREP_READ_MAX_LINES", 500, "N", "lines shown by a read without ranges")
	intFlag(&o.DefaultBudget, "budget", "REPOPREP_READ_TOKENS", 8000, "N", "o200k tokens per answer when a call names no budget")
	intFlag(&o.MaxBudget, "max-budget", "REPOPREP_READ_MAX_TOKENS", 32000, "N", "the largest budget_tokens a call may ask for")
	intFlag(&o.MaxLineChars, "max-line-chars", "REPOPREP_READ_MAX_LINE_CHARS", 2000, "N", "characters shown per line before a cut marker")
	return func() error { return errors.Join(errs...) }
}

func serveEnvInt(name string, def int) (int, error) {
	v, ok := os.LookupEnv(name)
	if !ok || v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		return def, fmt.Errorf("%s=%q: want a positive integer", name, v)
	}
	return n, nil
}

func serveEnvString(name, def string) string {
	if v, ok := os.LookupEnv(name); ok && v != "" {
		return v
	}
	return def
}

// runServe is `repoprep serve [flags] OUT`: MCP over stdio, or with --http
// MCP at /mcp, the JSON API at /v1/ and /healthz.
func runServe(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("serve", "[flags] OUT", `
Serves the snapshot OUT (made by repoprep run) to agents: MCP over stdio by
default; with --http, MCP streamable HTTP at /mcp, the JSON API at
POST /v1/<tool> and GET /healthz. Tools: read_file, list_files, search,
repo_map, instructions. A snapshot republished under a running server is
picked up by the next request. docs/serve.md has the details.`,
		[]exitDoc{{exitOK, "stopped by SIGINT/SIGTERM, or stdin closed"}, {exitFailed, "OUT is not a readable snapshot, or the address cannot be listened on"}, {exitUsage, "usage error"}})
	var (
		opts      serve.Options
		addr      string
		maxBody   int
		timeout   time.Duration
		logFormat string
		quiet     bool
	)
	envErr := serveFlags(fs, &opts)
	fs.StringVar(&addr, "http", serveEnvString("REPOPREP_HTTP", ""), "serve HTTP on ADDR (e.g. 127.0.0.1:8080) instead of MCP over stdio; env REPOPREP_HTTP")
	fs.doc("http", "", "ADDR", "")
	body, err := serveEnvInt("REPOPREP_MAX_BODY_BYTES", 1<<20)
	fs.IntVar(&maxBody, "max-body", body, "HTTP request body limit in bytes, and over stdio the longest line; env REPOPREP_MAX_BODY_BYTES")
	fs.doc("max-body", "", "N", "")
	inFlight, err2 := serveEnvInt("REPOPREP_MAX_IN_FLIGHT", 32)
	fs.IntVar(&opts.MaxInFlight, "max-in-flight", inFlight, "tool calls running at once before 429; env REPOPREP_MAX_IN_FLIGHT")
	fs.doc("max-in-flight", "", "N", "")
	defTimeout, err3 := time.ParseDuration(serveEnvString("REPOPREP_REQUEST_TIMEOUT", "30s"))
	fs.DurationVar(&timeout, "timeout", defTimeout, "per-call time limit; env REPOPREP_REQUEST_TIMEOUT")
	fs.doc("timeout", "", "DURATION", "")
	fs.StringVar(&logFormat, "log-format", serveEnvString("REPOPREP_LOG_FORMAT", "text"), "access log on stderr: text or json; env REPOPREP_LOG_FORMAT")
	fs.doc("log-format", "", "FORMAT", "")
	fs.BoolVar(&quiet, "quiet", false, "no access log, only errors")
	fs.doc("quiet", "q", "", "")
	if code, ok := fs.parse(args, stdout, stderr); !ok {
		return code
	}
	if err := errors.Join(envErr(), err, err2, err3); err != nil {
		fs.usageError(stderr, err.Error())
		return exitUsage
	}
	dir, ok := fs.snapshotArg(stderr)
	if !ok {
		return exitUsage
	}
	serveGC()
	level := slog.LevelInfo
	if quiet {
		level = slog.LevelWarn
	}
	hopts := &slog.HandlerOptions{Level: level}
	switch logFormat {
	case "text":
		opts.Logger = slog.New(slog.NewTextHandler(stderr, hopts))
	case "json":
		opts.Logger = slog.New(slog.NewJSONHandler(stderr, hopts))
	default:
		fs.usageError(stderr, fmt.Sprintf("--log-format %q: want text or json", logFormat))
		return exitUsage
	}
	opts.MaxBodyBytes = int64(maxBody)
	opts.RequestTimeout = timeout
	serve.Version = currentBuild().Version

	srv, err := serve.New(dir, opts)
	if err != nil {
		fmt.Fprintf(stderr, "repoprep: %v\n", err)
		return exitFailed
	}
	defer srv.Close()
	if addr != "" {
		err = srv.ListenAndServe(ctx, addr)
	} else {
		err = srv.ServeStdio(ctx, os.Stdin, nopWriteCloser{stdout})
	}
	if err != nil {
		fmt.Fprintf(stderr, "repoprep: %v\n", err)
		return exitFailed
	}
	return exitOK
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// readSpec splits PATH[:START-END] (or PATH:LINE).
var readSpec = regexp.MustCompile(`^(.+):([0-9]+)(?:-([0-9]+))?$`)

// runRead is `repoprep read [flags] OUT PATH[:START-END]`: one read_file
// answer on stdout, exactly as an agent would get it.
func runRead(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("read", "[flags] OUT PATH[:START-END]", `
Prints one read_file answer from the snapshot OUT, exactly as an agent gets
it: numbered lines and a trailer saying what was shown and what is next.
PATH is a path of files.json; :START-END (or :LINE) reads those lines.`,
		[]exitDoc{{exitOK, "answered"}, {exitFailed, "OUT is not a readable snapshot, or PATH is not in it"}, {exitUsage, "usage error, or a path or range the server refuses"}})
	var opts serve.Options
	envErr := serveFlags(fs, &opts)
	if code, ok := fs.parse(args, stdout, stderr); !ok {
		return code
	}
	if err := envErr(); err != nil {
		fs.usageError(stderr, err.Error())
		return exitUsage
	}
	if fs.NArg() != 2 {
		fs.usageError(stderr, fmt.Sprintf("OUT and PATH[:START-END], got %d arguments", fs.NArg()))
		return exitUsage
	}
	req := serve.FileRequest{Path: fs.Arg(1)}
	if m := readSpec.FindStringSubmatch(req.Path); m != nil && !strings.HasSuffix(m[1], ":") {
		start, err1 := strconv.Atoi(m[2])
		end, err2 := start, error(nil)
		if m[3] != "" {
			end, err2 = strconv.Atoi(m[3])
		}
		if err1 != nil || err2 != nil {
			fs.usageError(stderr, fmt.Sprintf("bad line range in %q", req.Path))
			return exitUsage
		}
		req.Path, req.Ranges = m[1], [][]int{{start, end}}
	}
	srv, err := serve.New(fs.Arg(0), opts)
	if err != nil {
		fmt.Fprintf(stderr, "repoprep: %v\n", err)
		return exitFailed
	}
	defer srv.Close()
	text, _, err := srv.ReadFile(ctx, serve.ReadFileArgs{Files: []serve.FileRequest{req}})
	if err != nil {
		fmt.Fprintf(stderr, "repoprep: %v\n", err)
		if errors.Is(err, serve.ErrBadRequest) {
			return exitUsage
		}
		return exitFailed
	}
	fmt.Fprint(stdout, text)
	return exitOK
}

// serveGCPercent and serveMemoryLimit are the server's collector settings
// (serveGC).
const (
	serveGCPercent   = 400
	serveMemoryLimit = 512 << 20
)

// serveGC sets the collector for a long-running server, unless the user
// set GOGC or GOMEMLIMIT. A server's garbage is mostly per request (the
// MCP SDK decodes each call's params twice, into a fresh 32 KiB buffer
// each time) and what is live is small and fixed, so at the default GC
// percent it collected every few hundred calls, about a fifth of its CPU.
// At 400 (the heap up to five times what is live, and a soft limit
// against a request that holds much) its CPU per call was 0.82x at 1 call
// in flight and 0.75x at 16, and its calls/s 1.35x and 1.22x (make
// bench-mcp, the two settings in alternating rounds).
func serveGC() {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	debug.SetGCPercent(serveGCPercent)
	debug.SetMemoryLimit(serveMemoryLimit)
}
