package stages

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/repoprep/repoprep/internal/tokens"
	"github.com/repoprep/repoprep/snapshot"
)

// A count Normalize leaves for later is taken from the worker's buffer if
// the tables are ready when Process ends, or else from the staged copy
// once they are; either way it is the count of the whole text.
func TestKeepForCount(t *testing.T) {
	ready := false
	e := &Env{TreeDir: t.TempDir(), TokensReady: func() bool { return ready }}
	texts := map[string]string{
		"a.go":       "package main\n\nfunc main() {}\n",
		"b.txt":      strings.Repeat("word ", 30),
		"c.go":       "// 注释 comment\nx := 1\n\n\n/* y */\r\n",
		"big/s.go":   strings.Repeat("func (s *Server) Serve() error { return nil }\n", 3000),
		"d.md":       strings.Repeat("ab", 10),
		"ready.json": `{"ready": true}` + "\n",
	}
	var recs []*Record
	for _, name := range []string{"a.go", "b.txt", "c.go", "big/s.go", "d.md", "ready.json"} {
		text := texts[name]
		path := filepath.Join(e.TreeDir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		rec := &Record{Entry: snapshot.Entry{Path: name}, tokensLater: true, work: &work{content: &content{inMemory: name != "big/s.go", held: []byte(text)}}}
		ready = name == "ready.json"
		e.keepForCount(rec)
		rec.loaded().held = []byte(strings.Repeat("x", len(text))) // the worker's buffer is reused
		recs = append(recs, rec)
	}
	if got := len(e.later.recs); got != 5 {
		t.Fatalf("%d records left for later, want 5", got)
	}
	if r := recs[5]; r.tokensLater || r.Tokens != tokens.Count(texts[r.Path]) {
		t.Errorf("the text ending once the tables are ready: tokens %d (later %v), want %d at once", r.Tokens, r.tokensLater, tokens.Count(texts[r.Path]))
	}
	ready = true
	if err := e.CountLater(context.Background(), 2); err != nil {
		t.Fatal(err)
	}
	for _, rec := range recs {
		if want := tokens.Count(texts[rec.Path]); rec.tokensLater || rec.Tokens != want || rec.Memo.TextTokens != want {
			t.Errorf("%s: tokens %d, normTokens %d, later %v; want %d", rec.Path, rec.Tokens, rec.Memo.TextTokens, rec.tokensLater, want)
		}
	}
	if e.later.pending() {
		t.Errorf("%d records left after CountLater", len(e.later.recs))
	}
	// A staged copy gone is an error that names the file.
	e.later.recs = append(e.later.recs, laterRec{rec: &Record{Entry: snapshot.Entry{Path: "gone.go"}, tokensLater: true}})
	if err := e.CountLater(context.Background(), 1); err == nil || !strings.Contains(err.Error(), "gone.go") {
		t.Errorf("CountLater with a staged copy missing: %v", err)
	}
}
