package trigram

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// Files split by several workers make the same index, byte for byte, as
// one goroutine makes: the pairs are added in id order whatever finishes
// first; and however many run files the pairs are flushed to.
//
// Whole: 300 files of up to 3000 bytes (260k pairs). Under -short (as
// make test runs it with -race): 150 of up to 2000 (105k pairs), as each run flushed costs a temporary
// file and a 256 KiB buffer whose shadow the race detector clears: the
// whole size took 10 s there, for no more interleavings. Both sizes are
// checked below to keep what the test is about: more files than the
// window admits (by count with 1 worker, by bytes with 5), files with more
// pairs than a run holds, and many runs.
func TestBuildWorkersSameBytes(t *testing.T) {
	nFiles, maxSize := 300, 3000
	if testing.Short() {
		nFiles, maxSize = 150, 2000
	}
	rng := rand.New(rand.NewPCG(5, 6))
	contents := map[string]string{}
	for i := range nFiles {
		b := make([]byte, rng.IntN(maxSize))
		for j := range b {
			b[j] = "abcdefgh ij\n"[rng.IntN(12)]
		}
		contents[fmt.Sprintf("f%03d.txt", i)] = string(b)
	}
	files := memFiles(contents)
	total, largest := pairsIn(t, files)
	if len(files) <= windowFilesPerWorker || len(files)*unknownSizeBytes <= windowBytes || largest <= 1000 || total < 20*1000 {
		t.Fatalf("%d files, %d pairs, %d in the largest set: the window never fills, or no file outgrows a run, or few runs", len(files), total, largest)
	}
	// Sizes that fill the split window at once, or never: the window must
	// never hold back the file the build waits for.
	huge := slices.Clone(files)
	for i := range huge {
		huge[i].Size = windowBytes * int64(1+i%3)
	}
	var want []byte
	for _, pairs := range []int{4 << 20, 1000, 777} {
		old := maxPairs
		maxPairs = pairs
		for _, workers := range []int{1, 2, 5} {
			files := files
			if workers == 2 {
				files = huge
			}
			dir := t.TempDir()
			dst := filepath.Join(dir, "index")
			if err := BuildWorkers(context.Background(), files, dst, dir, workers); err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(dst)
			if err != nil {
				t.Fatal(err)
			}
			if want == nil {
				want = got
			} else if !bytes.Equal(got, want) {
				t.Errorf("maxPairs %d, %d workers: another index than with all pairs in memory and 1 worker", pairs, workers)
			}
		}
		maxPairs = old
	}
}

// A file that cannot be read fails the build, whichever worker reads it,
// and the workers stop.
func TestBuildWorkersError(t *testing.T) {
	files := memFiles(map[string]string{"a": "aaaa", "b": "bbbb", "c": "cccc"})
	bad := errors.New("unreadable")
	files[1].Open = func() (io.ReadCloser, error) { return nil, bad }
	for _, workers := range []int{1, 3} {
		dir := t.TempDir()
		if err := BuildWorkers(context.Background(), files, filepath.Join(dir, "index"), dir, workers); !errors.Is(err, bad) {
			t.Errorf("%d workers: err = %v, want %v", workers, err, bad)
		}
		if left, _ := filepath.Glob(filepath.Join(dir, "trigram-*")); len(left) > 0 {
			t.Errorf("%d workers: left %v behind", workers, left)
		}
	}
}

// The partitions' ranges are ascending and never empty, however skewed the
// trigrams and however many partitions; each takes a fair share when the
// first bytes allow it.
func TestSplitPoints(t *testing.T) {
	set := func(leads ...uint32) *fileSet {
		s := &fileSet{}
		for _, l := range leads {
			s.trigrams = append(s.trigrams, l<<16|0x6162)
		}
		return s
	}
	even := set()
	for l := range uint32(256) {
		even.trigrams = append(even.trigrams, l<<16)
	}
	for _, c := range []struct {
		name  string
		sets  []*fileSet
		parts int
		want  []uint32 // nil: only check the ranges
	}{
		{"one part", []*fileSet{set('a', 'b')}, 1, []uint32{}},
		{"no trigrams", nil, 4, nil},
		{"all in one lead", []*fileSet{set('x', 'x', 'x')}, 3, nil},
		{"last lead only", []*fileSet{set(255, 255)}, 16, nil},
		{"first lead only", []*fileSet{set(0, 0)}, 16, nil},
		{"even, halves", []*fileSet{even}, 2, []uint32{128 << 16}},
		{"even, quarters", []*fileSet{even}, 4, []uint32{64 << 16, 128 << 16, 192 << 16}},
		{"two leads", []*fileSet{set(' ', ' ', 'e', 'e')}, 2, []uint32{(' ' + 1) << 16}},
	} {
		var hist [256]int
		for _, s := range c.sets {
			countLeads(&hist, s.trigrams)
		}
		got := splitPoints(&hist, c.parts)
		if len(got) != c.parts-1 {
			t.Errorf("%s: %d points for %d parts", c.name, len(got), c.parts)
			continue
		}
		lo := uint32(0)
		for _, p := range got {
			if p <= lo || p >= 1<<24 || p&0xffff != 0 {
				t.Errorf("%s: points %x: a range is empty or not at a first byte", c.name, got)
			}
			lo = p
		}
		if c.want != nil && fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("%s: points %x, want %x", c.name, got, c.want)
		}
	}
}

// A cancelled build stops at once, whichever file it is at, leaves no run
// file behind and no worker running (the race detector and the goroutine
// count would tell).
func TestBuildWorkersCancelled(t *testing.T) {
	contents := map[string]string{}
	for i := range 400 {
		contents[fmt.Sprintf("f%03d", i)] = strings.Repeat(fmt.Sprintf("line %d of file %d\n", i, i), 200)
	}
	before := runtime.NumGoroutine()
	for _, at := range []int{0, 1, 7, 150, 399} {
		files := memFiles(contents)
		ctx, cancel := context.WithCancel(context.Background())
		open := files[at].Open
		files[at].Open = func() (io.ReadCloser, error) { cancel(); return open() }
		old := maxPairs
		maxPairs = 5000 // runs on disk when it stops
		dir := t.TempDir()
		err := BuildWorkers(ctx, files, filepath.Join(dir, "index"), dir, 3)
		maxPairs = old
		if !errors.Is(err, context.Canceled) {
			t.Errorf("cancelled at file %d: err = %v", at, err)
		}
		if left, _ := filepath.Glob(filepath.Join(dir, "trigram-*")); len(left) > 0 {
			t.Errorf("cancelled at file %d: left %v behind", at, left)
		}
	}
	for deadline := time.Now().Add(5 * time.Second); runtime.NumGoroutine() > before && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines left running", n-before)
	}
}

// The partitions' ranges come from files sampled over the whole list, so a
// tree whose first files differ from the rest (scripts and READMEs before
// the code) still splits its pairs about evenly.
func TestSamplePointsSpread(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	text := func(alphabet string, n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		return string(b)
	}
	var files []File
	for i := range 400 {
		s := text("abcdefghijklmnopqrstuvwxyz", 2000)
		if i < 100 {
			s = text("wxyz", 2000) // the skewed head
		}
		files = append(files, File{Path: fmt.Sprint(i), Open: func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(s)), nil }})
	}
	points, err := samplePoints(files, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	var hist [256]int
	sp := &splitter{seen: make([]uint64, 1<<24/64), buf: make([]byte, 64<<10)}
	for _, f := range files {
		trigrams, _, err := sp.split(f, nil)
		if err != nil {
			t.Fatal(err)
		}
		countLeads(&hist, trigrams)
	}
	below, total := 0, 0
	for b, n := range hist {
		if uint32(b)<<16 < points[0] {
			below += n
		}
		total += n
	}
	if share := float64(below) / float64(total); share < 0.4 || share > 0.6 {
		t.Errorf("point %x gives partition 0 %.0f%% of the pairs, want 40-60%%", points[0], 100*share)
	}
}
