package extract

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/klippa-app/go-pdfium"

	xt "github.com/repoprep/repoprep/internal/extract/extracttest"
)

// TestUseInterpreter: while the compiled engine is not ready, the first
// small PDFs go to the interpreter, unless the compile cache already holds
// the compiled module or a large PDF started the compiler first.
func TestUseInterpreter(t *testing.T) {
	small, large := int64(40<<10), int64(interpMaxBytes+1)
	tests := []struct {
		name       string
		interpDocs int
		started    bool
		cached     bool
		size       int64
		want       bool
	}{
		{"first small PDF", 0, false, false, small, true},
		{"first small PDF, compiled before", 0, false, true, small, false},
		{"first large PDF", 0, false, false, large, false},
		{"small after a large one started the compiler", 0, true, false, small, false},
		{"second small PDF, compiler running", 1, true, false, small, true},
		{"large PDF while interpreting", 3, true, false, large, false},
		{"past the interpreter's share", interpMaxDocs, true, false, small, false},
	}
	for _, tt := range tests {
		e := &pdfEngines{interpDocs: tt.interpDocs, started: tt.started}
		asked := false
		got := e.useInterpreter(tt.size, func() bool { asked = true; return tt.cached })
		if got != tt.want {
			t.Errorf("%s: useInterpreter = %v, want %v", tt.name, got, tt.want)
		}
		if asked && (tt.started || tt.interpDocs > 0) {
			t.Errorf("%s: looked at the cache after the compiler was started", tt.name)
		}
	}
}

// TestInterpreterAgrees: the interpreter and the compiled engine give the
// same text, so which one read a document never shows in files.json.
func TestInterpreterAgrees(t *testing.T) {
	needPDFium(t)
	if testing.Short() {
		t.Skip("starts a second PDFium engine (about a second of CPU)")
	}
	var pages [][]string
	for p := range 4 {
		pages = append(pages, []string{fmt.Sprintf("Page %d: a line of text, 12 345,67", p+1), "second line", "(parentheses) and \\backslash"})
	}
	data := xt.PDF(t, pages, xt.PDFOptions{Compressed: true})
	lim := Limits{MaxPDFMemory: testPDFMemory}.withDefaults()
	t.Setenv("REPOPREP_WAZERO_CACHE", t.TempDir()) // a fresh machine
	local := &pdfEngines{ready: make(chan struct{})}
	interp, err := local.pool(lim, int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	if local.interpDocs != 1 || local.started {
		t.Fatalf("a first small PDF: interpDocs %d, compiler started %v; want the interpreter alone", local.interpDocs, local.started)
	}
	got := readWith(t, interp, data, lim)
	want := readWith(t, engines.compiled, data, lim)
	if got != want || !bytes.Contains([]byte(got), []byte("Page 4: a line of text")) {
		t.Errorf("interpreter:\n%s\ncompiled:\n%s", got, want)
	}
}

func readWith(t *testing.T, pool pdfium.Pool, data []byte, lim Limits) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	inst, err := pool.GetInstanceWithContext(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer inst.Close()
	var buf bytes.Buffer
	out := newTextWriter(&buf, lim.MaxTextBytes)
	b := &budget{ctx: ctx, lim: lim}
	if err := pdfPages(b, inst, bytes.NewReader(data), int64(len(data)), out); err != nil {
		t.Fatal(err)
	}
	out.Close()
	return buf.String()
}

// TestCompiledMark: the mark that lets a later process skip the
// interpreter names this build and lives in the cache directory.
func TestCompiledMark(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("REPOPREP_WAZERO_CACHE", dir)
	if compiledBefore() {
		t.Fatal("compiledBefore with an empty cache")
	}
	markCompiled(dir)
	if !compiledBefore() {
		t.Fatal("compiledBefore after markCompiled")
	}
	if filepath.Dir(compiledMark(dir)) != dir {
		t.Errorf("mark %s is outside the cache %s", compiledMark(dir), dir)
	}
	t.Setenv("REPOPREP_WAZERO_CACHE", "off")
	if compiledBefore() {
		t.Error("compiledBefore with the cache off")
	}
	os.Remove(compiledMark(dir))
}
