package serve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime/debug"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Version is reported to MCP clients; cmd/ may set it at link time.
var Version = "dev"

// tool is one tool as both transports see it: the MCP registration and the
// JSON API runner share its schema and its decoder, so /v1/ refuses exactly
// what MCP does, in the same words.
type tool struct {
	name   string
	input  *jsonschema.Schema
	output *jsonschema.Schema // nil: the tool sends no structuredContent
	run    func(ctx context.Context, via string, args []byte) (answer, error)
	// prepare is run in two steps: the arguments decoded and checked
	// (an error: what run would answer), then the call (stdio's
	// express lane, which hands a call it cannot answer to the SDK
	// before running it).
	prepare func(args []byte) (func(ctx context.Context, via string) (answer, error), error)
}

// errInternal is what a caller sees when a handler panicked: the panic is
// logged, the request fails, the server goes on.
var errInternal = errors.New("internal error: the server hit a bug answering this call; it was logged and the server keeps serving")

// instructions is what an MCP client shows the model about this server.
const instructions = `This server serves a cleaned, read-only snapshot of one repository.
Start with repo_map, find files with list_files or search, then read_file with line ranges.
Before changing a file, call instructions with its path: the CLAUDE.md / AGENTS.md rules that apply to it.
Paths are relative to the repository root, exactly as list_files prints them.`

// newMCPServer registers the tools on a new MCP server and fills s.tools for
// the JSON API, one registration per tool. AddTool panics on a bad schema,
// so this runs in New, which every test calls.
func (s *Server) newMCPServer() (srv *mcp.Server, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("register MCP tools: %v", r)
		}
	}()
	srv = mcp.NewServer(&mcp.Implementation{Name: "repoprep", Version: Version},
		&mcp.ServerOptions{
			Instructions: instructions,
			Logger:       s.log,
			// Only what this server does: tools, whose list never changes
			// while it runs; resources, whose list follows the snapshot (the
			// SDK notifies sessions when a listing after a publish adds or
			// removes one); no log notifications (the SDK's defaults
			// advertise listChanged on tools and logging too).
			Capabilities: &mcp.ServerCapabilities{
				Tools:     &mcp.ToolCapabilities{},
				Resources: &mcp.ResourceCapabilities{ListChanged: true},
			},
		})
	srv.AddReceivingMiddleware(s.recoverMethod)
	s.tools = map[string]*tool{}
	o := s.opts

	readSchema, err := readFileSchema(o)
	if err != nil {
		return nil, err
	}
	listSchema, err := listFilesSchema()
	if err != nil {
		return nil, err
	}
	searchSchema, err := searchSchema(s.cur.exampleGlob())
	if err != nil {
		return nil, err
	}
	readOut, err := readFileOutputSchema()
	if err != nil {
		return nil, err
	}
	searchOut, err := searchOutputSchema()
	if err != nil {
		return nil, err
	}
	mapSchema, err := jsonschema.For[struct{}](nil)
	if err != nil {
		return nil, err
	}
	for _, err := range []error{
		register(s, srv, "read_file", fmt.Sprintf(readFileDoc, o.MaxFiles, o.MaxLines, o.MaxLineChars, o.DefaultBudget, o.MaxBudget),
			readSchema, readOut, s.readFile, func(a ReadFileArgs) []slog.Attr {
				paths := make([]string, len(a.Files))
				for i, f := range a.Files {
					paths[i] = capLog(f.Path)
				}
				return []slog.Attr{slog.Any("paths", paths), slog.Int("budget", a.BudgetTokens)}
			}),
		addToolOut[ListFilesResult](s, srv, "list_files", fmt.Sprintf(listFilesDoc, defaultListLimit, maxListLimit),
			listSchema, s.listFiles, func(a ListFilesArgs) []slog.Attr {
				return []slog.Attr{slog.String("prefix", capLog(a.Prefix)), slog.String("glob", capLog(a.Glob)), slog.Int("offset", a.Offset)}
			}),
		register(s, srv, "search", fmt.Sprintf(searchDoc, maxContextLines, maxMaxResults, defaultMaxResults, o.DefaultBudget),
			searchSchema, searchOut, s.search, func(a SearchArgs) []slog.Attr {
				// The pattern may be a secret someone hunts for: log its size only.
				return []slog.Attr{slog.Int("pattern_bytes", len(a.Pattern)), slog.String("path_glob", capLog(a.PathGlob))}
			}),
		addTool(s, srv, "repo_map", repoMapDoc, mapSchema, // the text is the answer: no structuredContent
			func(ctx context.Context, sn *view, _ struct{}) (answer, error) { return s.repoMap(ctx, sn) },
			func(struct{}) []slog.Attr { return nil }),
	} {
		if err != nil {
			return nil, err
		}
	}
	if err := s.addInstructions(srv); err != nil {
		return nil, err
	}
	return srv, nil
}

// addTool registers a tool whose answer is text only: no outputSchema, so no
// structuredContent either.
func addTool[In any](s *Server, srv *mcp.Server, name, doc string, schema *jsonschema.Schema,
	run func(context.Context, *view, In) (answer, error), attrs func(In) []slog.Attr) error {
	return register(s, srv, name, doc, schema, nil, run, attrs)
}

// addToolOut registers a tool whose answer also carries Out as
// structuredContent, announced by an outputSchema inferred from Out.
func addToolOut[Out, In any](s *Server, srv *mcp.Server, name, doc string, schema *jsonschema.Schema,
	run func(context.Context, *view, In) (answer, error), attrs func(In) []slog.Attr) error {
	out, err := jsonschema.For[Out](nil)
	if err != nil {
		return fmt.Errorf("%s output schema: %w", name, err)
	}
	return register(s, srv, name, doc, schema, out, run, attrs)
}

// register adds one tool to MCP and to the JSON API. Both decode arguments
// with decodeArgs (the SDK's typed AddTool would fill defaults into a nil map
// and panic on "arguments": null) and both recover a handler's panic.
func register[In any](s *Server, srv *mcp.Server, name, doc string, input, output *jsonschema.Schema,
	run func(context.Context, *view, In) (answer, error), attrs func(In) []slog.Attr) error {
	if _, err := input.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true}); err != nil {
		return fmt.Errorf("%s schema: %w", name, err)
	}
	if output != nil {
		if _, err := output.Resolve(nil); err != nil {
			return fmt.Errorf("%s output schema: %w", name, err)
		}
	}
	t := &tool{name: name, input: input, output: output}
	call := func(ctx context.Context, via string, in In) (answer, error) {
		return s.call(ctx, via, name, func() []slog.Attr { return attrs(in) }, func(ctx context.Context, sn *view) (answer, error) {
			return run(ctx, sn, in)
		})
	}
	t.run = func(ctx context.Context, via string, raw []byte) (ans answer, err error) {
		defer s.recoverCall(ctx, via, name, &err)
		in, err := decodeArgs[In](input, raw)
		if err != nil {
			s.logCall(ctx, via, name, nil, time.Now(), answer{}, err)
			return answer{}, err
		}
		return call(ctx, via, in)
	}
	t.prepare = func(raw []byte) (fn func(context.Context, string) (answer, error), err error) {
		defer func() {
			if recover() != nil {
				fn, err = nil, errInternal // run meets it again, and logs it
			}
		}()
		in, err := decodeArgs[In](input, raw)
		if err != nil {
			return nil, err
		}
		return func(ctx context.Context, via string) (ans answer, err error) {
			defer s.recoverCall(ctx, via, name, &err)
			return call(ctx, via, in)
		}, nil
	}
	readOnly := false
	mt := &mcp.Tool{
		Name:        name,
		Description: doc,
		InputSchema: input,
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: &readOnly},
	}
	if output != nil {
		mt.OutputSchema = output
	}
	srv.AddTool(mt, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var raw []byte
		if req != nil && req.Params != nil {
			raw = req.Params.Arguments
		}
		ans, err := t.run(ctx, "mcp", raw)
		if err != nil {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}, nil
		}
		if sp := s.splicerFor(req.Session); sp != nil { // over stdio: encoded here, once (splice.go)
			var structured any
			if output != nil {
				structured = ans.out
			}
			if res, err := sp.hold(ans.text, structured); err == nil {
				return res, nil
			}
		}
		res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: ans.text}}}
		if output != nil {
			res.StructuredContent = ans.out
		}
		return res, nil
	})
	s.tools[name] = t
	return nil
}

// recoverCall turns a panic in one tool call into errInternal and one log
// line (the panic value and a compact stack), so no request ends the process.
func (s *Server) recoverCall(ctx context.Context, via, name string, err *error) {
	r := recover()
	if r == nil {
		return
	}
	s.logPanic(ctx, via, name, r)
	*err = errInternal
}

func (s *Server) logPanic(ctx context.Context, via, name string, r any) {
	s.log.LogAttrs(ctx, slog.LevelError, "panic", slog.String("via", via), slog.String("tool", name),
		slog.String("panic", capLog(fmt.Sprint(r))), slog.String("stack", compactStack()))
}

// recoverMethod is MCP middleware that turns a panic anywhere in a method's
// handling (the SDK's own code included) into a JSON-RPC error.
func (s *Server) recoverMethod(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (res mcp.Result, err error) {
		defer func() {
			if r := recover(); r != nil {
				s.logPanic(ctx, "mcp", method, r)
				res, err = nil, errInternal
			}
		}()
		return next(ctx, method, req)
	}
}

// compactStack is the current goroutine's stack as one line: function names
// and file:line, joined with " < ", at most a few KB.
func compactStack() string {
	lines := strings.Split(strings.TrimSpace(string(debug.Stack())), "\n")
	var parts []string
	for i := 1; i+1 < len(lines); i += 2 {
		fn := strings.TrimSpace(lines[i])
		if strings.HasPrefix(fn, "runtime/debug.") || strings.HasPrefix(fn, "panic(") {
			continue
		}
		if j := strings.LastIndexByte(fn, '('); j > 0 {
			fn = fn[:j]
		}
		loc := strings.TrimSpace(lines[i+1])
		if j := strings.LastIndexByte(loc, ' '); j > 0 {
			loc = loc[:j]
		}
		parts = append(parts, fn+" "+loc)
		if len(parts) == 12 {
			break
		}
	}
	return strings.Join(parts, " < ")
}

// capLog cuts a caller's value for the log.
func capLog(v string) string {
	if len(v) <= 200 {
		return v
	}
	return v[:200] + "…"
}

// MCP returns the MCP server, for callers that bring their own transport
// (tests use in-memory transports).
func (s *Server) MCP() *mcp.Server { return s.mcp }

// ServeStdio serves MCP over in and out (newline-delimited JSON-RPC, as
// MCP clients spawn servers) until the client hangs up or ctx is done. A
// line that is not a JSON-RPC message is answered with an error when its id
// can be read, skipped otherwise; it never ends the session.
func (s *Server) ServeStdio(ctx context.Context, in io.ReadCloser, out io.WriteCloser) error {
	sp := newSplicer()
	ex := newExpress(s)
	sp.spliced = ex.learn
	in, restore := pollable(in)
	defer restore()
	ready := make(chan struct{})
	ss, err := s.mcp.Connect(ctx, &lineTransport{in: in, out: out, maxLine: int(s.opts.MaxBodyBytes), log: s.log, splice: sp, express: ex, ready: ready}, nil)
	if stdioConnected != nil {
		stdioConnected()
	}
	if err == nil {
		// As mcp.Server.Run, with the session's results encoded here:
		// registered before the first line is read (lineTransport.ready).
		s.spliceMu.Lock()
		s.splicers[ss] = sp
		s.spliceMu.Unlock()
	}
	close(ready)
	if err == nil {
		defer func() {
			s.spliceMu.Lock()
			delete(s.splicers, ss)
			s.spliceMu.Unlock()
		}()
		closed := make(chan error, 1)
		go func() { closed <- ss.Wait() }()
		select {
		case <-ctx.Done():
			ss.Close()
			<-closed
			err = ctx.Err()
		case err = <-closed:
		}
	}
	if ctx.Err() != nil || errors.Is(err, io.EOF) || errors.Is(err, mcp.ErrConnectionClosed) {
		return nil
	}
	return err
}
