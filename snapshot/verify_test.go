package snapshot

import (
	"bufio"
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/zeebo/blake3"

	"github.com/repoprep/repoprep/internal/lineindex"
	"github.com/repoprep/repoprep/internal/secrets"
	"github.com/repoprep/repoprep/internal/testkit"
	"github.com/repoprep/repoprep/internal/tokens"
	"github.com/repoprep/repoprep/internal/trigram"
)

func hashHex(data []byte) string {
	sum := blake3.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// stagedEntries are the entries of tree's files, each staged as it is.
func stagedEntries(tree fstest.MapFS) []Entry {
	var out []Entry
	for p, f := range tree {
		lines := bytes.Count(f.Data, []byte("\n"))
		if len(f.Data) > 0 && f.Data[len(f.Data)-1] != '\n' {
			lines++
		}
		out = append(out, Entry{
			Path: p, Size: int64(len(f.Data)), Category: "text", Encoding: "utf-8", Lines: lines,
			Tokens: tokens.Count(string(f.Data)), Staged: true, Mime: "text/plain; charset=utf-8", Hash: "blake3:" + hashHex(f.Data),
		})
	}
	return out
}

// writeSnapshot publishes a small snapshot the way Run lays it out and
// returns its directory and manifest.
func writeSnapshot(t testing.TB, dir string, tree fstest.MapFS, extra []Entry) *Manifest {
	t.Helper()
	m := newManifest(append(stagedEntries(tree), extra...), []Pruned{{Path: ".git", Reason: "excluded-dir"}})
	for p, f := range tree {
		name := filepath.Join(dir, "tree", filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for i := range m.Files {
		if m.Files[i].Path == "secret.env" {
			m.Files[i].Secrets = 1
		}
	}
	write := func(name string, fill func(w io.Writer) error) {
		var b bytes.Buffer
		if err := fill(&b); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("files.json", func(w io.Writer) error { return EncodeJSON(w, m) })
	write("oversize.json", func(w io.Writer) error { return WriteOversize(w, m, tree, 3) })
	write("secrets.json", func(w io.Writer) error {
		_, err := fmt.Fprintf(w, `{"schema": %q, "findings": [{"path": "secret.env", "line": 1, "column": 5, "rule": "aws-access-key", "description": "AWS key", "match": "AKIA…(20)", "fingerprint": "x"}]}`, secrets.Schema)
		return err
	})
	write("secrets.sarif", func(w io.Writer) error {
		return secrets.WriteSARIF(w, []secrets.PathFinding{{Path: "secret.env", Finding: secrets.Finding{
			Line: 1, Column: 5, Rule: "aws-access-key", Description: "AWS key", Match: "AKIA…(20)", Fingerprint: "x"}}}, "test")
	})
	write("report.json", func(w io.Writer) error {
		_, err := fmt.Fprintf(w, `{"schema": %q, "files": 4}`, ReportSchema)
		return err
	})
	write("REPO_MAP.md", func(w io.Writer) error { _, err := io.WriteString(w, "# Repository map\n"); return err })
	rewriteIndexes(t, dir, m)
	return m
}

func verifyFixture() (fstest.MapFS, []Entry) {
	tree := fstest.MapFS{
		"main.go":        {Data: []byte("package main\n\nfunc main() {}\n")},
		"docs/guide.md":  {Data: []byte("# Guide\nno final newline")},
		"secret.env":     {Data: []byte("KEY=AKIA…(20)\n")},
		"logs/big.txt":   {Data: []byte(strings.Repeat("line\n", 20))},
		"empty.txt":      {Data: nil},
		"dir/nested.txt": {Data: []byte("a\r\nb\n")},
	}
	extra := []Entry{
		{Path: "docs/guide-copy.md", Size: 25, Category: "text", DuplicateOf: "docs/guide.md"},
		{Path: "bin/app", Size: 1 << 20, Category: "junk", Reason: "executable"},
	}
	return tree, extra
}

func TestVerify(t *testing.T) {
	tests := []struct {
		name    string
		corrupt func(t *testing.T, dir string)
		want    []string // "path: problem" substrings, one drift each
	}{
		{"clean", func(*testing.T, string) {}, nil},
		{"missing file", func(t *testing.T, dir string) {
			noErr(t, os.Remove(filepath.Join(dir, "tree", "main.go")))
		}, []string{"tree/main.go: missing"}},
		{"changed content", func(t *testing.T, dir string) {
			noErr(t, os.WriteFile(filepath.Join(dir, "tree", "main.go"), []byte("package main\n\nfunc main() {}\n\n"), 0o644))
		}, []string{`linetokens.index: the counts of "main.go" are of 29 bytes, the staged file has 30`,
			`search.index: "main.go" indexed at 29 bytes, the staged file has 30`, "tree/main.go: content changed"}},
		{"changed line count", func(t *testing.T, dir string) {
			editManifest(t, dir, func(m *Manifest) { m.Files[entryIndex(m, "docs/guide.md")].Lines = 3 })
		}, []string{`linetokens.index: the counts of "docs/guide.md" are of 2 lines, files.json records 3`, "tree/docs/guide.md: 2 lines, files.json records 3"}},
		{"extra file in tree", func(t *testing.T, dir string) {
			noErr(t, os.WriteFile(filepath.Join(dir, "tree", "dir", "planted.sh"), []byte("rm -rf /\n"), 0o644))
		}, []string{"tree/dir/planted.sh: not listed in files.json"}},
		{"duplicate left in tree", func(t *testing.T, dir string) {
			noErr(t, os.WriteFile(filepath.Join(dir, "tree", "docs", "guide-copy.md"), []byte("# Guide\nno final newline"), 0o644))
		}, []string{"tree/docs/guide-copy.md: present, but files.json says it is not staged"}},
		{"symlink in tree", func(t *testing.T, dir string) {
			noErr(t, os.Remove(filepath.Join(dir, "tree", "empty.txt")))
			noErr(t, os.Symlink("/etc/passwd", filepath.Join(dir, "tree", "empty.txt")))
		}, []string{"tree/empty.txt: not a regular file"}},
		{"files.json bad schema", func(t *testing.T, dir string) {
			replaceIn(t, filepath.Join(dir, "files.json"), FilesSchema, "repoprep.files/v0")
		}, []string{`files.json: parse files.json: schema "repoprep.files/v0"`}},
		{"files.json unparsable", func(t *testing.T, dir string) {
			noErr(t, os.WriteFile(filepath.Join(dir, "files.json"), []byte(`{"schema": "repoprep.files/v1", "files": [`), 0o644))
		}, []string{"files.json: parse files.json: unexpected EOF"}},
		{"files.json unsorted", func(t *testing.T, dir string) {
			editManifest(t, dir, func(m *Manifest) { m.Files[0], m.Files[1] = m.Files[1], m.Files[0] })
		}, []string{"files.json: not sorted by path"}},
		{"duplicate of nothing staged", func(t *testing.T, dir string) {
			editManifest(t, dir, func(m *Manifest) { m.Files[entryIndex(m, "docs/guide-copy.md")].DuplicateOf = "bin/app" })
		}, []string{`files.json: "docs/guide-copy.md" is a duplicate of "bin/app", which is not staged`}},
		{"oversize.json bad schema", func(t *testing.T, dir string) {
			replaceIn(t, filepath.Join(dir, "oversize.json"), OversizeSchema, "repoprep.oversize/v2")
		}, []string{`oversize.json: schema "repoprep.oversize/v2"`}},
		{"oversize.json unknown field", func(t *testing.T, dir string) {
			replaceIn(t, filepath.Join(dir, "oversize.json"), `"preview"`, `"previw"`)
		}, []string{`oversize.json: parse: json: unknown field "previw"`}},
		{"oversize.json drops a file", func(t *testing.T, dir string) {
			noErr(t, os.WriteFile(filepath.Join(dir, "oversize.json"), []byte(`{"schema": "repoprep.oversize/v1", "files": []}`), 0o644))
		}, []string{`oversize.json: does not list oversize file "logs/big.txt"`}},
		{"secrets.json unparsable", func(t *testing.T, dir string) {
			noErr(t, os.WriteFile(filepath.Join(dir, "secrets.json"), []byte("{not json"), 0o644))
		}, []string{"secrets.json: parse: invalid character"}},
		{"secrets.json disagrees with files.json", func(t *testing.T, dir string) {
			replaceIn(t, filepath.Join(dir, "secrets.json"), `"path": "secret.env"`, `"path": "main.go"`)
		}, []string{`secrets.json: 0 findings for "secret.env", files.json records 1`, `secrets.json: 1 findings for "main.go", files.json records 0`,
			"secrets.sarif: does not report aws-access-key at main.go:1", "secrets.sarif: reports aws-access-key at secret.env:1"}},
		{"report.json missing", func(t *testing.T, dir string) {
			noErr(t, os.Remove(filepath.Join(dir, "report.json")))
		}, []string{"report.json: missing"}},
		{"search.index damaged", func(t *testing.T, dir string) {
			data, err := os.ReadFile(filepath.Join(dir, SearchIndex))
			noErr(t, err)
			data[70] ^= 1 // in the file list
			noErr(t, os.WriteFile(filepath.Join(dir, SearchIndex), data, 0o644))
		}, []string{"search.index: search index damaged: checksum mismatch"}},
		{"search.index of another snapshot", func(t *testing.T, dir string) {
			editManifest(t, dir, func(m *Manifest) { m.Files[entryIndex(m, "empty.txt")].Staged = false })
			noErr(t, os.Remove(filepath.Join(dir, "tree", "empty.txt")))
		}, []string{"linetokens.index: not built from the staged files files.json lists: it lists 6 files with content digest",
			"search.index: not built from the staged files files.json lists: its content digest is"}},
		{"linetokens.index missing", func(t *testing.T, dir string) {
			noErr(t, os.Remove(filepath.Join(dir, LineTokens)))
		}, []string{"linetokens.index: missing"}},
		{"linetokens.index damaged", func(t *testing.T, dir string) {
			data, err := os.ReadFile(filepath.Join(dir, LineTokens))
			noErr(t, err)
			data[9] ^= 1 // in the first file's counts
			noErr(t, os.WriteFile(filepath.Join(dir, LineTokens), data, 0o644))
		}, []string{"linetokens.index: \"dir/nested.txt\": counts do not match their sum (damaged or edited)"}},
		{"linetokens.index forged, its sums made again", func(t *testing.T, dir string) {
			m, err := ReadManifest(dir)
			noErr(t, err)
			writeTokens(t, dir, m, func(p string, data []byte) []byte {
				if p == "main.go" {
					return addToCount(data, -1)
				}
				return data
			})
		}, []string{`linetokens.index: the counts of "main.go" are not its staged text's: line 1 is 12 bytes and 2 tokens, the text gives 12 bytes and 3 tokens`}},
		{"linetokens.index truncated", func(t *testing.T, dir string) {
			data, err := os.ReadFile(filepath.Join(dir, LineTokens))
			noErr(t, err)
			noErr(t, os.WriteFile(filepath.Join(dir, LineTokens), data[:len(data)-1], 0o644))
		}, []string{"linetokens.index: not a usable token index: not this format"}},
		{"lines.json missing", func(t *testing.T, dir string) {
			noErr(t, os.Remove(filepath.Join(dir, LinesJSON)))
		}, []string{"lines.json: missing"}},
		{"lines.json drops a file", func(t *testing.T, dir string) {
			replaceIn(t, filepath.Join(dir, LinesJSON), `"logs/big.txt"`, `"logs/other.txt"`)
		}, []string{`lines.json: "logs/other.txt": marks do not match their sum (damaged or edited)`}},
		{"lines.json drops a file, its sum made again", func(t *testing.T, dir string) {
			editLines(t, dir, func(lx *lineindex.Index) { lx.Files[0].Path = "logs/other.txt" })
		}, []string{`lines.json: does not list oversize file "logs/big.txt"`, `lines.json: lists "logs/other.txt"`}},
		{"REPO_MAP.md missing", func(t *testing.T, dir string) {
			noErr(t, os.Remove(filepath.Join(dir, "REPO_MAP.md")))
		}, []string{"REPO_MAP.md: missing"}},
		{"REPO_MAP.md a symlink", func(t *testing.T, dir string) {
			noErr(t, os.Remove(filepath.Join(dir, "REPO_MAP.md")))
			noErr(t, os.Symlink("/etc/passwd", filepath.Join(dir, "REPO_MAP.md")))
		}, []string{"REPO_MAP.md: not a regular file"}},
		{"REPO_MAP.md a directory", func(t *testing.T, dir string) {
			noErr(t, os.Remove(filepath.Join(dir, "REPO_MAP.md")))
			noErr(t, os.Mkdir(filepath.Join(dir, "REPO_MAP.md"), 0o755))
		}, []string{"REPO_MAP.md: not a regular file"}},
		{"files.json a FIFO", func(t *testing.T, dir string) {
			noErr(t, os.Remove(filepath.Join(dir, "files.json")))
			testkit.Mkfifo(t, filepath.Join(dir, "files.json"))
		}, []string{"files.json: not a regular file"}},
		{"files.json truncated", func(t *testing.T, dir string) {
			data, err := os.ReadFile(filepath.Join(dir, "files.json"))
			noErr(t, err)
			noErr(t, os.WriteFile(filepath.Join(dir, "files.json"), data[:len(data)/2], 0o644))
		}, []string{"files.json: parse files.json: unexpected EOF"}},
		{"files.json with trailing data", func(t *testing.T, dir string) {
			f, err := os.OpenFile(filepath.Join(dir, "files.json"), os.O_APPEND|os.O_WRONLY, 0)
			noErr(t, err)
			_, err = f.WriteString(`{"schema": "repoprep.files/v1", "files": []}`)
			noErr(t, err)
			noErr(t, f.Close())
		}, []string{"files.json: parse files.json: trailing data"}},
		{"empty directory in tree", func(t *testing.T, dir string) {
			noErr(t, os.MkdirAll(filepath.Join(dir, "tree", "dir", "left", "over"), 0o755))
		}, []string{"tree/dir/left: a directory that holds no staged file", "tree/dir/left/over: a directory that holds no staged file"}},
		{"hard-linked staged file", func(t *testing.T, dir string) {
			noErr(t, os.Link(filepath.Join(dir, "tree", "main.go"), filepath.Join(dir, "main-link.go")))
		}, []string{"tree/main.go: has 2 hard links"}},
		{"stale token count", func(t *testing.T, dir string) {
			editManifest(t, dir, func(m *Manifest) { m.Files[entryIndex(m, "main.go")].Tokens = 3 })
		}, []string{"tree/main.go: 7 o200k tokens, files.json records 3"}},
		{"token count from before a change", func(t *testing.T, dir string) {
			editManifest(t, dir, func(m *Manifest) { m.Files[entryIndex(m, "logs/big.txt")].Tokens *= 2 })
		}, []string{"tree/logs/big.txt: 40 o200k tokens, files.json records 80"}},
		{"oversize preview differs from the staged file", func(t *testing.T, dir string) {
			replaceIn(t, filepath.Join(dir, "oversize.json"), `"preview": "line\nline\nline\n"`, `"preview": "line\nLINE\nline\n"`)
		}, []string{`oversize.json: the preview of "logs/big.txt" is not the staged file's first 3 lines`}},
		{"oversize size differs", func(t *testing.T, dir string) {
			replaceIn(t, filepath.Join(dir, "oversize.json"), `"size": 100`, `"size": 99`)
		}, []string{`oversize.json: "logs/big.txt" has size 99`}},
		{"secrets.sarif drops a finding", func(t *testing.T, dir string) {
			noErr(t, os.WriteFile(filepath.Join(dir, "secrets.sarif"), []byte(`{"version": "2.1.0", "runs": [{"results": []}]}`), 0o644))
		}, []string{"secrets.sarif: does not report aws-access-key at secret.env:1"}},
		{"secrets.sarif on another line", func(t *testing.T, dir string) {
			replaceIn(t, filepath.Join(dir, "secrets.sarif"), `"startLine": 1`, `"startLine": 7`)
		}, []string{"secrets.sarif: does not report aws-access-key at secret.env:1", "secrets.sarif: reports aws-access-key at secret.env:7"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			tree, extra := verifyFixture()
			m := writeSnapshot(t, dir, tree, extra)
			m.Files[entryIndex(m, "logs/big.txt")].Oversize = true
			editManifest(t, dir, func(mm *Manifest) { *mm = *m })
			rewriteOversize(t, dir, m, tree)
			tt.corrupt(t, dir)
			drifts, err := Verify(context.Background(), dir)
			if err != nil {
				t.Fatal(err)
			}
			if len(drifts) != len(tt.want) {
				t.Fatalf("got %d drifts %q, want %d %q", len(drifts), drifts, len(tt.want), tt.want)
			}
			for i, want := range tt.want {
				if got := drifts[i].String(); !strings.Contains(got, want) {
					t.Errorf("drift %d = %q, want it to contain %q", i, got, want)
				}
			}
		})
	}
}

func TestVerifyNoSnapshot(t *testing.T) {
	if _, err := Verify(context.Background(), filepath.Join(t.TempDir(), "absent")); err == nil {
		t.Error("Verify on a missing directory succeeded")
	}
	// A directory without files.json (a source tree, an empty dir) is not
	// a snapshot: one error in the user's terms, not a drift per file.
	if _, err := Verify(context.Background(), t.TempDir()); !errors.Is(err, ErrNotSnapshot) {
		t.Errorf("Verify on an empty directory = %v, want ErrNotSnapshot", err)
	}
	dir := t.TempDir()
	noErr(t, os.WriteFile(filepath.Join(dir, "files.json"), []byte(`{"schema": "repoprep.files/v1", "files": [], "pruned": []}`), 0o644))
	drifts, err := Verify(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"oversize.json", "secrets.json", "secrets.sarif", "report.json", "REPO_MAP.md", "search.index", "lines.json", "linetokens.index", "tree"} {
		if !slices.ContainsFunc(drifts, func(d Drift) bool { return d.Path == name }) {
			t.Errorf("a snapshot with files.json alone: no drift for %s in %q", name, drifts)
		}
	}
}

func TestVerifyCancelled(t *testing.T) {
	dir := t.TempDir()
	tree, extra := verifyFixture()
	writeSnapshot(t, dir, tree, extra)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Verify(ctx, dir); err == nil {
		t.Error("Verify with a cancelled context succeeded")
	}
}

func noErr(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func entryIndex(m *Manifest, p string) int {
	for i := range m.Files {
		if m.Files[i].Path == p {
			return i
		}
	}
	panic("no entry " + p)
}

func editManifest(t *testing.T, dir string, edit func(*Manifest)) {
	t.Helper()
	m, err := ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	edit(m)
	var b bytes.Buffer
	noErr(t, EncodeJSON(&b, m))
	noErr(t, os.WriteFile(filepath.Join(dir, "files.json"), b.Bytes(), 0o644))
}

func rewriteOversize(t *testing.T, dir string, m *Manifest, tree fstest.MapFS) {
	t.Helper()
	var b bytes.Buffer
	noErr(t, WriteOversize(&b, m, tree, 3))
	noErr(t, os.WriteFile(filepath.Join(dir, "oversize.json"), b.Bytes(), 0o644))
	rewriteIndexes(t, dir, m)
}

// rewriteIndexes writes search.index, lines.json and linetokens.index for
// m's staged files as a run does: from the staged copies, in path order.
func rewriteIndexes(t testing.TB, dir string, m *Manifest) {
	t.Helper()
	for _, name := range []string{SearchIndex, LinesJSON} {
		os.Remove(filepath.Join(dir, name))
	}
	tree, err := os.OpenRoot(filepath.Join(dir, TreeDir))
	noErr(t, err)
	defer tree.Close()
	var files []trigram.File
	var lx lineindex.Index
	for _, e := range m.Files {
		if !e.Staged {
			continue
		}
		fi, err := tree.Stat(e.Path)
		noErr(t, err)
		sum, err := DecodeHash(e.Hash)
		noErr(t, err)
		files = append(files, trigram.File{Path: e.Path, Hash: sum, Size: fi.Size(), Open: func() (io.ReadCloser, error) { return tree.Open(e.Path) }})
		if e.Oversize {
			f, err := tree.Open(e.Path)
			noErr(t, err)
			lf, err := lineindex.Scan(context.Background(), f)
			f.Close()
			noErr(t, err)
			lf.Path, lf.Hash = e.Path, e.Hash
			lx.Files = append(lx.Files, lf)
		}
	}
	noErr(t, trigram.Build(context.Background(), files, filepath.Join(dir, SearchIndex), dir))
	noErr(t, WriteFile(filepath.Join(dir, LinesJSON), func(w *bufio.Writer) error { return lx.Encode(w) }))
	writeTokens(t, dir, m, nil)
}

// editLines rewrites lines.json with edit applied, each file's sum made
// again (what a forger would do).
func editLines(t *testing.T, dir string, edit func(*lineindex.Index)) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, LinesJSON))
	noErr(t, err)
	lx, err := lineindex.Parse(data)
	noErr(t, err)
	edit(lx)
	noErr(t, os.Remove(filepath.Join(dir, LinesJSON)))
	noErr(t, WriteFile(filepath.Join(dir, LinesJSON), func(w *bufio.Writer) error { return lx.Encode(w) }))
}

func replaceIn(t *testing.T, name, old, new string) {
	t.Helper()
	data, err := os.ReadFile(name)
	noErr(t, err)
	if !bytes.Contains(data, []byte(old)) {
		t.Fatalf("%s does not contain %q", name, old)
	}
	noErr(t, os.WriteFile(name, bytes.Replace(data, []byte(old), []byte(new), 1), 0o644))
}

// benchSnapshot writes files of 16 KiB, 32 MiB in all, as a snapshot.
func benchSnapshot(b *testing.B) (string, int64) {
	dir := b.TempDir()
	tree := fstest.MapFS{}
	var total int64
	// Lines of code, not one repeated byte: the token count, part of
	// verify, is much slower on long runs of one character than on text.
	var code bytes.Buffer
	for i := range 256 {
		fmt.Fprintf(&code, "\tv%03d := compute(a, b, %4d) // step %4d of the loop.....\n", i, i*7, i)
	}
	for i := range 2048 {
		data := bytes.Clone(code.Bytes())
		copy(data, fmt.Sprintf("file %d", i))
		tree[fmt.Sprintf("d%02d/f%04d.txt", i%32, i)] = &fstest.MapFile{Data: data}
		total += int64(len(data))
	}
	writeSnapshot(b, dir, tree, nil)
	return dir, total
}

func BenchmarkVerify(b *testing.B) {
	dir, total := benchSnapshot(b)
	b.SetBytes(total)
	for b.Loop() {
		drifts, err := Verify(context.Background(), dir)
		if err != nil || len(drifts) != 1 { // secrets.json names secret.env, absent here
			b.Fatal(drifts, err)
		}
	}
}

// BenchmarkHashPlain hashes the same files one after another with no
// checks, the floor Verify is measured against.
func BenchmarkHashPlain(b *testing.B) {
	dir, total := benchSnapshot(b)
	var names []string
	must := func(err error) {
		if err != nil {
			b.Fatal(err)
		}
	}
	entries, err := os.ReadDir(filepath.Join(dir, "tree"))
	must(err)
	for _, d := range entries {
		files, err := os.ReadDir(filepath.Join(dir, "tree", d.Name()))
		must(err)
		for _, f := range files {
			names = append(names, filepath.Join(dir, "tree", d.Name(), f.Name()))
		}
	}
	b.SetBytes(total)
	buf := make([]byte, 64<<10)
	for b.Loop() {
		for _, name := range names {
			f, err := os.Open(name)
			must(err)
			h := blake3.New()
			_, err = io.CopyBuffer(h, f, buf)
			must(err)
			f.Close()
			h.Sum(nil)
		}
	}
}
