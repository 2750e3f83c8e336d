package repomap

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/repoprep/repoprep/snapshot"
)

// TestReadStagedHead: a head is the file's first limit bytes, whatever the
// file's size against the first read's mapHeadBytes, into a caller's
// buffer or not; a missing file or a bad name is an error.
func TestReadStagedHead(t *testing.T) {
	data := func(n int) []byte { return bytes.Repeat([]byte("0123456789abcdef"), n/16+1)[:n] }
	tree := fstest.MapFS{}
	for _, n := range []int{0, 1, mapHeadBytes - 1, mapHeadBytes, mapHeadBytes + 1, 3 * mapHeadBytes} {
		tree[fmt.Sprint(n)] = &fstest.MapFile{Data: data(n)}
	}
	for _, size := range []int{0, 1, mapHeadBytes - 1, mapHeadBytes, mapHeadBytes + 1, 3 * mapHeadBytes} {
		for _, limit := range []int64{1, mapHeadBytes, mapHeadBytes + 7, mapConfigBytes} {
			want := data(size)[:min(int64(size), limit)]
			for _, buf := range [][]byte{nil, make([]byte, mapHeadBytes), make([]byte, 3)} {
				got, err := readStagedInto(tree, fmt.Sprint(size), limit, buf)
				if err != nil || !bytes.Equal(got, want) {
					t.Errorf("size %d, limit %d, buffer %d: %d bytes, %v; want %d bytes", size, limit, cap(buf), len(got), err, len(want))
				}
			}
		}
	}
	for _, name := range []string{"missing", "../0", "/0", ""} {
		if got, err := readStagedHead(tree, name, mapHeadBytes); err == nil {
			t.Errorf("%q: %d bytes, no error", name, len(got))
		}
	}
	if _, err := readStagedHead(nil, "0", mapHeadBytes); err == nil {
		t.Error("no tree: no error")
	}
}

// BenchmarkRepoMapTree renders the map of a Go tree of 800 packages (a
// tenth of them commands) with their staged copies on disk, so the
// package clauses are read: Go's src/ has about as many.
func BenchmarkRepoMapTree(b *testing.B) {
	dir := b.TempDir()
	license := "// Copyright 2026 The Authors. All rights reserved.\n// Use of this source code is governed by a BSD-style\n// license that can be found in the LICENSE file.\n\n"
	var m snapshot.Manifest
	for i := range 800 {
		pkg := fmt.Sprintf("pkg%d", i)
		if i%10 == 0 {
			pkg = "main"
		}
		for j := range 4 {
			p := fmt.Sprintf("area%d/p%d/f%d.go", i%20, i, j)
			text := license + "package " + pkg + "\n\n" + strings.Repeat("func f() {}\n", 40)
			name := filepath.Join(dir, filepath.FromSlash(p))
			if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
				b.Fatal(err)
			}
			if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
				b.Fatal(err)
			}
			m.Files = append(m.Files, snapshot.Entry{Path: p, Size: int64(len(text)), Category: "source", Language: "Go",
				Staged: true, Lines: 45, Tokens: 300})
		}
	}
	tree := os.DirFS(dir)
	b.ReportAllocs()
	for b.Loop() {
		Render(&m, Options{Name: "tree", Tree: tree})
	}
}
