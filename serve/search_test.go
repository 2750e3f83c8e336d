package serve

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func searchText(t testing.TB, srv *Server, args SearchArgs) (string, SearchResult, error) {
	t.Helper()
	ans, err := srv.call(context.Background(), "test", "search", nil, func(ctx context.Context, sn *view) (answer, error) {
		return srv.search(ctx, sn, args)
	})
	if err != nil {
		return "", SearchResult{}, err
	}
	return ans.text, ans.out.(SearchResult), nil
}

// A match past the display cut of a line is found, and shown where it is.
func TestSearchFindsMatchesPastTheCut(t *testing.T) {
	long := strings.Repeat("x", 2500) + "NEEDLE" + strings.Repeat("y", 50) + "\n"
	huge := strings.Repeat("z", 200<<10) + "HAYSTACK" + strings.Repeat("z", 10) + "\nnext\n" // streamed, not held
	s := snap{files: map[string]string{"long.txt": "first\n" + long, "huge.txt": huge}}
	srv, _ := newTestServer(t, &s, Options{})
	text, res, err := searchText(t, srv, SearchArgs{Pattern: "NEEDLE"})
	if err != nil {
		t.Fatal(err)
	}
	if res.TotalMatches != 1 || !strings.Contains(text, "long.txt:2:[…2400 characters] "+strings.Repeat("x", 100)+"NEEDLE") {
		t.Errorf("NEEDLE at character 2500: %+v\n%.300s", res, text)
	}
	text, res, err = searchText(t, srv, SearchArgs{Pattern: "HAYSTACK", ContextLines: 1})
	if err != nil {
		t.Fatal(err)
	}
	if res.TotalMatches != 1 || !strings.Contains(text, "more characters; match at byte 204800]") || !strings.Contains(text, "huge.txt-2-next") {
		t.Errorf("HAYSTACK at byte 204800: %+v\n%.300s…", res, text)
	}
	if _, res, _ = searchText(t, srv, SearchArgs{Pattern: "y{50}$"}); res.TotalMatches != 1 {
		t.Errorf("anchored match at the end of a long line: %+v", res)
	}
}

// A staged file that is gone, swapped for a symlink or changed since
// publication is an error line; the other files are still searched.
func TestSearchTamperedFileIsAnErrorLine(t *testing.T) {
	for _, noIndex := range []bool{false, true} {
		s := baseSnap()
		s.noIndex = noIndex
		srv, out := newTestServer(t, &s, Options{})
		tree := filepath.Join(out, "tree")
		os.Remove(filepath.Join(tree, "src", "app", "util.go"))
		os.Remove(filepath.Join(tree, "docs", "guide.md"))
		os.Symlink("/etc/passwd", filepath.Join(tree, "docs", "guide.md"))
		os.WriteFile(filepath.Join(tree, "src", "app", "main.go"), []byte("package main // TODO: changed after publication, longer\n"), 0o644)
		text, res, err := searchText(t, srv, SearchArgs{Pattern: "TODO|main"})
		if err != nil {
			t.Fatalf("noIndex %v: %v", noIndex, err)
		}
		for _, want := range []string{
			`[error: "src/app/util.go" is listed in files.json but missing from the snapshot's tree]`,
			`[error: path refused: "docs/guide.md" is not a regular file in the snapshot (L---------)]`,
			"src/app/main_test.go:1:package main",
		} {
			if !strings.Contains(text, want) {
				t.Errorf("noIndex %v: answer lacks %q:\n%s", noIndex, want, text)
			}
		}
		changed := `[error: path refused: "src/app/main.go" changed since publication`
		if !noIndex && (!strings.Contains(text, changed) || res.Failed != 3) {
			t.Errorf("with the index, a file whose size changed is an error line: failed %d\n%s", res.Failed, text)
		}
		if strings.Contains(text, "root:") {
			t.Fatal("followed the planted symlink")
		}
	}
}

// A catastrophic pattern over a 4 MB file ends by the deadline with a clear
// timeout, whether the file is one line or many.
func TestSearchEndsByItsDeadline(t *testing.T) {
	if testing.Short() {
		t.Skip("takes the 3 s timeout")
	}
	// Runs of 999 letters: every position starts a thread that lives for
	// hundreds of letters and never reaches 1000 (41 s at 82b8206).
	run := strings.Repeat("abcdefghi", 111)
	s := snap{files: map[string]string{
		"one-line.txt":   strings.Repeat(run+" ", 4<<20/1000) + "\n",
		"many-lines.txt": strings.Repeat(run+" "+run[:500]+"\n", 4<<20/1500),
	}}
	srv, _ := newTestServer(t, &s, Options{RequestTimeout: 3 * time.Second})
	for _, glob := range []string{"one-line.txt", "many-lines.txt"} {
		start := time.Now()
		_, _, err := searchText(t, srv, SearchArgs{Pattern: `\pL{1000}`, PathGlob: glob})
		took := time.Since(start)
		if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "search ran out of time") {
			t.Errorf("%s: %v, want a timeout", glob, err)
		}
		t.Logf("%s: %v after %v", glob, err, took)
		if took > 5*time.Second {
			t.Errorf("%s: answered after %v with a 3 s timeout", glob, took)
		}
	}
}

// The index only skips files that cannot match: every answer is the same
// with and without it, over a tree nobody here wrote, and most patterns
// find something there (equal empty answers would prove little).
//
// The whole pass takes net/http's first 60 Go files (1.1 MB). Under -short
// (make test's race pass) it takes the first 30 (390 kB), where every
// pattern meant to match still does.
func TestSearchSameWithAndWithoutIndex(t *testing.T) {
	limit := 60
	if testing.Short() {
		limit = 30
	}
	files := map[string]string{}
	root := "/usr/local/go/src/net/http"
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || len(files) >= limit || !strings.HasSuffix(p, ".go") {
			return nil
		}
		data, err := os.ReadFile(p)
		if err == nil {
			rel, _ := filepath.Rel(root, p)
			files[filepath.ToSlash(rel)] = string(data)
		}
		return nil
	})
	if len(files) == 0 {
		t.Skip("no Go sources at " + root)
	}
	with, _ := newTestServer(t, &snap{files: files}, Options{})
	without, _ := newTestServer(t, &snap{files: files, noIndex: true}, Options{})
	if with.cur.trigrams == nil || without.cur.trigrams != nil {
		t.Fatal("index not loaded as set up")
	}
	patterns := []SearchArgs{
		{Pattern: "ServeHTTP"}, {Pattern: `func \(\w+ \*Request\) \w+`}, {Pattern: "(?i)content-type"},
		{Pattern: `Err\w+ = errors\.New`, ContextLines: 2}, {Pattern: "no such identifier anywhere"}, {Pattern: `^\}$`, PathGlob: "**/*_test.go"},
		{Pattern: `http2?\.Status\w+`, MaxResults: 3}, {Pattern: `"[^"]{60,}"`}, {Pattern: "ü"},
	}
	matched := 0
	for _, args := range patterns {
		a, ra, errA := searchText(t, with, args)
		b, rb, errB := searchText(t, without, args)
		if a != b || ra.TotalMatches != rb.TotalMatches || (errA == nil) != (errB == nil) {
			t.Errorf("%+v: with index %d matches, without %d\n%.400s\n---\n%.400s", args, ra.TotalMatches, rb.TotalMatches, a, b)
		}
		if ra.TotalMatches > 0 {
			matched++
		}
	}
	if matched < len(patterns)/2 {
		t.Errorf("only %d of %d patterns match in %d files: the answers compared are mostly empty", matched, len(patterns), len(files))
	}
}

// A ranged read of an oversize file seeks by its line marks: the bytes
// before the mark are never read, and the line count comes from the index.
func TestOversizeRangedReadSeeks(t *testing.T) {
	var b strings.Builder
	for i := 1; b.Len() < 1<<20; i++ {
		fmt.Fprintf(&b, "line %d of the dump\n", i)
	}
	content := b.String()
	s := snap{files: map[string]string{"dump.sql": content}, oversize: []string{"dump.sql"}}
	srv, out := newTestServer(t, &s, Options{})
	plain, _ := newTestServer(t, &snap{files: s.files, oversize: s.oversize, noIndex: true}, Options{})
	for _, r := range [][]int{{1, 3}, {20000, 20010}, {40000, 40100}, {49999, 60000}, {90000, 90005}} {
		args := ReadFileArgs{Files: []FileRequest{{Path: "dump.sql", Ranges: [][]int{r}}}}
		a, _, err := read(t, srv, args)
		if err != nil {
			t.Fatal(err)
		}
		want, _, _ := read(t, plain, args)
		if a != want {
			t.Errorf("range %v: with marks\n%.300s\nwithout\n%.300s", r, a, want)
		}
	}
	// Overwrite the first 512 KiB with other text of the same size: a read
	// that seeks past it still shows the original lines.
	name := filepath.Join(out, "tree", "dump.sql")
	data := []byte(content)
	copy(data, strings.Repeat("#", 512<<10))
	os.WriteFile(name, data, 0o644)
	text, _, err := read(t, srv, ReadFileArgs{Files: []FileRequest{{Path: "dump.sql", Ranges: [][]int{{45000, 45001}}}}})
	if err != nil || !strings.Contains(text, "| line 45000 of the dump\n") || !strings.Contains(text, "total: ") {
		t.Errorf("read past the overwritten head: %v\n%s", err, text)
	}
}

// TestSearchHintsFitTheSnapshot: the advice in a search's last line is
// about this snapshot and this pattern. Narrowing suggests a path_glob of
// the snapshot's own main language and where its sources live (never
// src/**/*.go in a Python repository); a pattern that already ignores case
// is not told to prefix (?i), and one without letters is told nothing about
// case.
func TestSearchHintsFitTheSnapshot(t *testing.T) {
	python := snap{files: map[string]string{
		"src/click/core.py":   "def main():\n    return 0\n\ndef helper():\n    pass\n",
		"src/click/utils.py":  "def echo(msg):\n    print(msg)\n",
		"tests/test_core.py":  "def test_main():\n    assert True\n",
		"README.md":           "# click\n\ndef in prose\n",
		"docs/usage.md":       "Call def main.\n",
		"scripts/release.sh":  "echo def\n",
		"src/click/_compat.c": "int def;\n",
		"docs/a.md":           "def\n", // more Markdown than Python: only the source files decide
		"docs/b.md":           "def\n",
		"docs/c.md":           "def\n",
	}}
	srv, _ := newTestServer(t, &python, Options{})
	// entryFor marks only .go as source: say what files.json would, and
	// have the example glob found again.
	srv.cur.glob = exampleGlob{}
	for _, e := range srv.cur.readable {
		switch path.Ext(e.Path) {
		case ".py":
			e.Category, e.Language = "source", "Python"
		case ".c":
			e.Category, e.Language = "source", "C"
		case ".sh":
			e.Category, e.Language = "source", "Shell"
		}
	}
	text, _, err := searchText(t, srv, SearchArgs{Pattern: "def", MaxResults: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text, `add path_glob (e.g. "src/**/*.py")`) || strings.Contains(text, ".go") {
		t.Errorf("narrowing hint in a Python snapshot:\n%s", text)
	}

	for _, e := range srv.cur.readable {
		e.Category = "text" // no source at all: the most common extension of any file
	}
	srv.cur.glob = exampleGlob{}
	text, _, _ = searchText(t, srv, SearchArgs{Pattern: "def", MaxResults: 1})
	if !strings.Contains(text, `add path_glob (e.g. "docs/**/*.md")`) {
		t.Errorf("narrowing hint in a snapshot without source:\n%s", text)
	}

	// baseSnap is Go under src/: the hint stays what it was there.
	goSrv, _ := newTestServer(t, nil, Options{})
	text, _, _ = searchText(t, goSrv, SearchArgs{Pattern: "of big", MaxResults: 3})
	if !strings.Contains(text, `add path_glob (e.g. "src/**/*.go")`) {
		t.Errorf("narrowing hint in a Go snapshot:\n%s", text)
	}

	for _, tt := range []struct {
		pattern   string
		want, not string
	}{
		{"no such thing", "case-sensitive (prefix (?i) to ignore case)", ""},
		{"(?i)no such thing", "case-insensitive", "prefix (?i)"},
		{"(?is)no.such thing", "case-insensitive", "prefix (?i)"},
		{"(?i:no such) thing", "", "prefix (?i)"},
		{`\d{40}`, "RE2 syntax", "case"},
	} {
		text, _, err := searchText(t, srv, SearchArgs{Pattern: tt.pattern})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(text, "no match") || !strings.Contains(text, tt.want) || (tt.not != "" && strings.Contains(text, tt.not)) {
			t.Errorf("%s: want %q and not %q in\n%s", tt.pattern, tt.want, tt.not, text)
		}
	}
}
