package trigram

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"log"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/codesearch/index"

	"github.com/repoprep/repoprep/internal/testkit"
)

// goSrcFiles lists the Go sources under GOROOT/src: real code nobody here
// wrote, about 70 MB.
func goSrcFiles(tb testing.TB, limit int) ([]File, int64) {
	root := testkit.GoSrc(tb)
	var files []File
	var total int64
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(p) != ".go" || (limit > 0 && len(files) >= limit) {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		total += info.Size()
		rel, _ := filepath.Rel(root, p)
		files = append(files, File{Path: filepath.ToSlash(rel), Open: func() (io.ReadCloser, error) { return os.Open(p) }, Size: info.Size()})
		return nil
	})
	if len(files) == 0 {
		tb.Skip("no Go sources under " + root)
	}
	slices.SortFunc(files, func(a, b File) int {
		if a.Path < b.Path {
			return -1
		}
		return 1
	})
	return files, total
}

// BenchmarkBuildGoSrc indexes Go's src/ beside a plain read of the same
// files: the ratio is what the index stage costs over reading the tree.
// The codesearch case is the peer: google/codesearch's own index writer
// (the design this package writes; one goroutine, its run files in the
// benchmark's directory) over the same files.
func BenchmarkBuildGoSrc(b *testing.B) {
	files, total := goSrcFiles(b, 0)
	b.Run("read", func(b *testing.B) {
		b.SetBytes(total)
		buf := make([]byte, 64<<10)
		for b.Loop() {
			for _, f := range files {
				rc, _ := f.Open()
				for {
					if _, err := rc.Read(buf); err != nil {
						break
					}
				}
				rc.Close()
			}
		}
	})
	b.Run("codesearch", func(b *testing.B) {
		b.SetBytes(total)
		dir := b.TempDir()
		b.Setenv("TMPDIR", dir) // its run files
		log.SetOutput(io.Discard)
		defer log.SetOutput(os.Stderr)
		for b.Loop() {
			dst := filepath.Join(dir, "csearchindex")
			os.Remove(dst)
			ix := index.Create(dst)
			ix.LogSkip = false
			for _, f := range files {
				rc, err := f.Open()
				if err != nil {
					b.Fatal(err)
				}
				ix.Add(f.Path, rc)
				rc.Close()
			}
			ix.Flush()
		}
	})
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("index/workers=%d", workers), func(b *testing.B) {
			b.SetBytes(total)
			dir := b.TempDir()
			for i := 0; b.Loop(); i++ {
				dst := filepath.Join(dir, "ix")
				os.Remove(dst)
				if err := BuildWorkers(context.Background(), files, dst, dir, workers); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
