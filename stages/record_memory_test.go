package stages

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"unsafe"
)

// TestRecordHoldsStringsOnce: a Record is kept for every file of the tree
// for the whole run, so what its strings point to is memory per file too.
// A name the scan did not escape is read where Path has it (its OS name
// is Path's last element; before, the directory listing's copy was kept
// beside it, about 20 bytes a file on Go's src/), and every file of one
// media type shares one copy of it (before, mimetype's per-file copy of a
// type with a charset, about 26 bytes a file). Src is the OS path either
// way.
func TestRecordHoldsStringsOnce(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"a/one.txt":      "plain text, the first\n",
		"b/c/two.txt":    "plain text, the second\n",
		"b/back\\sl.txt": "plain text, a name the scan escapes\n",
		"three.html":     "<html><head><meta charset=\"utf-8\"></head><body>3</body></html>\n",
		"d/four.html":    "<html><head><meta charset=\"utf-8\"></head><body>4</body></html>\n",
	})
	tree := openRoot(t, dir)
	recs, _, err := Scan(context.Background(), ScanOptions{Root: tree, Rules: defaultRules(t), Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	env := &Env{Src: tree, Rules: defaultRules(t)}
	byPath := map[string]*Record{}
	for _, rec := range recs {
		byPath[rec.Path] = rec
		if err := env.readAndClassify(context.Background(), rec, &Worker{}); err != nil {
			t.Fatal(err)
		}
	}
	within := func(s, in string) bool {
		p, start := uintptr(unsafe.Pointer(unsafe.StringData(s))), uintptr(unsafe.Pointer(unsafe.StringData(in)))
		return len(s) > 0 && p >= start && p+uintptr(len(s)) <= start+uintptr(len(in))
	}
	for _, tc := range []struct {
		path, src string
		shared    bool // the name is read from Path
	}{
		{"a/one.txt", "a/one.txt", true},
		{"b/c/two.txt", "b/c/two.txt", true},
		{"three.html", "three.html", true},
		{`b/back\\sl.txt`, `b/back\sl.txt`, false},
	} {
		t.Run(tc.path, func(t *testing.T) {
			rec := byPath[tc.path]
			if rec == nil {
				t.Fatalf("not scanned; have %v", recs)
			}
			if got := rec.Src(); got != tc.src {
				t.Errorf("Src() = %q, want %q", got, tc.src)
			}
			if got := within(rec.name, rec.Path); got != tc.shared {
				t.Errorf("name %q read from Path %q: %v, want %v", rec.name, rec.Path, got, tc.shared)
			}
		})
	}
	for _, pair := range [][2]string{{"a/one.txt", "b/c/two.txt"}, {"three.html", "d/four.html"}} {
		a, b := byPath[pair[0]], byPath[pair[1]]
		if a.Mime != b.Mime || unsafe.StringData(a.Mime) != unsafe.StringData(b.Mime) {
			t.Errorf("%s and %s hold %q and %q as two copies, want one", pair[0], pair[1], a.Mime, b.Mime)
		}
	}
}

// TestProcessLetsGo: once the per-file loop is done with a file, its
// record holds none of the loop's state (the file's bytes, the sniffed
// head, triage's reasons), staged or not; explain's Sniff, which stops
// after triage, still says why.
func TestProcessLetsGo(t *testing.T) {
	for _, tc := range []struct{ name, content string }{
		{"a.txt", "plain text\n"},
		{"b.bin", "\x00\x01\x02binary\x00"},
		{"c.go", "package c\n\nfunc C() {}\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src, out := t.TempDir(), t.TempDir()
			must(t, os.WriteFile(filepath.Join(src, tc.name), []byte(tc.content), 0o644))
			env := &Env{Src: openRoot(t, src), TreeDir: out, Rules: defaultRules(t), MaxTextBytes: 64 << 20}
			rec := NewRecord(tc.name, tc.name, int64(len(tc.content)))
			if err := env.Process(context.Background(), rec, NewWorkerSet(1).Get(), &Clock{}); err != nil {
				t.Fatal(err)
			}
			if rec.Category == "" || rec.work != nil {
				t.Errorf("after Process: category %q, loop state %+v, want a category and no state", rec.Category, rec.work)
			}
			sniffed := NewRecord(tc.name, tc.name, int64(len(tc.content)))
			if err := env.Sniff(context.Background(), sniffed); err != nil {
				t.Fatal(err)
			}
			if sniffed.Why().Rule == "" || sniffed.Category != rec.Category {
				t.Errorf("Sniff: %s by %v, want %s and its rule", sniffed.Category, sniffed.Why(), rec.Category)
			}
		})
	}
}
