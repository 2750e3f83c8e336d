package pipeline

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/repoprep/repoprep/internal/lineindex"
	"github.com/repoprep/repoprep/serve"
	"github.com/repoprep/repoprep/snapshot"
)

// The indexes a run writes are bound to the texts they index: an index
// from other contents, or edited, is refused by every reader of OUT. Each
// test plants one in a published snapshot, then checks the three readers:
// verify fails naming the file, serve answers as if it were missing
// (right), and the next refresh publishes what --full publishes.

// TestStaleSearchIndexIsRefused: a search.index copied from another
// snapshot whose files have the same names and sizes lists the right paths
// with the right sizes; only its content digest tells it is of other
// texts. Trusted, it made search answer "no match" for a word all three
// files hold.
func TestStaleSearchIndexIsRefused(t *testing.T) {
	noRacyWindow(t)
	src, other := filepath.Join(t.TempDir(), "repo"), filepath.Join(t.TempDir(), "other")
	writeFiles(t, src, map[string]string{"a.txt": "alpha one\n", "b.txt": "alpha two\n", "c.txt": "alpha six\n"})
	writeFiles(t, other, map[string]string{"a.txt": "gamma one\n", "b.txt": "gamma two\n", "c.txt": "gamma six\n"})
	out, otherOut := filepath.Join(t.TempDir(), "out"), filepath.Join(t.TempDir(), "out")
	runOpts(t, refreshOpts(src, out))
	runOpts(t, refreshOpts(other, otherOut))
	plant(t, filepath.Join(otherOut, snapshot.SearchIndex), filepath.Join(out, snapshot.SearchIndex))

	wantDrift(t, out, snapshot.SearchIndex, "not built from the staged files")
	res := search(t, out, "alpha")
	if res.TotalMatches != 3 || res.Files != 3 {
		t.Errorf("search alpha: %d matches in %d files (of %d searched), want 3 in 3", res.TotalMatches, res.Files, res.FilesSearch)
	}
	refreshEqualsFull(t, src, out)
}

// TestShiftedLineMarksAreRefused: lines.json with every mark's line moved
// ten lines on (still ascending, in range, sizes unchanged) passed every
// check and made a ranged read label line 49,990 as 50,000. Its sum no
// longer matches.
func TestShiftedLineMarksAreRefused(t *testing.T) {
	src, out, lx := bigSnapshot(t)
	name := filepath.Join(out, snapshot.LinesJSON)
	shifted, err := json.Marshal(lx) // the sum as it was
	if err != nil {
		t.Fatal(err)
	}
	writeOver(t, name, append(shifted, '\n'))

	wantDrift(t, out, snapshot.LinesJSON, "marks do not match their sum")
	srv, err := serve.New(out, serve.Options{})
	if err != nil {
		t.Fatal(err)
	}
	text, _, err := srv.ReadFile(t.Context(), serve.ReadFileArgs{Files: []serve.FileRequest{{Path: "big.txt", Ranges: [][]int{{50000, 50002}}}}})
	srv.Close()
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{50000, 50001, 50002} {
		if want := fmt.Sprintf("%d | line %d\n", n, n); !strings.Contains(text, want) {
			t.Errorf("read big.txt:50000-50002 lacks %q:\n%s", want, text)
		}
	}
	refreshEqualsFull(t, src, out)
}

// TestResummedLineMarksAreNotCarried: the sums in lines.json are unkeyed,
// so whoever edits the marks can recompute them. verify recounts the marks
// from the staged text; a refresh must not carry them forward either: it
// takes an index only when it is the one the MAC'd state describes.
func TestResummedLineMarksAreNotCarried(t *testing.T) {
	src, out, lx := bigSnapshot(t)
	name := filepath.Join(out, snapshot.LinesJSON)
	var resummed bytes.Buffer
	if err := lx.Encode(&resummed); err != nil { // sums recomputed
		t.Fatal(err)
	}
	writeOver(t, name, resummed.Bytes())
	if _, err := lineindex.Parse(resummed.Bytes()); err != nil {
		t.Fatalf("the forged lines.json must pass its own checks: %v", err)
	}
	wantDrift(t, out, snapshot.LinesJSON, "")
	refreshEqualsFull(t, src, out)
}

// bigSnapshot publishes a tree whose big.txt (60,000 short lines: 10
// marks, line 50,000 past the 8th) is oversize, and returns its lines.json
// parsed with every mark but the first moved ten lines on (still
// ascending, in range, sizes unchanged).
func bigSnapshot(t *testing.T) (src, out string, shifted *lineindex.Index) {
	t.Helper()
	noRacyWindow(t)
	src = filepath.Join(t.TempDir(), "repo")
	var big strings.Builder
	for i := 1; i <= 60000; i++ {
		fmt.Fprintf(&big, "line %d\n", i)
	}
	writeFiles(t, src, map[string]string{"big.txt": big.String(), "small.txt": "small\n"})
	out = filepath.Join(t.TempDir(), "out")
	runOpts(t, refreshOpts(src, out))
	data, err := os.ReadFile(filepath.Join(out, snapshot.LinesJSON))
	if err != nil {
		t.Fatal(err)
	}
	lx, err := lineindex.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(lx.Files) != 1 || len(lx.Files[0].Marks) < 5 {
		t.Fatalf("lines.json lists %d files; want big.txt with marks", len(lx.Files))
	}
	for i := 1; i < len(lx.Files[0].Marks); i++ {
		lx.Files[0].Marks[i][0] += 10
	}
	return src, out, lx
}

// plant replaces the file at to with the one at from.
func plant(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	writeOver(t, to, data)
}

// writeOver replaces the file name with one holding data.
func writeOver(t *testing.T, name string, data []byte) {
	t.Helper()
	if err := os.Remove(name); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// wantDrift fails unless verify finds the snapshot at out drifted, with
// one drift on name saying want (and so `repoprep verify` exits non-zero).
func wantDrift(t *testing.T, out, name, want string) {
	t.Helper()
	drifts, err := snapshot.Verify(t.Context(), out)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, d := range drifts {
		found = found || d.Path == name && strings.Contains(d.Problem, want)
	}
	if !found {
		t.Errorf("verify: %v; want a drift of %s saying %q", drifts, name, want)
	}
}

// search runs serve's search tool over its JSON API.
func search(t *testing.T, out, pattern string) serve.SearchResult {
	t.Helper()
	srv, err := serve.New(out, serve.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	body, _ := json.Marshal(serve.SearchArgs{Pattern: pattern})
	req := httptest.NewRequest(http.MethodPost, "/v1/search", strings.NewReader(string(body)))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	srv.Handler().ServeHTTP(rec, req)
	var res serve.SearchResult
	if err := json.Unmarshal(rec.Body.Bytes(), &res); rec.Code != http.StatusOK || err != nil {
		t.Fatalf("search %q: %d %s (%v)", pattern, rec.Code, rec.Body, err)
	}
	return res
}

// refreshEqualsFull refreshes the snapshot at out from src and checks it
// publishes what a full run does, and that verify finds nothing.
func refreshEqualsFull(t *testing.T, src, out string) {
	t.Helper()
	runOpts(t, refreshOpts(src, out))
	full := refreshOpts(src, filepath.Join(t.TempDir(), "full"))
	full.Full = true
	runOpts(t, full)
	sameSnapshot(t, out, full.OutDir)
	if drifts, err := snapshot.Verify(t.Context(), out); err != nil || len(drifts) > 0 {
		t.Errorf("verify after the refresh: %v, %v", drifts, err)
	}
}
