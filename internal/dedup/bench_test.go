package dedup

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/zeebo/blake3"
)

// benchTree writes about 2000 files, about 100 MB, a tenth of them copies of others, with
// sizes spread like a source tree's (mostly small, a few large).
func benchTree(b *testing.B) ([]File, int64) {
	b.Helper()
	dir := b.TempDir()
	rng := rand.New(rand.NewPCG(1, 2))
	var files []File
	var total int64
	var contents [][]byte
	for i := range 2000 {
		var data []byte
		if i%10 == 9 && len(contents) > 0 {
			data = contents[rng.IntN(len(contents))] // a duplicate
		} else {
			size := 4<<10 + rng.IntN(60<<10)
			if i%50 == 0 {
				size = 1<<20 + rng.IntN(1<<20)
			}
			data = make([]byte, size)
			for j := range data {
				data[j] = byte('a' + rng.IntN(26))
			}
			contents = append(contents, data)
		}
		p := fmt.Sprintf("m%d/p%d/f%04d.go", i%13, i%5, i)
		name := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(name, data, 0o644); err != nil {
			b.Fatal(err)
		}
		files = append(files, File{Path: p, Name: name, Size: int64(len(data))})
		total += int64(len(data))
	}
	return files, total
}

// BenchmarkFind is the dedup stage on the generated tree, one worker per CPU.
func BenchmarkFind(b *testing.B) {
	files, total := benchTree(b)
	b.SetBytes(total)
	b.ResetTimer()
	for b.Loop() {
		if _, err := Find(context.Background(), files, runtime.NumCPU()); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkHashAll is b3sum-style: every file hashed in one loop on one goroutine.
func BenchmarkHashAll(b *testing.B) {
	files, total := benchTree(b)
	b.SetBytes(total)
	buf := make([]byte, 256<<10)
	b.ResetTimer()
	for b.Loop() {
		for _, f := range files {
			fh, err := os.Open(f.Name)
			if err != nil {
				b.Fatal(err)
			}
			h := blake3.New()
			for {
				n, err := fh.Read(buf)
				h.Write(buf[:n])
				if err == io.EOF {
					break
				} else if err != nil {
					b.Fatal(err)
				}
			}
			fh.Close()
			h.Sum(nil)
		}
	}
}
