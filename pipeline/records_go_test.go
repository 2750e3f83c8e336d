package pipeline

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/repoprep/repoprep/internal/testkit"
	"github.com/repoprep/repoprep/snapshot"
)

// TestRecordsGoBeforeIndexes: by the time the index build starts, the
// per-file records (512 bytes each, TestRecordPacks) have given way to
// their manifest entries (buildManifest), so the records and the entries
// are never both held through the build. Measured as the live heap (after
// a forced collection) with the build held at its start until the outputs
// written beside it are done, on trees of 1,000 and 6,000 files: the
// difference over the 5,000 files between them. About 460
// bytes a file (the entry with its path and hash, the index lists); the
// records would add their 512 and more (1,570 when the build held them,
// measured without the wait for the writing beside).
func TestRecordsGoBeforeIndexes(t *testing.T) {
	if testkit.Race {
		t.Skip("the race detector's shadow memory is not the run's")
	}
	live := func(n int) int64 {
		src := t.TempDir()
		for i := range n {
			dir := filepath.Join(src, fmt.Sprintf("d%02d", i%50))
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			text := fmt.Sprintf("package d\n\n// F%d is file %d.\nfunc F%d() int { return %d }\n", i, i, i, i)
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("file%05d.go", i)), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		// Measured once the writing beside the build is over too: while
		// it runs, what it holds for a moment (its buffers, REPO_MAP's
		// facts) is live as well, by as much as the machine's timing gives
		// it (1,267 bytes a file in one run on a busy machine).
		var at runtime.MemStats
		wrote := make(chan struct{})
		besideWritten = func() { close(wrote) }
		indexesStarting = func(ctx context.Context, _ *snapshot.Pending) error {
			select {
			case <-wrote:
			case <-ctx.Done():
				return ctx.Err()
			}
			runtime.GC()
			runtime.GC() // and what the first left in sync.Pools' victim caches
			runtime.ReadMemStats(&at)
			return nil
		}
		defer func() { indexesStarting, besideWritten = nil, nil }()
		out := filepath.Join(t.TempDir(), "out")
		if _, err := Run(context.Background(), Options{Root: src, OutDir: out, Workers: 2, MaxTextBytes: 1 << 20, PreviewLines: 3, Version: "test", Full: true}); err != nil {
			t.Fatal(err)
		}
		return int64(at.HeapAlloc)
	}
	live(100) // the tokenizer's and the rules' tables are built once, and not counted
	small, large := live(1_000), live(6_000)
	perFile := float64(large-small) / 5_000
	t.Logf("live heap as the index build starts: %d bytes for 1,000 files, %d for 6,000: %.0f bytes a file", small, large, perFile)
	if perFile > 800 {
		t.Errorf("%.0f bytes a file live as the index build starts, want under 800: the records were not let go", perFile)
	}
}

// TestStateStreamedBeforeIndexes: the refresh state's entries are written
// to the state file as they are made, before the index build starts, not
// held as values until the state is written last (a fifth of what was
// live at the peak): by the build's start the file already holds most of
// them, past its 64 KiB write buffer.
func TestStateStreamedBeforeIndexes(t *testing.T) {
	noRacyWindow(t)
	const n = 3_000
	src := t.TempDir()
	for i := range n {
		dir := filepath.Join(src, fmt.Sprintf("d%02d", i%30))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("file%05d.txt", i)), []byte(fmt.Sprintf("text %d\n", i)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var size int64 = -1
	indexesStarting = func(_ context.Context, out *snapshot.Pending) error {
		if fi, err := os.Stat(out.Path(snapshot.StateFile)); err == nil {
			size = fi.Size()
		}
		return nil
	}
	defer func() { indexesStarting = nil }()
	out := filepath.Join(t.TempDir(), "out")
	opts := refreshOpts(src, out)
	opts.Full = true
	runOpts(t, opts)
	if size < 64<<10 {
		t.Fatalf("the state file held %d bytes as the index build started, want its %d entries written (over 64 KiB)", size, n)
	}
	// And it reads back: a refresh with nothing changed reuses every file.
	res := runOpts(t, refreshOpts(src, out))
	if res.Report.Refresh == nil || res.Report.Refresh.Reused != n {
		t.Fatalf("refresh %+v, want all %d files reused", res.Report.Refresh, n)
	}
}
