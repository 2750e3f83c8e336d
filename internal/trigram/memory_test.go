package trigram

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"testing"
)

// TestBuildHoldsNothingPerFile: what the builder holds while it works
// does not grow with the number of files (the postings spill to runs in
// the temporary directory; the sets are handed over through one slot
// per file of the window). Measured as the live heap when the last
// file is opened, beyond what it was before the build, for a small and
// a fifty times larger tree of tiny files: before, the builder held a
// channel for each file of the tree (about 120 bytes each).
func TestBuildHoldsNothingPerFile(t *testing.T) {
	if testing.Short() {
		t.Skip("builds an index of 100,000 files")
	}
	grown := func(n int) int64 {
		files := make([]File, n)
		var before, at runtime.MemStats
		for i := range files {
			text := []byte(fmt.Sprintf("file %d of %d\n", i, n))
			last := i == n-1
			files[i] = File{Path: fmt.Sprintf("d%d/f%d.txt", i%100, i), Size: int64(len(text)), Open: func() (io.ReadCloser, error) {
				if last {
					runtime.GC()
					runtime.ReadMemStats(&at)
				}
				return io.NopCloser(bytes.NewReader(text)), nil
			}}
		}
		dir := t.TempDir()
		runtime.GC()
		runtime.ReadMemStats(&before)
		if err := BuildWorkers(context.Background(), files, filepath.Join(dir, "search.index"), dir, 2); err != nil {
			t.Fatal(err)
		}
		return int64(at.HeapAlloc) - int64(before.HeapAlloc)
	}
	// A splitter's 2 MiB bitmap is live or not by the time the last file
	// is opened (its worker may have found nothing left to split): the
	// larger tree is large enough that this is under 25 bytes a file.
	small, large := grown(2_000), grown(100_000)
	perFile := float64(large-small) / 98_000
	t.Logf("live heap while building: %d bytes for 2,000 files, %d for 100,000: %.1f bytes per file", small, large, perFile)
	if perFile > 48 {
		t.Errorf("the builder holds %.1f bytes per file of the tree, want it not to grow with the tree", perFile)
	}
}
