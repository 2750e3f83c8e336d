package pipeline

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/repoprep/repoprep/snapshot"
	"github.com/repoprep/repoprep/stages"
)

// TestLineTokensHoldLittlePerFile: writeLineTokens holds the counts of
// a window of files, never a slot per staged file. Measured as the live
// heap when the last file is counted, beyond what it was before, for a
// small and a much larger tree of one-line files: before, it held a
// result, a channel and a hash for each file (about 180 bytes) beside
// what remains, the index's directory (lineindex.TokenWriter keeps an
// 80-byte record a file until it writes them at the end: about 94 bytes
// a file with append's spare capacity).
func TestLineTokensHoldLittlePerFile(t *testing.T) {
	if testing.Short() {
		t.Skip("counts 17,000 files")
	}
	grown := func(n int) int64 {
		out := filepath.Join(t.TempDir(), "out")
		lock, err := snapshot.Acquire(out, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer lock.Release()
		pending, err := lock.Begin()
		if err != nil {
			t.Fatal(err)
		}
		defer pending.Discard()
		tree := pending.Path(snapshot.TreeDir)
		staged := make([]stages.StagedText, n)
		for i := range staged {
			name := fmt.Sprintf("d%03d/f%06d.txt", i%100, i)
			text := fmt.Sprintf("line %d\n", i)
			if err := os.MkdirAll(filepath.Join(tree, fmt.Sprintf("d%03d", i%100)), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(tree, filepath.FromSlash(name)), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			en := &snapshot.Entry{Path: name, Size: int64(len(text)), Staged: true, Lines: 1, Hash: fmt.Sprintf("blake3:%064x", i)}
			staged[i] = stages.StagedText{Entry: en, OutSize: int64(len(text))}
		}
		last := staged[n-1].Path
		var (
			once          sync.Once
			before, at    runtime.MemStats
			countingSaved = countingFile
		)
		countingFile = func(path string) {
			if path == last {
				once.Do(func() {
					runtime.GC()
					runtime.ReadMemStats(&at)
				})
			}
		}
		defer func() { countingFile = countingSaved }()
		runtime.GC()
		runtime.ReadMemStats(&before)
		if err := writeLineTokens(context.Background(), pending, staged, 2, nil, nil); err != nil {
			t.Fatal(err)
		}
		return int64(at.HeapAlloc) - int64(before.HeapAlloc)
	}
	grown(100) // the tokenizer's tables are built once, and not counted
	small, large := grown(1_000), grown(16_000)
	perFile := float64(large-small) / 15_000
	t.Logf("live heap while counting: %d bytes for 1,000 files, %d for 16,000: %.1f bytes per file", small, large, perFile)
	if perFile > 140 {
		t.Errorf("writeLineTokens holds %.1f bytes per staged file, want no more than the directory's record", perFile)
	}
}
