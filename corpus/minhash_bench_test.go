package corpus

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// benchTexts is this module's own Go source, a few MB of real code.
func benchTexts(b testing.TB) [][]byte {
	b.Helper()
	var texts [][]byte
	filepath.WalkDir("..", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") && p != "..") {
			return fs.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".go") {
			if data, err := os.ReadFile(p); err == nil {
				texts = append(texts, data)
			}
		}
		return nil
	})
	return texts
}

// BenchmarkSketch is sketch's throughput on real code.
func BenchmarkSketch(b *testing.B) {
	texts := benchTexts(b)
	var size int64
	for _, t := range texts {
		size += int64(len(t))
	}
	b.SetBytes(size)
	b.ResetTimer()
	for b.Loop() {
		for _, t := range texts {
			sketch(t)
		}
	}
}
