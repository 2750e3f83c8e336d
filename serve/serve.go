// Package serve is the read server: it hands a published snapshot (OUT with
// files.json, REPO_MAP.md and tree/) to agents one validated, token-budgeted
// read at a time, over MCP (stdio or streamable HTTP) and a small JSON API.
//
// Every file access goes through an os.Root opened on OUT/tree, after the
// requested name has been checked against files.json; a new snapshot
// published under a running server is picked up by the next request, while
// requests in flight finish on the snapshot they started with.
package serve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/repoprep/repoprep/internal/tokens"
	"github.com/repoprep/repoprep/snapshot"
)

// Errors callers branch on with errors.Is; the HTTP API maps them to status
// codes (400, 404, 429).
var (
	// ErrBadRequest marks arguments that can never succeed as given.
	ErrBadRequest = errors.New("bad request")
	// ErrRefused marks a path refused before any disk access, or a file
	// refused after opening (not regular, hard-linked, swapped).
	ErrRefused = errors.New("path refused")
	// ErrNotFound marks a path that files.json does not list as readable.
	ErrNotFound = errors.New("not found")
	// ErrBusy marks a request turned away because MaxInFlight are running.
	ErrBusy = errors.New("too many requests in flight")
)

// Limits on arguments that are not worth a flag.
const (
	maxRangesPerFile  = 20
	maxPatternBytes   = 1000
	maxContextLines   = 10
	defaultMaxResults = 50
	maxMaxResults     = 500
	defaultListLimit  = 200
	maxListLimit      = 1000
	minBudgetTokens   = 100
)

// Options configures one Server; a zero field means "use the default".
type Options struct {
	MaxFiles       int           // files per read_file call; default 5
	MaxLines       int           // lines shown by a read without ranges; default 500
	DefaultBudget  int           // o200k tokens per answer when the call names none; default 8000
	MaxBudget      int           // ceiling for budget_tokens; default 32000
	MaxLineChars   int           // characters shown per line before a cut marker; default 2000
	MaxBodyBytes   int64         // HTTP request body limit; default 1 MiB
	RequestTimeout time.Duration // per tool call; default 30s
	MaxInFlight    int           // concurrent tool calls before ErrBusy; default 32
	Logger         *slog.Logger  // access log (never file content); nil means discard
}

// withDefaults fills zero fields, so the rest of the package never checks.
func (o Options) withDefaults() Options {
	if o.MaxFiles <= 0 {
		o.MaxFiles = 5 // the cap other agents keep only in their prompt; we enforce it
	}
	if o.MaxLines <= 0 {
		o.MaxLines = 500
	}
	if o.MaxBudget <= 0 {
		o.MaxBudget = 32000
	}
	if o.DefaultBudget <= 0 {
		o.DefaultBudget = 8000 // a few hundred lines of code: enough to see a file, cheap to repeat
	}
	if o.DefaultBudget > o.MaxBudget {
		o.DefaultBudget = o.MaxBudget
	}
	if o.MaxBudget < minBudgetTokens {
		o.MaxBudget = minBudgetTokens
	}
	if o.DefaultBudget < minBudgetTokens {
		o.DefaultBudget = minBudgetTokens
	}
	if o.MaxLineChars <= 0 {
		o.MaxLineChars = 2000
	}
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = 1 << 20 // a read_file call is a few hundred bytes; 1 MiB is generous
	}
	if o.RequestTimeout <= 0 {
		o.RequestTimeout = 30 * time.Second
	}
	if o.MaxInFlight <= 0 {
		o.MaxInFlight = 32
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return o
}

// Server serves one OUT directory. It is safe for concurrent use.
type Server struct {
	out      string
	opts     Options
	log      *slog.Logger
	inFlight chan struct{} // a slot per running tool call
	mcp      *mcp.Server
	tools    map[string]*tool // by name, for the JSON API
	counter  *counter         // memoized token counts, shared by all snapshots

	spliceMu sync.Mutex                      // guards splicers
	splicers map[*mcp.ServerSession]*splicer // stdio sessions, whose results are encoded once (splice.go)

	reloadMu sync.Mutex // serializes snapshot loads
	mu       sync.Mutex // guards cur, badID and every snapshot's refs/retired
	cur      *view
	badID    snapshot.Stamp // last identity that failed to load; not retried until it changes
}

// New loads the snapshot at out and registers the MCP tools. It fails when
// no snapshot can be loaded: a server with nothing to serve is a setup error.
func New(out string, opts Options) (*Server, error) {
	opts = opts.withDefaults()
	s := &Server{
		out:      out,
		opts:     opts,
		log:      opts.Logger,
		inFlight: make(chan struct{}, opts.MaxInFlight),
		counter:  newCounter(),
		splicers: map[*mcp.ServerSession]*splicer{},
	}
	sn, err := load(out) // a source tree or a mistyped path is said in the user's terms
	if err != nil {
		return nil, err
	}
	s.cur = sn
	s.logWarnings(sn)
	tokens.Count("warm up") // load the o200k tables now, not in the first request (~40 ms)
	if s.mcp, err = s.newMCPServer(); err != nil {
		sn.close()
		return nil, err
	}
	return s, nil
}

// Close releases the current snapshot once the requests using it finish.
func (s *Server) Close() error {
	s.mu.Lock()
	sn := s.cur
	s.cur = nil
	closeNow := sn != nil && s.retireLocked(sn)
	s.mu.Unlock()
	if closeNow {
		sn.close()
	}
	return nil
}

// answer is what every tool produces: the text the model reads and the
// structured fields beside it.
type answer struct {
	text string
	out  any
}

// call runs one tool invocation: in-flight slot, timeout, a pinned snapshot,
// and one access-log line. via names the transport for the log; attrs (nil:
// none) gives the call's own fields, asked only when the line is written.
func (s *Server) call(ctx context.Context, via, tool string, attrs func() []slog.Attr, fn func(context.Context, *view) (answer, error)) (answer, error) {
	start := time.Now()
	select {
	case s.inFlight <- struct{}{}:
	default:
		s.logCall(ctx, via, tool, attrs, start, answer{}, ErrBusy)
		return answer{}, fmt.Errorf("%w (limit %d); retry shortly", ErrBusy, s.opts.MaxInFlight)
	}
	defer func() { <-s.inFlight }()
	ctx, cancel := context.WithTimeout(ctx, s.opts.RequestTimeout)
	defer cancel()
	ans, err := s.withSnapshot(ctx, fn)
	if err == context.DeadlineExceeded { // bare: say which limit it was
		err = fmt.Errorf("%s ran out of time after %v (the server's per-call timeout) (%w)", tool, s.opts.RequestTimeout, err)
	}
	s.logCall(ctx, via, tool, attrs, start, ans, err)
	return ans, err
}

// logCall writes the access-log line: what was asked and how it went, never
// the content served. With the line's level off (serve -q), nothing of it
// is made.
func (s *Server) logCall(ctx context.Context, via, tool string, attrs func() []slog.Attr, start time.Time, ans answer, err error) {
	level := slog.LevelInfo
	if err != nil && !isClientError(err) {
		level = slog.LevelWarn
	}
	if !s.log.Enabled(ctx, level) {
		return
	}
	all := []slog.Attr{
		slog.String("via", via),
		slog.String("tool", tool),
		slog.Duration("took", time.Since(start)),
		slog.Int("bytes", len(ans.text)),
	}
	if attrs != nil {
		all = append(all, attrs()...)
	}
	if err != nil {
		all = append(all, slog.String("err", err.Error()))
	}
	s.log.LogAttrs(ctx, level, "call", all...)
}

// isClientError reports whether err is the caller's doing rather than ours.
func isClientError(err error) bool {
	return errors.Is(err, ErrBadRequest) || errors.Is(err, ErrRefused) ||
		errors.Is(err, ErrNotFound) || errors.Is(err, ErrBusy)
}
