package serve

import (
	"context"
	"errors"
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
