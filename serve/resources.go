package serve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/repoprep/repoprep/snapshot"
)

// MCP resources: REPO_MAP.md, and each instruction file of the snapshot
// under repoprep://repo/instructions/<path>. The list follows the snapshot
// being served: it is brought up to date whenever a client lists resources,
// and a template answers reads of any instruction file whatever the list
// says, so a client holding an old list still reads the current snapshot.
const (
	repoMapURI             = "repoprep://repo/" + snapshot.RepoMapMD
	instructionURIPrefix   = "repoprep://repo/instructions/"
	instructionURITemplate = "repoprep://repo/instructions/{+path}"
	maxResourceBytes       = 1 << 20 // instruction files are KBs; larger ones go through read_file
)

// resourceList is the set of instruction-file resources registered for the
// snapshot last listed.
type resourceList struct {
	mu     sync.Mutex
	srv    *mcp.Server
	listed *view
	uris   map[string]bool
}

func (s *Server) addResources(srv *mcp.Server) error {
	srv.AddResource(&mcp.Resource{
		URI: repoMapURI, Name: snapshot.RepoMapMD, MIMEType: "text/markdown",
		Description: "The repository map: what the repository is, its top-level directories, tests, entry points and agent instruction files.",
	}, s.readRepoMapResource)
	srv.AddResourceTemplate(&mcp.ResourceTemplate{
		URITemplate: instructionURITemplate, Name: "instruction file", MIMEType: "text/markdown",
		Description: "An agent instruction file (CLAUDE.md, AGENTS.md, .cursor/rules/*.mdc...) by its path in the repository, as staged.",
	}, s.readInstructionResource)
	rl := &resourceList{srv: srv, uris: map[string]bool{}}
	srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "resources/list" {
				rl.sync(s)
			}
			return next(ctx, method, req)
		}
	})
	rl.sync(s)
	return nil
}

// sync registers a resource per readable instruction file of the current
// snapshot and removes those of the previous one.
func (rl *resourceList) sync(s *Server) {
	sn, err := s.acquire()
	if err != nil {
		return
	}
	defer s.release(sn)
	rl.mu.Lock()
	defer rl.mu.Unlock()
	if rl.listed == sn {
		return
	}
	rl.listed = sn
	now := map[string]bool{}
	if sn.instr.index != nil {
		for _, f := range sn.instr.index.Files {
			if f.Source == "" {
				continue
			}
			uri := instructionURI(f.Path)
			now[uri] = true
			if rl.uris[uri] {
				continue
			}
			rl.srv.AddResource(&mcp.Resource{
				URI: uri, Name: f.Path, MIMEType: "text/markdown",
				Description: fmt.Sprintf("%s; applies to %s", describe(&f), scopeOf(&f)),
				Size:        sizeOf(sn, f.Source),
			}, s.readInstructionResource)
		}
	}
	var gone []string
	for uri := range rl.uris {
		if !now[uri] {
			gone = append(gone, uri)
		}
	}
	if len(gone) > 0 {
		rl.srv.RemoveResources(gone...)
	}
	rl.uris = now
}

func sizeOf(sn *view, p string) int64 {
	if e, ok := sn.byPath[p]; ok {
		return e.Size
	}
	return 0
}

// instructionURI escapes each segment of p, so any staged name is a valid URI.
func instructionURI(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return instructionURIPrefix + strings.Join(segs, "/")
}

func (s *Server) readRepoMapResource(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	ans, err := s.call(ctx, "mcp", "resource", func() []slog.Attr { return []slog.Attr{slog.String("uri", req.Params.URI)} }, func(ctx context.Context, sn *view) (answer, error) {
		return s.repoMap(ctx, sn)
	})
	if err != nil {
		return nil, err
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/markdown", Text: ans.text}}}, nil
}

// readInstructionResource serves one instruction file's staged text. The
// path goes through the same checks as read_file's, must name an
// instruction file in instructions.json, and is opened through the tree's
// os.Root.
func (s *Server) readInstructionResource(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	rest, ok := strings.CutPrefix(uri, instructionURIPrefix)
	if !ok {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	name, err := url.PathUnescape(rest)
	if err != nil {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	ans, err := s.call(ctx, "mcp", "resource", func() []slog.Attr { return []slog.Attr{slog.String("uri", uri)} }, func(ctx context.Context, sn *view) (answer, error) {
		return sn.instructionText(name)
	})
	if errors.Is(err, ErrNotFound) || errors.Is(err, ErrRefused) {
		s.log.Info("resource refused", "uri", uri, "err", err)
		return nil, mcp.ResourceNotFoundError(uri)
	}
	if err != nil {
		return nil, err
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "text/markdown", Text: ans.text}}}, nil
}

// instructionText reads the staged text of the instruction file at name.
func (sn *view) instructionText(name string) (answer, error) {
	if err := checkName(name); err != nil {
		return answer{}, err
	}
	if sn.instr.err != nil {
		return answer{}, fmt.Errorf("%w: %v", ErrNotFound, sn.instr.err)
	}
	for i := range sn.instr.index.Files {
		f := &sn.instr.index.Files[i]
		if f.Path != name {
			continue
		}
		if f.Source == "" {
			return answer{}, fmt.Errorf("%w: %q: its text is not in the snapshot", ErrNotFound, name)
		}
		if err := checkName(f.Source); err != nil {
			return answer{}, err
		}
		fh, _, err := sn.open(f.Source)
		if err != nil {
			return answer{}, readError(f.Source, err)
		}
		defer fh.Close()
		data, err := io.ReadAll(io.LimitReader(fh, maxResourceBytes+1))
		if err != nil {
			return answer{}, fmt.Errorf("read %s: %w", f.Source, err)
		}
		if len(data) > maxResourceBytes {
			return answer{}, fmt.Errorf("%w: %s is larger than %d bytes; read it with read_file", ErrBadRequest, f.Source, maxResourceBytes)
		}
		return answer{text: string(data)}, nil
	}
	return answer{}, fmt.Errorf("%w: %q is not an instruction file", ErrNotFound, name)
}
