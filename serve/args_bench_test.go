package serve

import (
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

// BenchmarkDecodeArgsRead is decodeArgs on read_file's arguments as
// bench-mcp sends them: one path, every default.
func BenchmarkDecodeArgsRead(b *testing.B) {
	sc, err := readFileSchema(Options{}.withDefaults())
	if err != nil {
		b.Fatal(err)
	}
	if _, err := sc.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true}); err != nil {
		b.Fatal(err)
	}
	raw := []byte(`{"files":[{"path":"http/server.go"}]}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := decodeArgs[ReadFileArgs](sc, raw); err != nil {
			b.Fatal(err)
		}
	}
}
