package trigram

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBuildOpen: files without an Open of their own, read through the
// build's one Opener, give the index that a closure per file gives, byte
// for byte, whatever the number of workers; a File's own Open still
// wins over the Opener; and a file the Opener cannot read fails the
// build, naming it.
func TestBuildOpen(t *testing.T) {
	contents := map[string]string{}
	for i := range 300 {
		contents[fmt.Sprintf("d%d/f%03d.go", i%7, i)] = strings.Repeat(fmt.Sprintf("func f%d() { return %d }\n", i, i*i), 1+i%5)
	}
	withOpen := memFiles(contents)
	open := func(path string) (io.ReadCloser, error) {
		text, ok := contents[path]
		if !ok {
			return nil, fmt.Errorf("open %s: %w", path, os.ErrNotExist)
		}
		return io.NopCloser(strings.NewReader(text)), nil
	}
	shared := func() []File {
		files := make([]File, len(withOpen))
		for i, f := range withOpen {
			files[i] = File{Path: f.Path, Hash: f.Hash}
		}
		return files
	}
	for _, workers := range []int{1, 2, 4} {
		dir := t.TempDir()
		want, got, mixed := filepath.Join(dir, "want"), filepath.Join(dir, "got"), filepath.Join(dir, "mixed")
		if err := BuildWorkers(context.Background(), withOpen, want, dir, workers); err != nil {
			t.Fatal(err)
		}
		if err := BuildOpen(context.Background(), shared(), open, got, dir, workers); err != nil {
			t.Fatal(err)
		}
		// Odd files bring their own Open, and the Opener refuses them.
		files := shared()
		odd := map[string]bool{}
		for i := 1; i < len(files); i += 2 {
			files[i].Open, odd[files[i].Path] = withOpen[i].Open, true
		}
		if err := BuildOpen(context.Background(), files, func(path string) (io.ReadCloser, error) {
			if odd[path] {
				return nil, fmt.Errorf("%s has its own Open", path)
			}
			return open(path)
		}, mixed, dir, workers); err != nil {
			t.Fatal(err)
		}
		w, _ := os.ReadFile(want)
		for _, name := range []string{got, mixed} {
			if b, _ := os.ReadFile(name); !bytes.Equal(b, w) {
				t.Errorf("workers %d: %s differs from the index a closure per file gives", workers, filepath.Base(name))
			}
		}
	}
	files := shared()
	files = append(files, File{Path: "gone.txt"})
	dir := t.TempDir()
	err := BuildOpen(context.Background(), files, open, filepath.Join(dir, "index"), dir, 2)
	if err == nil || !strings.Contains(err.Error(), "gone.txt") {
		t.Errorf("an unreadable file: err %v, want one naming gone.txt", err)
	}
}
