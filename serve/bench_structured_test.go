package serve

import (
	"context"
	"fmt"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkSearchMCP is a search over MCP that shows its 50 matching lines
// (the default max_results) of the 500-line benchmark file, each with one
// line of context: the answer whose structuredContent carries the most
// lines besides read_file's.
func BenchmarkSearchMCP(b *testing.B) {
	srv, _ := benchServer(b)
	cs := connect(b, srv)
	args := map[string]any{"pattern": `handle\d*5\(`, "context_lines": 1}
	timed(b, func() error {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "search", Arguments: args})
		if err == nil && res.IsError {
			err = fmt.Errorf("tool error: %v", res.Content)
		}
		return err
	})
}
