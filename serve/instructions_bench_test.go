package serve

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The instructions call the benchmarks compare: every family for a file
// three directories deep in the instructionstest repository (14 files
// apply, imports five hops deep), under the largest budget so nothing is
// cut. The baseline reads the same staged files with os.ReadFile.
var benchInstructionsArgs = InstructionsArgs{Path: "src/api/handler.go", BudgetTokens: 32000}

func BenchmarkInstructionsReadBaseline(b *testing.B) {
	srv, out, _ := instructionsServer(b, Options{})
	_, res, err := callInstructions(srv, benchInstructionsArgs)
	if err != nil {
		b.Fatal(err)
	}
	var paths []string
	for _, f := range res.Files {
		if f.Source != "" {
			paths = append(paths, filepath.Join(out, "tree", filepath.FromSlash(f.Source)))
		}
		for _, im := range f.Imports {
			paths = append(paths, filepath.Join(out, "tree", filepath.FromSlash(im)))
		}
	}
	timed(b, func() error {
		for _, p := range paths {
			if _, err := os.ReadFile(p); err != nil {
				return err
			}
		}
		return nil
	})
}

func BenchmarkInstructionsDirect(b *testing.B) {
	srv, _, _ := instructionsServer(b, Options{})
	timed(b, func() error {
		_, res, err := callInstructions(srv, benchInstructionsArgs)
		if err == nil && res.Cut {
			err = errors.New("cut")
		}
		return err
	})
}

// BenchmarkInstructionsDirectCold counts every batch afresh, as the first
// call for a path does.
func BenchmarkInstructionsDirectCold(b *testing.B) {
	srv, _, _ := instructionsServer(b, Options{})
	srv.counter = nil
	timed(b, func() error { _, _, err := callInstructions(srv, benchInstructionsArgs); return err })
}

func BenchmarkInstructionsMCP(b *testing.B) {
	srv, _, _ := instructionsServer(b, Options{})
	cs := connect(b, srv)
	args := map[string]any{"path": benchInstructionsArgs.Path, "budget_tokens": benchInstructionsArgs.BudgetTokens}
	timed(b, func() error {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "instructions", Arguments: args})
		if err == nil && res.IsError {
			err = errors.New("tool error")
		}
		return err
	})
}

// BenchmarkInstructionsRootOfLargeTree asks for the root of a 20,000-file
// snapshot with 10 glob-scoped rules that match no file: the worst case of
// a directory query. Five globs start with "**" and are tried on every file;
// five name a directory ("docs/**") and are tried only on the files there.
func BenchmarkInstructionsRootOfLargeTree(b *testing.B) {
	s := snap{files: map[string]string{"CLAUDE.md": "# memory\n"}}
	for i := range 20_000 {
		s.files[fmt.Sprintf("pkg%03d/file%03d.go", i/100, i%100)] = "package p\n"
	}
	for r := range 10 {
		glob := fmt.Sprintf("docs/**/*.rst%d", r)
		if r%2 == 0 {
			glob = fmt.Sprintf("**/*.rst%d", r)
		}
		s.files[fmt.Sprintf(".claude/rules/r%d.md", r)] = fmt.Sprintf("---\npaths: [%q]\n---\nrule %d\n", glob, r)
	}
	dir := b.TempDir()
	src := filepath.Join(dir, "src")
	for p, c := range s.files {
		full := filepath.Join(src, filepath.FromSlash(p))
		mustDo(b, os.MkdirAll(filepath.Dir(full), 0o755))
		mustDo(b, os.WriteFile(full, []byte(c), 0o644))
	}
	out := filepath.Join(dir, "out")
	publishSource(b, src, out)
	srv, err := New(out, Options{})
	mustDo(b, err)
	defer srv.Close()
	timed(b, func() error {
		_, res, err := callInstructions(srv, InstructionsArgs{Path: "."})
		if err == nil && len(res.Files) != 1 {
			err = fmt.Errorf("%d files apply, want 1", len(res.Files))
		}
		return err
	})
}
