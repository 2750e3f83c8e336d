package tokens

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/repoprep/repoprep/internal/testkit"
)

// checkCuts fails unless every cut of s splits both its pieces and its
// count exactly in two.
func checkCuts(t *testing.T, name, s string) {
	t.Helper()
	whole, pieces := Count(s), splitFast(s)
	for q := 1; q < len(s); q++ {
		if !isCut(s, q) {
			continue
		}
		if a, b := Count(s[:q]), Count(s[q:]); a+b != whole {
			t.Errorf("%s: cut at %d: %d + %d tokens, whole %d", name, q, a, b, whole)
		}
		if got := append(splitFast(s[:q]), splitFast(s[q:])...); !slices.Equal(got, pieces) {
			t.Errorf("%s: cut at %d changes the pieces", name, q)
		}
	}
}

func TestCutAdditive(t *testing.T) {
	for name, s := range exactCases {
		checkCuts(t, name, s)
	}
	rng := rand.New(rand.NewPCG(9, 10))
	alphabet := []string{"a", "Z", "漢", "1", " ", "\t", "\n", "\n", "\r", "\r\n", "/", "//", ".", "'s", "\x7f", "\xff", "\u00a0", "\u0301"}
	for range 2000 {
		var b strings.Builder
		for range 1 + rng.IntN(30) {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		checkCuts(t, "random", b.String())
	}
	// The cut rule needs its conditions: after a newline that is followed
	// by '/', or by another newline, a split point is not a cut.
	for _, s := range []string{"x.\n//y", "x.\n\ny", "a\n\n\nb", "x;\r\n//"} {
		q := strings.IndexByte(s, '\n') + 1
		if Count(s[:q])+Count(s[q:]) == Count(s) && slices.Equal(append(splitFast(s[:q]), splitFast(s[q:])...), splitFast(s)) {
			t.Errorf("%q splits at %d alike; the test no longer shows why the rule excludes it", s, q)
		}
	}
}

func TestCut(t *testing.T) {
	tests := []struct {
		in   string
		want int
	}{
		{"", 0},
		{"abc", 0},
		{"abc\n", 0}, // the byte after the newline is not known yet
		{"abc\nd", 4},
		{"a\nb\nc", 4},
		{"a\nb\n\nc", 5},
		{"a\nb\n//c", 2},
		{"a\n\r\n", 0},
		{"a\n\r\nb", 4},
	}
	for _, tt := range tests {
		if got := Cut([]byte(tt.in)); got != tt.want {
			t.Errorf("Cut(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

// checkRecount fails unless Recount agrees with counting the edited text.
func checkRecount(t *testing.T, name, text string, edits []Edit) {
	t.Helper()
	want := Count(Apply(text, edits))
	if got := Recount(text, Count(text), edits); got != want {
		t.Errorf("%s: Recount = %d, Count of the edited text = %d (edits %+v)", name, got, want, edits)
	}
}

func TestRecount(t *testing.T) {
	code := "package main\n\nfunc main() {\n\tkey := \"KEYX0123456789ABCDEF\" // 服务\n\tfmt.Println(key)\n}\n"
	at := func(s, sub string) (int, int) {
		i := strings.Index(s, sub)
		if i < 0 {
			panic(sub)
		}
		return i, i + len(sub)
	}
	ks, ke := at(code, "KEYX0123456789ABCDEF")
	tests := []struct {
		name  string
		text  string
		edits []Edit
	}{
		{"no edits", code, nil},
		{"redact a key", code, []Edit{{ks, ke, "[REDACTED:aws-access-key]"}}},
		{"redact with the quotes", code, []Edit{{ks - 1, ke + 1, "[REDACTED:x]"}}},
		{"delete", code, []Edit{{ks, ke, ""}}},
		{"insert", code, []Edit{{ks, ks, "zz"}}},
		{"at the start", code, []Edit{{0, 7, "[REDACTED:p]"}}},
		{"at the end", code, []Edit{{len(code) - 2, len(code), "[REDACTED:e]"}}},
		{"whole text", code, []Edit{{0, len(code), "[REDACTED:all]"}}},
		{"two on one line", code, []Edit{{ks, ks + 4, "[R]"}, {ks + 8, ke, "[R]"}}},
		{"adjacent", code, []Edit{{ks, ks + 4, "[R]"}, {ks + 4, ke, "[S]"}}},
		{"across lines", code, []Edit{{ks, strings.Index(code, "Println"), "[REDACTED:x]"}}},
		{"joins lines", code, []Edit{{ke + 1, ke + 12, ""}}},
		{"adds a newline", code, []Edit{{ks, ke, "\n//\n"}}},
		{"removes a cut", "a\nb\nc\n", []Edit{{2, 3, "/"}}},
		{"makes a cut", "a\n/b\n//c\n", []Edit{{2, 3, "x"}, {5, 6, "y"}}},
		{"blank lines", "x\n\n\n\ny\n", []Edit{{2, 3, " "}}},
		{"one long line", strings.Repeat("QUJD", 500), []Edit{{1000, 1040, "[REDACTED:b64]"}}},
		{"far apart", strings.Repeat("line of text\n", 200), []Edit{{13, 17, "[R]"}, {1300, 1304, "[R]"}, {2590, 2600, "[R]"}}},
		{"cjk", "密钥是 KEYX0123456789ABCDEF 请勿泄露。\n", []Edit{{10, 30, "[REDACTED:k]"}}},
		{"splits a rune", "漢字かな\n", []Edit{{1, 4, "x"}}},
		{"invalid text", "a\xffb secret\xe2\x82 c\n", []Edit{{5, 11, "[R]"}}},
		{"del", "a\x7fb secret \x7f\n", []Edit{{4, 10, "\x7f"}}},
		{"empty text", "", []Edit{{0, 0, "new"}}},
	}
	for _, tt := range tests {
		checkRecount(t, tt.name, tt.text, tt.edits)
	}
}

// randomEdits returns up to n sorted, disjoint edits of a text of size
// bytes, with replacements that add and remove newlines, slashes and cuts.
func randomEdits(rng *rand.Rand, size, n int) []Edit {
	repls := []string{"", "[REDACTED:rule]", "x", "\n", "/", "\n//", " ", "漢", "'s", "\x7f", "123"}
	var edits []Edit
	pos := 0
	for range n {
		if pos > size {
			break
		}
		start := pos + rng.IntN(size-pos+1)/2
		end := start + rng.IntN(min(size-start, 40)+1)
		edits = append(edits, Edit{start, end, repls[rng.IntN(len(repls))]})
		pos = end
	}
	return edits
}

func TestRecountRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	texts := slices.Collect(func(yield func(string) bool) {
		for _, s := range exactCases {
			yield(s)
		}
	})
	if files, _ := filepath.Glob(filepath.Join(testkit.GoSrc(t), "strings", "*.go")); len(files) > 0 {
		for _, f := range files[:min(len(files), 8)] {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			texts = append(texts, string(data))
		}
	}
	n := 3000
	if testing.Short() {
		n = 300
	}
	for i := range n {
		text := texts[rng.IntN(len(texts))]
		checkRecount(t, fmt.Sprintf("random %d", i), text, randomEdits(rng, len(text), 1+rng.IntN(4)))
	}
}

func TestApplyPanicsOnBadEdits(t *testing.T) {
	for _, edits := range [][]Edit{
		{{3, 2, ""}},
		{{0, 9, ""}},
		{{2, 4, ""}, {3, 5, ""}},
		{{-1, 0, ""}},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Apply(%+v) did not panic", edits)
				}
			}()
			Apply("abcdef", edits)
		}()
	}
}

// FuzzRecount checks Recount against counting the edited text, for any
// text and edits drawn from the fuzzer's seed.
func FuzzRecount(f *testing.F) {
	for _, s := range exactCases {
		f.Add(s, uint64(1))
	}
	f.Add("a\nb\n//c\n\nd", uint64(7))
	f.Fuzz(func(t *testing.T, text string, seed uint64) {
		rng := rand.New(rand.NewPCG(seed, seed>>32))
		checkRecount(t, "fuzz", text, randomEdits(rng, len(text), 1+rng.IntN(4)))
	})
}

// BenchmarkRecount redacts one key in 1 MB of Go: Recount against counting
// the whole redacted text again.
func BenchmarkRecount(b *testing.B) {
	text := goSource(b)
	mid := len(text) / 2
	edits := []Edit{{mid, mid + 20, "[REDACTED:aws-access-key]"}}
	n := Count(text)
	b.Run("recount", func(b *testing.B) {
		for b.Loop() {
			Recount(text, n, edits)
		}
	})
	b.Run("count", func(b *testing.B) {
		redacted := Apply(text, edits)
		for b.Loop() {
			Count(redacted)
		}
	})
}
