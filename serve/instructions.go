package serve

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	instr "github.com/repoprep/repoprep/instructions"
	"github.com/repoprep/repoprep/snapshot"
)

// InstructionsArgs is the instructions tool's input, the same for MCP and
// POST /v1/instructions.
type InstructionsArgs struct {
	Path         string `json:"path,omitempty"`  // file or directory; "" or "." is the root
	Agent        string `json:"agent,omitempty"` // "all" (default), "claude", "agents", "cursor", "copilot"
	BudgetTokens int    `json:"budget_tokens,omitempty"`
}

// InstructionsResult is the instructions tool's structured output.
type InstructionsResult struct {
	Path         string              `json:"path"`
	IsDir        bool                `json:"is_dir"`
	Agent        string              `json:"agent"`
	Files        []AppliedFile       `json:"files"`
	OnRequest    []OnRequestFile     `json:"on_request,omitempty"`
	BudgetTokens int                 `json:"budget_tokens"`
	Tokens       int                 `json:"tokens"`
	Cut          bool                `json:"cut"`
	Next         []InstructionsRange `json:"next,omitempty"` // what to read with read_file to see the rest
}

// AppliedFile is one instruction file that applies, in answer order.
type AppliedFile struct {
	Path        string   `json:"path"`
	Agent       string   `json:"agent"`
	Kind        string   `json:"kind"`
	Scope       string   `json:"scope"`
	Source      string   `json:"source,omitempty"`  // staged path its text was read from
	SameAs      string   `json:"same_as,omitempty"` // shown once, under this earlier path
	Shown       string   `json:"shown"`             // "all", "part" or "none"
	Chars       int      `json:"chars"`
	Tokens      int      `json:"tokens"`
	TotalChars  int      `json:"total_chars"`
	TotalTokens int      `json:"total_tokens"`
	Imports     []string `json:"imports,omitempty"` // expanded, in order
	Warnings    []string `json:"warnings,omitempty"`
}

// OnRequestFile is an instruction file in scope that agents load only when
// asked (a Cursor rule with a description only, a Copilot file without
// applyTo).
type OnRequestFile struct {
	Path        string `json:"path"`
	Description string `json:"description,omitempty"`
}

// InstructionsRange is where to continue reading a cut answer.
type InstructionsRange struct {
	Path     string `json:"path"`
	FromLine int    `json:"from_line"`
}

const instructionsDoc = `The agent instructions that apply to a path (file or directory; "" or "." for the repository root), outermost first: CLAUDE.md in the root and every directory down to the path, .claude/rules (always, or when their paths: globs match), CLAUDE.local.md, AGENTS.md, .cursorrules and .cursor/rules, .github/copilot-instructions.md and .github/instructions (when applyTo matches).
Claude's @imports are expanded where they appear (at most %[1]d hops; imports that leave the repository, cycles and deeper chains are reported, not followed). A file that is the same text as one shown above (AGENTS.md as a symlink to CLAUDE.md) is shown once.
agent narrows to one family: claude, agents, cursor or copilot (default all).
The answer fits budget_tokens (o200k, default %[2]d, max %[3]d) and ends with a trailer; when the budget cuts it, the trailer says which files and lines to read next with read_file.`

var instructionAgents = append([]string{"all"}, instr.Agents...)

func instructionsSchema(o Options) (*jsonschema.Schema, error) {
	sc, err := jsonschema.For[InstructionsArgs](nil)
	if err != nil {
		return nil, err
	}
	p := sc.Properties
	p["path"].Description = `File or directory relative to the repository root, e.g. "src/api/handler.go" or "src/api"; "" or "." for the root.`
	p["path"].MaxLength = ptr(maxPathBytes)
	p["agent"].Description = "Only this agent family's files: all, claude, agents, cursor or copilot."
	p["agent"].Enum = []any{}
	for _, a := range instructionAgents {
		p["agent"].Enum = append(p["agent"].Enum, a)
	}
	p["agent"].Default = mustJSON("all")
	budget := p["budget_tokens"]
	budget.Description = fmt.Sprintf("Token budget (o200k) for the whole answer, default %d, max %d.", o.DefaultBudget, o.MaxBudget)
	budget.Minimum, budget.Maximum = ptr(float64(minBudgetTokens)), ptr(float64(o.MaxBudget))
	budget.Default = mustJSON(o.DefaultBudget)
	return sc, nil
}

// instrSet is a snapshot's instruction index, or why it has none. The
// index is a convenience beside the files: a missing or damaged one costs
// the instructions tool and the resources, never the rest of the server.
type instrSet struct {
	index *instr.Index
	err   error
}

// loadInstructions reads OUT/instructions.json through the snapshot's own
// handle, so the index always belongs to the tree it was loaded with.
func loadInstructions(snap *snapshot.Snapshot) instrSet {
	data, err := snap.ReadFile(snapshot.InstructionsJSON)
	if errors.Is(err, fs.ErrNotExist) {
		return instrSet{err: fmt.Errorf("%w: this snapshot has no %s (published by an older repoprep); run `repoprep run` again", ErrNotFound, snapshot.InstructionsJSON)}
	}
	if err != nil {
		return instrSet{err: fmt.Errorf("read %s: %w", snapshot.InstructionsJSON, err)}
	}
	idx, err := instr.Parse(data)
	if err != nil {
		return instrSet{err: fmt.Errorf("%v; run `repoprep run` again", err)}
	}
	return instrSet{index: idx}
}

// instructionsTool is the instructions tool on one pinned snapshot.
func (s *Server) instructionsTool(ctx context.Context, sn *view, args InstructionsArgs) (answer, error) {
	budget, err := s.budget(args.BudgetTokens)
	if err != nil {
		return answer{}, err
	}
	agent := args.Agent
	if agent == "" {
		agent = "all"
	}
	if !slices.Contains(instructionAgents, agent) {
		return answer{}, fmt.Errorf("%w: agent %q: want one of %s", ErrBadRequest, agent, strings.Join(instructionAgents, ", "))
	}
	p, isDir, err := sn.instructionTarget(args.Path)
	if err != nil {
		return answer{}, err
	}
	if sn.instr.err != nil {
		return answer{}, sn.instr.err
	}
	var applied []*instr.File
	res := InstructionsResult{Path: p, IsDir: isDir, Agent: agent, Files: []AppliedFile{}, BudgetTokens: budget}
	for i := range sn.instr.index.Files {
		f := &sn.instr.index.Files[i]
		if agent != "all" && f.Agent != agent {
			continue
		}
		if f.Activation == instr.OnRequest {
			if under(p, f.Dir) {
				res.OnRequest = append(res.OnRequest, OnRequestFile{Path: f.Path, Description: f.Description})
			}
			continue
		}
		if f.Applies(p, isDir, sn.anyListed) {
			applied = append(applied, f)
		}
	}
	instr.Order(applied)
	loads := make([]fileLoad, len(applied))
	for i, f := range applied {
		loads[i].imports, loads[i].warnings = sn.instr.index.Load(f)
	}
	r := &instrRender{s: s, sn: sn, ctx: ctx, applied: applied, loads: loads, shownAt: map[string]string{}}
	return r.run(p, agent, budget, &res)
}

// instructionTarget checks the path argument: the root ("" or "."), a path
// files.json lists, or a directory some listed path lies under. It reuses
// read_file's checks, so every refusal there is a refusal here.
func (sn *view) instructionTarget(name string) (string, bool, error) {
	if name == "" || name == "." || name == "./" {
		return "", true, nil
	}
	trimmed := strings.TrimSuffix(name, "/")
	if err := checkName(trimmed); err != nil {
		return "", false, err
	}
	if _, ok := sn.byPath[trimmed]; ok && trimmed == name {
		return trimmed, false, nil
	}
	if sn.isDir(trimmed) {
		return trimmed, true, nil
	}
	return "", false, sn.notFound(name)
}

// anyListed reports whether match accepts some listed path starting with
// prefix ("" for any); the paths are sorted, so only that range is tried.
func (sn *view) anyListed(prefix string, match func(string) bool) bool {
	i, _ := slices.BinarySearch(sn.paths, prefix)
	for ; i < len(sn.paths) && strings.HasPrefix(sn.paths[i], prefix); i++ {
		if match(sn.paths[i]) {
			return true
		}
	}
	return false
}

// under reports whether p is dir or lies below it ("" holds everything).
func under(p, dir string) bool {
	return dir == "" || p == dir || strings.HasPrefix(p, dir+"/")
}

// scopeOf says in words which paths f applies to.
func scopeOf(f *instr.File) string {
	where := "the whole repository"
	if f.Dir != "" {
		where = f.Dir + "/"
	}
	switch f.Activation {
	case instr.Globs:
		if f.Dir == "" {
			return "paths matching " + strings.Join(f.Globs, ", ")
		}
		return "paths under " + where + " matching " + strings.Join(f.Globs, ", ")
	case instr.OnRequest:
		return "on request only"
	}
	if f.Dir == "" {
		return where
	}
	return "everything under " + where
}

// describe names f's family and kind for its header line.
func describe(f *instr.File) string {
	switch f.Kind {
	case instr.KindMemory:
		return "Claude Code memory"
	case instr.KindLocalMemory:
		return "Claude Code local memory"
	case instr.KindClaudeRule:
		return "Claude Code rule"
	case instr.KindAgentsMD:
		return "AGENTS.md"
	case instr.KindCursorRules:
		return "Cursor rules (legacy)"
	case instr.KindCursorRule:
		return "Cursor rule"
	case instr.KindCopilot:
		return "Copilot instructions"
	case instr.KindCopilotScoped:
		return "Copilot path instructions"
	}
	return f.Kind
}

// addInstructions registers the instructions tool and the MCP resources
// (REPO_MAP.md and each instruction file).
func (s *Server) addInstructions(srv *mcp.Server) error {
	sc, err := instructionsSchema(s.opts)
	if err != nil {
		return err
	}
	if err := addToolOut[InstructionsResult](s, srv, "instructions", fmt.Sprintf(instructionsDoc, instr.MaxHops, s.opts.DefaultBudget, s.opts.MaxBudget),
		sc, s.instructionsTool, func(a InstructionsArgs) []slog.Attr {
			return []slog.Attr{slog.String("path", capLog(a.Path)), slog.String("agent", a.Agent), slog.Int("budget", a.BudgetTokens)}
		}); err != nil {
		return err
	}
	return s.addResources(srv)
}
