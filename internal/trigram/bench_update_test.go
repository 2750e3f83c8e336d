package trigram

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/zeebo/blake3"

	"github.com/repoprep/repoprep/internal/testkit"
)

// BenchmarkUpdateOneEdit updates a real snapshot's search.index after one
// file changed, as a refresh does: REPOPREP_BENCH_OUT names an OUT (its
// search.index and tree/), REPOPREP_BENCH_EDIT the staged path to edit
// (default fmt/print.go, as make bench-refresh edits), and
// REPOPREP_BENCH_PARSE=full parses the previous index whole first (as
// refreshes did before the table was read as it is merged). The update
// is written under REPOPREP_BENCH_TMPFS (default /dev/shm).
func BenchmarkUpdateOneEdit(b *testing.B) {
	out := os.Getenv("REPOPREP_BENCH_OUT")
	if out == "" {
		b.Skip("set REPOPREP_BENCH_OUT to a snapshot's directory")
	}
	edit := cmpOr(os.Getenv("REPOPREP_BENCH_EDIT"), "fmt/print.go")
	data, err := os.ReadFile(filepath.Join(out, "search.index"))
	if err != nil {
		b.Fatal(err)
	}
	probe, err := Parse(data)
	if err != nil {
		b.Fatal(err)
	}
	tree := filepath.Join(out, "tree")
	files := make([]File, len(probe.Paths()))
	from := make([]int, len(files))
	for id, path := range probe.Paths() {
		from[id] = id
		files[id] = File{Path: path}
		content, err := os.ReadFile(filepath.Join(tree, filepath.FromSlash(path)))
		if err != nil {
			b.Fatal(err)
		}
		if path == edit {
			from[id] = -1
			content = append(content, "\n// edited: zebra quux\n"...)
		}
		files[id].Hash = blake3.Sum256(content)
		files[id].Open = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(content)), nil }
	}
	old := func(id int) (File, bool) {
		path := probe.Paths()[id]
		return File{Path: path, Open: func() (io.ReadCloser, error) { return os.Open(filepath.Join(tree, filepath.FromSlash(path))) }}, true
	}
	dir, err := os.MkdirTemp(cmpOr(os.Getenv("REPOPREP_BENCH_TMPFS"), "/dev/shm"), "trigram-update-")
	if err != nil {
		b.Fatal(err)
	}
	defer os.RemoveAll(dir)
	parse := ParseFiles
	if os.Getenv("REPOPREP_BENCH_PARSE") == "full" {
		parse = Parse
	}
	cpu0 := testkit.CPUTime()
	for b.Loop() {
		dst := filepath.Join(dir, "updated")
		os.Remove(dst)
		prev, err := parse(data)
		if err != nil {
			b.Fatal(err)
		}
		if err := UpdateWith(context.Background(), prev, files, from, old, dst); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64((testkit.CPUTime()-cpu0).Microseconds())/1000/float64(b.N), "cpu-ms/op")
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
