package serve

import (
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"io"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/zeebo/blake3"

	"github.com/repoprep/repoprep/internal/lineindex"
	"github.com/repoprep/repoprep/internal/tokens"
	"github.com/repoprep/repoprep/internal/trigram"
	"github.com/repoprep/repoprep/snapshot"
)

// snap describes a snapshot to publish for a test.
type snap struct {
	files    map[string]string // staged path -> content
	dups     map[string]string // duplicate path -> canonical staged path
	oversize []string          // staged paths flagged oversize
	junk     []string          // listed, not staged
	repoMap  string
	noIndex  bool           // publish without search.index, lines.json and linetokens.index, as older runs did
	noTokens bool           // publish without linetokens.index: reads count their tokens
	masked   map[string]int // staged path -> spans its text masks
}

// publish writes s as a complete snapshot directory at out (which must not
// exist yet): files.json through snapshot.EncodeJSON, REPO_MAP.md, tree/.
func publish(t testing.TB, out string, s snap) {
	t.Helper()
	var m snapshot.Manifest
	m.Schema = snapshot.FilesSchema
	m.Pruned = []snapshot.Pruned{}
	for p, content := range s.files {
		full := filepath.Join(out, "tree", filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		e := entryFor(p, content, slices.Contains(s.oversize, p))
		e.Masked = s.masked[p]
		m.Files = append(m.Files, e)
	}
	if err := os.MkdirAll(filepath.Join(out, "tree"), 0o755); err != nil {
		t.Fatal(err)
	}
	for p, canon := range s.dups {
		e := entryFor(p, s.files[canon], false)
		e.Staged, e.DuplicateOf = false, canon
		m.Files = append(m.Files, e)
	}
	for _, p := range s.junk {
		m.Files = append(m.Files, snapshot.Entry{Path: p, Category: "junk", Reason: "symlink", LinkTarget: "/etc/passwd"})
	}
	slices.SortFunc(m.Files, func(a, b snapshot.Entry) int { return strings.Compare(a.Path, b.Path) })
	var buf bytes.Buffer
	if err := snapshot.EncodeJSON(&buf, &m); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, "files.json"), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	rm := s.repoMap
	if rm == "" {
		rm = "# Repository map\n\nsrc/ — Go\n"
	}
	if err := os.WriteFile(filepath.Join(out, "REPO_MAP.md"), []byte(rm), 0o644); err != nil {
		t.Fatal(err)
	}
	if !s.noIndex {
		writeTestIndexes(t, out, s)
	}
}

// writeTestIndexes writes search.index, lines.json and linetokens.index
// for s, as pipeline.writeIndexes does for a run.
func writeTestIndexes(t testing.TB, out string, s snap) {
	t.Helper()
	staged := slices.Sorted(maps.Keys(s.files))
	files := make([]trigram.File, len(staged))
	for i, p := range staged {
		files[i] = trigram.File{Path: p, Hash: blake3.Sum256([]byte(s.files[p])), Open: func() (io.ReadCloser, error) { return os.Open(filepath.Join(out, "tree", filepath.FromSlash(p))) }}
	}
	if err := trigram.Build(context.Background(), files, filepath.Join(out, snapshot.SearchIndex), out); err != nil {
		t.Fatal(err)
	}
	var ix lineindex.Index
	for _, p := range staged {
		if !slices.Contains(s.oversize, p) {
			continue
		}
		lf, err := lineindex.Scan(context.Background(), strings.NewReader(s.files[p]))
		if err != nil {
			t.Fatal(err)
		}
		lf.Path, lf.Hash = p, contentHash(s.files[p])
		ix.Files = append(ix.Files, lf)
	}
	var buf bytes.Buffer
	if err := ix.Encode(&buf); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, snapshot.LinesJSON), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if !s.noTokens {
		writeTestTokens(t, out, s)
	}
}

// contentHash is content's hash as files.json records it, which the
// indexes are bound to.
func contentHash(content string) string {
	sum := blake3.Sum256([]byte(content))
	return "blake3:" + hex.EncodeToString(sum[:])
}

func entryFor(p, content string, oversize bool) snapshot.Entry {
	cat := "text"
	if path.Ext(p) == ".go" {
		cat = "source"
	}
	return snapshot.Entry{
		Path: p, Size: int64(len(content)), Category: cat, Mime: "text/plain; charset=utf-8",
		Encoding: "utf-8", Lines: countLines(content), Tokens: testTokens(content),
		Test:   strings.Contains(p, "_test") || strings.HasPrefix(p, "testdata/"),
		Staged: true, Oversize: oversize, Hash: contentHash(content),
	}
}

// testTokens counts small contents exactly and estimates big ones, which
// would cost seconds to count and which no test lists.
func testTokens(s string) int {
	if len(s) > 16<<10 {
		return len(s) / 4
	}
	return tokens.Count(s)
}

func countLines(s string) int {
	if s == "" {
		return 0
	}
	n := strings.Count(s, "\n")
	if !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}

// numbered makes n lines "line i of tag".
func numbered(tag string, n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %d of %s\n", i, tag)
	}
	return b.String()
}

// baseSnap is the snapshot most tests read.
func baseSnap() snap {
	return snap{
		files: map[string]string{
			"src/app/main.go":      "package main\n\nfunc main() {\n\tprintln(\"hi\")\n}\n",
			"src/app/util.go":      "package main\n\n// TODO: tidy\nfunc helper() int { return 42 }\n",
			"src/app/main_test.go": "package main\n\nimport \"testing\"\n\nfunc TestMain(t *testing.T) {}\n",
			"docs/guide.md":        "# Guide\n\nRun it.\nTODO: write more\n",
			"big.txt":              numbered("big", 812),
			"dump.sql":             numbered("dump", 3000),
			"empty.txt":            "",
			"nonl.txt":             "one\ntwo",
			"long.txt":             strings.Repeat("x", 2500) + "\nshort\n",
			"cjk.md":               strings.Repeat("中文文本，用于测试。", 300) + "\n",
			"a b/spaced name.txt":  "spaces are fine\n",
		},
		dups:     map[string]string{"vendor/copy.go": "src/app/util.go"},
		oversize: []string{"dump.sql"},
		junk:     []string{"link-out"},
	}
}

// newTestServer publishes baseSnap (or s) under a temp OUT and opens a Server.
func newTestServer(t testing.TB, s *snap, opts Options) (*Server, string) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "out")
	if s != nil {
		publish(t, out, *s)
	} else {
		publishBase(t, out)
	}
	srv, err := New(out, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv, out
}

// read runs read_file directly, as both transports do.
func read(t testing.TB, srv *Server, args ReadFileArgs) (string, ReadFileResult, error) {
	t.Helper()
	ans, err := srv.call(context.Background(), "test", "read_file", nil, func(ctx context.Context, sn *view) (answer, error) {
		return srv.readFile(ctx, sn, args)
	})
	if err != nil {
		return "", ReadFileResult{}, err
	}
	return ans.text, ans.out.(ReadFileResult), nil
}

func TestLoadSnapshot(t *testing.T) {
	srv, _ := newTestServer(t, nil, Options{})
	sn, err := srv.acquire()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.release(sn)
	if got := len(sn.readable); got != 12 {
		t.Errorf("readable = %d, want 11 staged + 1 duplicate", got)
	}
	if sn.canonical(sn.byPath["vendor/copy.go"]) != "src/app/util.go" {
		t.Error("duplicate does not resolve to its canonical copy")
	}
	if sn.canonical(sn.byPath["link-out"]) != "" {
		t.Error("junk entry is readable")
	}
}

func TestNewFailsWithoutSnapshot(t *testing.T) {
	if _, err := New(filepath.Join(t.TempDir(), "missing"), Options{}); err == nil {
		t.Fatal("New on a missing OUT succeeded")
	}
	bad := t.TempDir()
	os.WriteFile(filepath.Join(bad, "files.json"), []byte(`{"schema":"other"}`), 0o644)
	if _, err := New(bad, Options{}); err == nil {
		t.Fatal("New with a foreign files.json succeeded")
	}
}
