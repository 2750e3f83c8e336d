package instructions

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/repoprep/repoprep/snapshot"
)

// benchTree is a monorepo's staged tree: 300 packages, each with a
// CLAUDE.md importing two shared docs and its own notes, an AGENTS.md
// symlinked to it, 60 source files; 12 root rules. It returns the
// manifest, the tree and the instruction and imported texts a build reads.
func benchTree(b *testing.B) (*snapshot.Manifest, fs.FS, []string) {
	b.Helper()
	root := b.TempDir()
	m := &snapshot.Manifest{Schema: snapshot.FilesSchema}
	var read []string
	add := func(p, content string, isRead bool) {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			b.Fatal(err)
		}
		m.Files = append(m.Files, snapshot.Entry{Path: p, Size: int64(len(content)), Staged: true, Tokens: len(content) / 4})
		if isRead {
			read = append(read, p)
		}
	}
	prose := strings.Repeat("Keep handlers small; return errors with context; test every branch. ", 30) + "\n"
	add("docs/style.md", "# Style\n\n"+prose, true)
	add("docs/testing.md", "# Testing\n\n"+prose+"More: @style.md\n", true)
	for r := range 12 {
		add(fmt.Sprintf(".claude/rules/r%02d.md", r), fmt.Sprintf("---\npaths:\n  - \"pkg/p%d*/**/*.go\"\n---\n%s", r, prose), true)
	}
	for p := range 300 {
		dir := fmt.Sprintf("pkg/p%03d", p)
		add(dir+"/CLAUDE.md", "# Package\n\n"+prose+"See @../../docs/style.md and @../../docs/testing.md.\nNotes: @HACKING.md\n\n```\n@not-an-import.md\n```\n", true)
		add(dir+"/HACKING.md", prose, true)
		m.Files = append(m.Files, snapshot.Entry{Path: dir + "/AGENTS.md", Category: "junk", Reason: "symlink", LinkTarget: "CLAUDE.md"})
		for f := range 60 {
			add(fmt.Sprintf("%s/f%02d.go", dir, f), "package p\n", false)
		}
	}
	slices.SortFunc(m.Files, func(a, b snapshot.Entry) int { return strings.Compare(a.Path, b.Path) })
	return m, os.DirFS(root), read
}

// BenchmarkBuild indexes the tree; the baseline reads the same texts.
func BenchmarkBuild(b *testing.B) {
	m, tree, read := benchTree(b)
	var size int64
	for _, p := range read {
		data, err := fs.ReadFile(tree, p)
		if err != nil {
			b.Fatal(err)
		}
		size += int64(len(data))
	}
	benchBuild(b, m, tree, read, size, func(b *testing.B, idx *Index) {
		if len(idx.Files) != 612 {
			b.Fatalf("%d instruction files, want 612", len(idx.Files))
		}
	})
}

// BenchmarkBuildFanOut indexes the fan-out tree: 300 CLAUDE.md files each
// importing the same 200 documents of 50 KB (10 MB of text), every
// document naming two missing files and the next document. The baseline
// reads each distinct text once; index-bytes is instructions.json's size.
func BenchmarkBuildFanOut(b *testing.B) {
	files := fanOut(300, 200, 50_000)
	root := b.TempDir()
	m := &snapshot.Manifest{Schema: snapshot.FilesSchema}
	var read []string
	var size int64
	for p, c := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			b.Fatal(err)
		}
		m.Files = append(m.Files, snapshot.Entry{Path: p, Size: int64(len(c)), Staged: true, Tokens: len(c) / 4})
		if strings.HasSuffix(p, ".md") {
			read = append(read, p)
			size += int64(len(c))
		}
	}
	slices.SortFunc(m.Files, func(a, b snapshot.Entry) int { return strings.Compare(a.Path, b.Path) })
	benchBuild(b, m, os.DirFS(root), read, size, func(b *testing.B, idx *Index) {
		b.ReportMetric(float64(len(encode(b, idx))), "index-bytes")
		if len(idx.Warnings) != 0 {
			b.Fatalf("the bound was reached: %q", idx.Warnings)
		}
	})
}

// benchBuild runs Build over tree beside a plain read of the texts read
// (size bytes in all), both in files/s, and hands the last index to check.
func benchBuild(b *testing.B, m *snapshot.Manifest, tree fs.FS, read []string, size int64, check func(*testing.B, *Index)) {
	b.Run("read-baseline", func(b *testing.B) {
		b.SetBytes(size)
		for b.Loop() {
			for _, p := range read {
				if _, err := fs.ReadFile(tree, p); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.ReportMetric(float64(len(read))*float64(b.N)/b.Elapsed().Seconds(), "files/s")
	})
	b.Run("index", func(b *testing.B) {
		b.SetBytes(size)
		var idx *Index
		for b.Loop() {
			var err error
			if idx, err = Build(m, tree); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(len(read))*float64(b.N)/b.Elapsed().Seconds(), "files/s")
		check(b, idx)
	})
}
