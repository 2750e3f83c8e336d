package secrets

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sync"
	"testing"

	"github.com/repoprep/repoprep/internal/testkit"
)

// goSrcFiles returns the contents of up to limit bytes of GOROOT/src's regular files, in
// walk order (0: all).
func goSrcFiles(t testing.TB, limit int) [][]byte {
	t.Helper()
	root := testkit.GoSrc(t)
	var files [][]byte
	total := 0
	for _, p := range goSrcPaths(t) {
		if limit > 0 && total >= limit {
			break
		}
		if data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(p))); err == nil {
			files = append(files, data)
			total += len(data)
		}
	}
	return files
}

// TestGateKeepsEveryMatch: wherever a default rule's regex matches in one of its windows
// over GOROOT/src (the windows the scan runs it on) or in one of its examples, its gate
// lets the window through; and the gates do reject most windows, or they would be for
// nothing.
func TestGateKeepsEveryMatch(t *testing.T) {
	s := defaultScanner(t)
	// make test's whole pass runs all of GOROOT/src (Go 1.26's: 455,000
	// windows, 1,043 of them matched). Under -short (the race pass) every 16th
	// file of up to 32 KiB, 2.7 MB from all over the tree: 9,300 windows, 15
	// matched (the first 8 MB, run before, held 38,500 and 20, at over twice
	// the cost).
	var files [][]byte
	if testing.Short() {
		files = goSrcFilesEvery(t, 16, 32<<10)
	} else {
		files = goSrcFiles(t, 0)
	}
	var windows, rejected, matched int
	for _, data := range files {
		set := s.windows(data)
		for ri, ws := range set.wins {
			r := &s.rules[ri]
			for _, w := range ws {
				text := data[w.start:w.end]
				windows++
				ok := s.gateOpen(set, ri, w, data)
				if !ok {
					rejected++
				}
				if r.re.Match(text) {
					matched++
					if !ok {
						t.Errorf("rule %s: gate rejects a window its regex matches: %q", r.id, text)
					}
				}
			}
		}
		s.putWindows(set)
	}
	t.Logf("%d windows, %d matched, %d rejected by the gates", windows, matched, rejected)
	if rejected < windows/2 {
		t.Errorf("the gates rejected %d of %d windows; want most", rejected, windows)
	}
	if matched == 0 {
		t.Error("no window matched its rule's regex: the test proves nothing")
	}
}

// goSrcFilesEvery returns the contents of every kth of GOROOT/src's regular files that
// holds at most maxBytes, in walk order: a sample of the whole tree rather than its
// first directories, without its few large tables.
func goSrcFilesEvery(t testing.TB, k, maxBytes int) [][]byte {
	t.Helper()
	root := testkit.GoSrc(t)
	var files [][]byte
	paths := goSrcPaths(t)
	for i := 0; i < len(paths); i += k {
		if data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(paths[i]))); err == nil && len(data) <= maxBytes {
			files = append(files, data)
		}
	}
	return files
}

// TestGateShapes checks the conditions derived from hand-picked regexes.
func TestGateShapes(t *testing.T) {
	tests := []struct {
		expr       string
		runs       int  // conditions derived
		relaxed    bool // a relaxed regex kept
		pass, fail []string
	}{
		{`\b(1[3-9][0-9]{9})\b`, 1, false, []string{"tel 13912345678.", "x13912345678y"}, []string{"0x13, 0x14", "1391234567", "139-1234-5678"}},
		{`(?i)key[ \t]*=[ \t]*([A-Za-z0-9]{20,256})`, 2, true, []string{"KEY = abcdefghij0123456789"}, []string{"key = abc", "key = abcdefghij 0123456789"}},
		{`(?i)ſecret`, 1, false, []string{"SECRET", "secret", "ſecret"}, []string{"secre"}},
		{`(?i)ſec`, 0, false, []string{"SEC", "ſec"}, nil}, // too short to test
		{`[^a]{5}`, 1, false, []string{"bbbbb", "ééé"}, []string{"abababab"}},
		{`x|y`, 0, false, []string{"x"}, nil},
		{`.{8}`, 1, false, []string{"12345678"}, []string{"1234\n5678"}},
		{`(?s).{8}`, 0, false, []string{"1234\n5678"}, nil},
		{`é{4}`, 1, false, []string{"éééé", "\xff\xff\xff\xff"}, []string{"eeee"}},
	}
	for _, tt := range tests {
		g := newGate(tt.expr)
		re := regexp.MustCompile(tt.expr)
		if len(g.runs) != tt.runs || (g.relaxed != nil) != tt.relaxed {
			t.Errorf("%s: %d runs, relaxed %v; want %d, %v", tt.expr, len(g.runs), g.relaxed != nil, tt.runs, tt.relaxed)
		}
		for _, s := range tt.pass {
			if !g.mayMatch([]byte(s)) {
				t.Errorf("%s rejects %q (regex matches: %v)", tt.expr, s, re.MatchString(s))
			}
		}
		for _, s := range tt.fail {
			if re.MatchString(s) {
				t.Fatalf("bad case: %s matches %q", tt.expr, s)
			}
			if g.mayMatch([]byte(s)) {
				t.Errorf("%s lets %q through", tt.expr, s)
			}
		}
	}
}

// FuzzGate: for any regex and text, the gate lets the text through when the regex
// matches it.
func FuzzGate(f *testing.F) {
	for _, seed := range []struct{ expr, text string }{
		{`\b(1[3-9][0-9]{9})\b`, "call 13912345678 now"},
		{`(?i)(?:api[_-]?key|token)[\w.-]{0,20}[ \t]{0,3}(?::=|=)[ \t]{0,3}"([^"\s]{16,256})"`, `API_KEY := "0123456789abcdefXYZ"`},
		{`(?i)k{3,9}`, "\u212a\u212aK"},
		{`(?i)s{4}`, "ſſſſ"},
		{`[a-c]{2,4}?\d{3}`, "ab123"},
		{`^\w{4,6}$`, "word"},
		{`(?:ab){2,3}|c{5}`, "ababab"},
		{`é{4}`, "\xff\xfe\xfd\xfc"},
	} {
		f.Add(seed.expr, []byte(seed.text))
	}
	f.Fuzz(func(t *testing.T, expr string, text []byte) {
		re, err := regexp.Compile(expr)
		if err != nil || len(expr) > 200 {
			return
		}
		if g := newGate(expr); re.Match(text) && !g.mayMatch(text) {
			t.Fatalf("gate of %q rejects %q, which the regex matches", expr, text)
		}
	})
}

// BenchmarkScanGoSource is the scan (Scan, in memory) over about 8 MB of GOROOT/src, file
// by file as the run does, with and without the gates, beside a plain read of the same
// bytes from memory (a copy) as the floor.
// The keywords case is the pre-filter's pass alone (every keyword found,
// the windows cut), which any scan by keyword must make over every byte:
// the least a secret scan costs, beside the scan.
func BenchmarkScanGoSource(b *testing.B) {
	s := defaultScanner(b)
	files := goSrcFiles(b, 8<<20)
	benchGates(b, files, func(f []byte) { s.ScanContent(f, "x.go") })
	b.Run("keywords", func(b *testing.B) {
		total := 0
		for _, f := range files {
			total += len(f)
		}
		b.SetBytes(int64(total))
		for b.Loop() {
			for _, f := range files {
				s.Keywords(f)
			}
		}
	})
}

// benchGates runs scan over every item with the gates off and on, beside a
// copy of the same bytes as the floor, in MB/s of the items.
func benchGates[T string | []byte](b *testing.B, items []T, scan func(T)) {
	total := 0
	for _, it := range items {
		total += len(it)
	}
	b.Run("copy", func(b *testing.B) {
		b.SetBytes(int64(total))
		var buf []byte
		for b.Loop() {
			for _, it := range items {
				buf = append(buf[:0], it...)
			}
		}
	})
	for _, gated := range []bool{false, true} {
		name := "ungated"
		if gated {
			name = "gated"
		}
		b.Run(name, func(b *testing.B) {
			defer func(old bool) { useGates = old }(useGates)
			useGates = gated
			b.SetBytes(int64(total))
			for b.Loop() {
				for _, it := range items {
					scan(it)
				}
			}
		})
	}
}

// goSrcPaths returns the slash-separated paths of GOROOT/src's regular
// files, relative to it, in walk order. The tree is walked once per test
// binary (11,000 files; 0.2 s under -race): callers only read the slice.
func goSrcPaths(t testing.TB) []string {
	t.Helper()
	root := testkit.GoSrc(t)
	goSrcWalk.Do(func() {
		_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() {
				rel, _ := filepath.Rel(root, path)
				goSrcWalked = append(goSrcWalked, filepath.ToSlash(rel))
			}
			return nil
		})
	})
	if len(goSrcWalked) == 0 {
		t.Skip("no files under GOROOT/src")
	}
	return goSrcWalked
}

var (
	goSrcWalk   sync.Once
	goSrcWalked []string
)

// TestPathGates: with or without the gates of the path allowlists, every path of
// GOROOT/src gets the same rules skipped (testdata/*.json and *vector* paths are there).
func TestPathGates(t *testing.T) {
	s := defaultScanner(t)
	// make test's whole pass compares every path both ways. Under -short (the
	// race pass, where the ungated regexes take 2 s over the tree) the gated
	// skips of every path are still taken, and compared with the ungated
	// ones on every path the gates allowlist (23 in Go 1.26's tree) and on
	// every 4th path besides.
	stride := 1
	if testing.Short() {
		stride = 4
	}
	allowed := 0
	for i, p := range goSrcPaths(t) {
		gated := s.pathSkips(p)
		if gated == nil && i%stride != 0 {
			continue
		}
		useGates = false
		plain := s.pathSkips(p)
		useGates = true
		if !slices.Equal(gated, plain) {
			t.Errorf("%s: skips %v with the gates, %v without", p, gated, plain)
		}
		if gated != nil {
			allowed++
		}
	}
	if allowed == 0 {
		t.Error("no path of GOROOT/src is allowlisted: the test proves nothing")
	}
}

// BenchmarkPathSkips is the path allowlists over every path of GOROOT/src, with and
// without their gates, beside a copy of the same paths as the floor.
func BenchmarkPathSkips(b *testing.B) {
	s := defaultScanner(b)
	benchGates(b, goSrcPaths(b), func(p string) { s.pathSkips(p) })
}
