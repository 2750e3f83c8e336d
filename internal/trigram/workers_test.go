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
	"testing"
)

// Files split by several workers make the same index, byte for byte, as
// one goroutine makes: the pairs are added in id order whatever finishes
// first; and however many run files the pairs are flushed to.
func TestBuildWorkersSameBytes(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	contents := map[string]string{}
	for i := range 300 {
		b := make([]byte, rng.IntN(3000))
		for j := range b {
			b[j] = "abcdefgh ij\n"[rng.IntN(12)]
		}
		contents[fmt.Sprintf("f%03d.txt", i)] = string(b)
	}
	files := memFiles(contents)
	var want []byte
	for _, pairs := range []int{4 << 20, 1000, 777} {
		old := maxPairs
		maxPairs = pairs
		for _, workers := range []int{1, 2, 5} {
			dir := t.TempDir()
			dst := filepath.Join(dir, FileName)
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
	dir := t.TempDir()
	if err := BuildWorkers(context.Background(), files, filepath.Join(dir, FileName), dir, 3); !errors.Is(err, bad) {
		t.Errorf("err = %v, want %v", err, bad)
	}
}
