package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Version is reported to MCP clients; cmd/ may set it at link time.
var Version = "dev"

// tool is one tool as both transports see it: the MCP registration and the
// JSON API runner share its schema, so /v1/ refuses exactly what MCP does.
type tool struct {
	name   string
	schema *jsonschema.Resolved
	run    func(ctx context.Context, via string, args []byte) (answer, error)
}

// instructions is what an MCP client shows the model about this server.
const instructions = `This server serves a cleaned, read-only snapshot of one repository.
Start with repo_map, find files with list_files or search, then read_file with line ranges.
Before changing a file, call instructions with its path: the CLAUDE.md / AGENTS.md rules that apply to it.
Paths are relative to the repository root, exactly as list_files prints them.`

// newMCPServer registers the tools on a new MCP server and fills
// s.tools for the JSON API. AddTool panics on a bad schema, so this runs in
// New, which every test calls.
func (s *Server) newMCPServer() (srv *mcp.Server, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("register MCP tools: %v", r)
		}
	}()
	srv = mcp.NewServer(&mcp.Implementation{Name: "repoprep", Version: Version},
		&mcp.ServerOptions{Instructions: instructions, Logger: s.log})
	s.tools = map[string]*tool{}
	o := s.opts

	readSchema, err := readFileSchema(o)
	if err != nil {
		return nil, err
	}
	if err := addTool(s, srv, "read_file", fmt.Sprintf(readFileDoc, o.MaxFiles, o.MaxLines, o.MaxLineChars, o.DefaultBudget, o.MaxBudget),
		readSchema, s.readFile, func(a ReadFileArgs) []slog.Attr {
			paths := make([]string, len(a.Files))
			for i, f := range a.Files {
				paths[i] = f.Path
			}
			return []slog.Attr{slog.Any("paths", paths), slog.Int("budget", a.BudgetTokens)}
		}); err != nil {
		return nil, err
	}

	listSchema, err := listFilesSchema()
	if err != nil {
		return nil, err
	}
	if err := addTool(s, srv, "list_files", fmt.Sprintf(listFilesDoc, defaultListLimit, maxListLimit),
		listSchema, s.listFiles, func(a ListFilesArgs) []slog.Attr {
			return []slog.Attr{slog.String("prefix", a.Prefix), slog.String("glob", a.Glob), slog.Int("offset", a.Offset)}
		}); err != nil {
		return nil, err
	}

	searchSchema, err := searchSchema()
	if err != nil {
		return nil, err
	}
	if err := addTool(s, srv, "search", fmt.Sprintf(searchDoc, maxContextLines, maxMaxResults, defaultMaxResults, o.DefaultBudget),
		searchSchema, s.search, func(a SearchArgs) []slog.Attr {
			// The pattern may be a secret someone hunts for: log its size only.
			return []slog.Attr{slog.Int("pattern_bytes", len(a.Pattern)), slog.String("path_glob", a.PathGlob)}
		}); err != nil {
		return nil, err
	}

	mapSchema, err := jsonschema.For[struct{}](nil)
	if err != nil {
		return nil, err
	}
	if err := addTool(s, srv, "repo_map", repoMapDoc, mapSchema,
		func(ctx context.Context, sn *snapshot, _ struct{}) (answer, error) { return s.repoMap(ctx, sn) },
		func(struct{}) []slog.Attr { return nil }); err != nil {
		return nil, err
	}
	if err := s.addInstructions(srv); err != nil {
		return nil, err
	}
	return srv, nil
}

// addTool registers one typed tool with MCP and the JSON API.
func addTool[In any](s *Server, srv *mcp.Server, name, doc string, schema *jsonschema.Schema,
	run func(context.Context, *snapshot, In) (answer, error), attrs func(In) []slog.Attr) error {
	resolved, err := schema.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true})
	if err != nil {
		return fmt.Errorf("%s schema: %w", name, err)
	}
	invoke := func(ctx context.Context, via string, in In) (answer, error) {
		return s.call(ctx, via, name, attrs(in), func(ctx context.Context, sn *snapshot) (answer, error) {
			return run(ctx, sn, in)
		})
	}
	readOnly := false
	mcp.AddTool(srv, &mcp.Tool{
		Name:        name,
		Description: doc,
		InputSchema: schema,
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: &readOnly},
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in In) (*mcp.CallToolResult, any, error) {
		ans, err := invoke(ctx, "mcp", in)
		if err != nil {
			return nil, nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: ans.text}}}, ans.out, nil
	})
	s.tools[name] = &tool{name: name, schema: resolved, run: func(ctx context.Context, via string, body []byte) (answer, error) {
		in, err := decodeArgs[In](resolved, body)
		if err != nil {
			return answer{}, err
		}
		return invoke(ctx, via, in)
	}}
	return nil
}

// decodeArgs checks a JSON API body against the tool's schema the way the
// MCP SDK checks tool arguments (defaults applied, then validated) and
// decodes it.
func decodeArgs[In any](schema *jsonschema.Resolved, body []byte) (In, error) {
	var in In
	m := map[string]any{}
	if len(body) > 0 {
		if err := json.Unmarshal(body, &m); err != nil {
			return in, fmt.Errorf("%w: body is not a JSON object: %v", ErrBadRequest, err)
		}
	}
	if err := schema.ApplyDefaults(&m); err != nil {
		return in, fmt.Errorf("%w: %v", ErrBadRequest, err)
	}
	if err := schema.Validate(m); err != nil {
		return in, fmt.Errorf("%w: %v", ErrBadRequest, err)
	}
	data, err := json.Marshal(m)
	if err != nil {
		return in, fmt.Errorf("%w: %v", ErrBadRequest, err)
	}
	if err := json.Unmarshal(data, &in); err != nil {
		return in, fmt.Errorf("%w: %v", ErrBadRequest, err)
	}
	return in, nil
}

// MCP returns the MCP server, for callers that bring their own transport
// (tests use in-memory transports).
func (s *Server) MCP() *mcp.Server { return s.mcp }

// ServeStdio serves MCP over in and out (newline-delimited JSON-RPC, as
// MCP clients spawn servers) until the client hangs up or ctx is done.
func (s *Server) ServeStdio(ctx context.Context, in io.ReadCloser, out io.WriteCloser) error {
	err := s.mcp.Run(ctx, &mcp.IOTransport{Reader: in, Writer: out})
	if ctx.Err() != nil || errors.Is(err, io.EOF) || errors.Is(err, mcp.ErrConnectionClosed) {
		return nil
	}
	return err
}
