package tokens

import (
	"flag"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/dlclark/regexp2/v2"

	"github.com/repoprep/repoprep/internal/testkit"
)

// o200kPattern is the codec's split pattern, byte for byte; compiling it
// with the same options picks up the generated matcher the codec registers,
// so splitRegex splits exactly as the codec does.
const o200kPattern = `[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+`

func splitRegex(t testing.TB, s string) []string {
	t.Helper()
	codec() // make sure the codec package, and its generated matcher, is loaded
	re := regexp2.MustCompile(o200kPattern, regexp2.None)
	var out []string
	m, err := re.FindStringMatch(s)
	for ; m != nil && err == nil; m, err = re.FindNextMatch(m) {
		out = append(out, m.String())
	}
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func splitFast(s string) []string {
	if !utf8.ValidString(s) {
		s = string([]rune(s))
	}
	tab := bmpClasses()
	var out []string
	for start, end := nextPiece(tab, s, 0); start < end; start, end = nextPiece(tab, s, end) {
		out = append(out, s[start:end])
	}
	return out
}

// checkExact fails if Count and the codec disagree on s, and then names the
// first piece the two splits disagree on.
func checkExact(t *testing.T, name, s string) {
	t.Helper()
	got, want := Count(s), Reference(s)
	fast, slow := splitFast(s), splitRegex(t, s)
	if got == want && slices.Equal(fast, slow) {
		return
	}
	i := 0
	for i < len(fast) && i < len(slow) && fast[i] == slow[i] {
		i++
	}
	at := func(p []string) string {
		if i < len(p) {
			return p[i]
		}
		return "<end>"
	}
	t.Errorf("%s: Count = %d, codec = %d; piece %d: fast %q, regex %q (context %q)",
		name, got, want, i, at(fast), at(slow), strings.Join(slow[max(0, i-2):min(len(slow), i+3)], "|"))
}

// exactCases covers each branch of the pattern and each quirk split.go
// reproduces; FuzzCount starts from them too.
var exactCases = map[string]string{
	"english":       "The quick brown fox jumps over the lazy dog. It's 9:41 a.m., isn't it?\n",
	"contractions":  "they're we've I'm he'll she'd it's DON'T WE'LL You'Re 'S 's 'T 'LL 'll 'Ll 'lL x'ſ X'ſ a'ſs a'x 'tis rock'n'roll",
	"chinese":       "自然语言处理是人工智能的一个分支。它研究如何让计算机理解人类语言，包括分词、句法分析和语义理解等任务。\n",
	"japanese":      "日本語の文章は、ひらがな・カタカナ・漢字を混ぜて書きます。「テスト」です！",
	"korean":        "한국어 문장은 띄어쓰기를 합니다. 토큰화 테스트입니다.",
	"russian":       "Съешь же ещё этих мягких французских булок, да выпей чаю. Ёжик в ТУМАНЕ",
	"greek arabic":  "Καλημέρα κόσμε ΑΒΓ مرحبا بالعالم हिन्दी भाषा ไทย ภาษา",
	"emoji":         "ok 👍🏽 family 👨‍👩‍👧‍👦 flag 🇫🇷 heart ❤️ keycap 1️⃣ 🙂🙂🙂",
	"mixed scripts": "fooБар漢字abcDEFghi ÀÉÎõü ǅungla ʰʲ 𝐀𝐁𝐜 𝟘𝟙𝟚 Ⅻ ½ ²³",
	"digits":        "1 12 123 1234 12345 123456789 3.14159 ١٢٣٤ ０１２３ 1_000_000 0x1F",
	"whitespace":    "a  b   c\t\td \n\n\ne\r\n\r\nf \r\n g\n \n  h  \n\t\n x  \n",
	"trailing":      "line with trailing spaces   \nand tabs\t\t\n  \n",
	"only spaces":   "     ",
	"unicode space": "a\u00a0b\u00a0\u00a0c\u2003d\u3000e\u2028f\u2029g\u0085h\u000bi\u000cj\u1680k\u202fl\u205fm",
	"not space":     "a\u200bb\ufeffc\u200dd\u2060e",
	"marks":         "e\u0301 \u0301 \u0301a \u0301\u0302\u0303 A\u0301B \u0301ABC1 x\u0301\u0301\u0301 ̈̈ \u20dd \u0903 क्षि",
	"titlecase":     "ǅ ǅa Aǅ ǈemma ǋ",
	"del":           "a\x7fb \x7f \x7f\x7f x\x7f\n\x7f'",
	"controls":      "\x00\x01\x1b[31mred\x1b[0m\x08",
	"punct":         "-> => != :: ... !== /// */ /* // \\\\ ({[]}) @#$%^&* `x` \"s\" 'q' -- ++",
	"slashes":       "a/\n b//\r\n c /\n/\n ://\r/",
	"private use":   "\ue000\uf8ff \U000f0000 \u0378\u0379 \U0001fffe",
	"replacement":   "a\ufffdb \ufffd\ufffd",
	"invalid utf8":  "a\xffb \xc3\x28 \xe2\x82 \xf0\x9f\x98 x\x80\x80y \xed\xa0\x80 \xc0\xaf",
	"go code":       "func (s *Server) Serve(l net.Listener) error {\n\tif err != nil {\n\t\treturn fmt.Errorf(\"serve %s: %w\", l.Addr(), err)\n\t}\n\treturn nil // 服务\n}\n",
	"long word":     strings.Repeat("abcdefghij", 40) + " " + strings.Repeat("漢字かな", 60),
	"endoftext":     "<|endoftext|> <|endofprompt|>",
	"lone":          "'",
	"lone space":    " ",
	"lone newline":  "\n",
}

func TestCountExact(t *testing.T) {
	for name, s := range exactCases {
		checkExact(t, name, s)
		// Every prefix too: pieces at the end of the text take other
		// branches (the lookahead, the contractions).
		for i := range len(s) {
			if len(s) < 200 {
				checkExact(t, name+" prefix", s[:i])
			}
		}
	}
}

// TestCountExactRandom strings together runes from every class the pattern
// distinguishes, which reaches far more branch orders than prose does.
func TestCountExactRandom(t *testing.T) {
	alphabet := []string{
		"a", "Z", "é", "É", "ǅ", "ʰ", "漢", "か", "\u0301", "\u0903", "1", "٣", "½", "𝐀", "𝟙",
		" ", "  ", "\t", "\n", "\r", "\r\n", "\u00a0", "\u3000", "\u0085", "\v",
		"'", "'s", "'S", "'ll", "'LL", "'re", "'ve", "'m", "'d", "'t", "ſ", "/",
		".", "!", "-", "(", "\x7f", "\x00", "👍", "\ufe0f", "\u200d", "\xff", "\xe2\x82",
	}
	n := 3000
	if testing.Short() {
		n = 300
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range n {
		var b strings.Builder
		for range 1 + rng.IntN(12) {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		checkExact(t, "random", b.String())
	}
}

// TestCountExactGoSource compares whole files from the Go distribution.
func TestCountExactGoSource(t *testing.T) {
	root := testkit.GoSrc(t)
	var files []string
	_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && (strings.HasSuffix(path, ".go") || strings.HasSuffix(path, ".s")) {
			files = append(files, path)
		}
		return nil
	})
	if len(files) == 0 {
		t.Skip("no Go source under GOROOT")
	}
	step, budget := 25, 1<<20 // about 500 files
	if testing.Short() {
		// 16 files, 69 KB, under -short (make test's race pass, where the
		// regex split and the codec are slowest); a budget of 128 KiB ran
		// into a 330 KB file.
		step, budget = 200, 1<<16
	}
	total := 0
	for i := 0; i < len(files) && total < budget; i += step {
		b, err := os.ReadFile(files[i])
		if err != nil {
			t.Fatal(err)
		}
		total += len(b)
		rel, _ := filepath.Rel(root, files[i])
		checkExact(t, rel, string(b))
	}
	t.Logf("compared %d bytes of Go source", total)
}

func FuzzCount(f *testing.F) {
	for _, s := range exactCases {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		// checkExact also compares the split itself, which catches a wrong
		// piece boundary even where the counts happen to agree.
		checkExact(t, "fuzz", s)
	})
}

// TestCountConcurrent counts from several goroutines through the shared cache
// while it churns (Count is called from worker pools); run it with -race.
func TestCountConcurrent(t *testing.T) {
	texts := make([]string, 0, len(exactCases))
	want := make([]int, 0, len(exactCases))
	for _, s := range exactCases {
		texts = append(texts, s)
		want = append(want, Reference(s))
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for round := range 20 {
				if g == 0 && round%5 == 0 {
					cache.reset()
				}
				for i, s := range texts {
					if got := Count(s); got != want[i] {
						t.Errorf("Count(%q) = %d, want %d", s, got, want[i])
						return
					}
				}
			}
		})
	}
	wg.Wait()
}

var goroot = flag.Bool("goroot", false, "compare Count with the codec on every file under GOROOT/src (minutes; make check-tokens)")

// TestCountExactGoroot compares Count with the codec on every file of
// GOROOT/src, binaries included, and logs the throughput of each on one
// goroutine, Count first from an empty piece cache.
func TestCountExactGoroot(t *testing.T) {
	if !*goroot {
		t.Skip("run with -goroot (make check-tokens)")
	}
	var texts []string
	var paths []string
	total := 0
	_ = filepath.WalkDir(testkit.GoSrc(t), func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if b, err := os.ReadFile(path); err == nil {
				texts, paths = append(texts, string(b)), append(paths, path)
				total += len(b)
			}
		}
		return nil
	})
	Count("warm up") // build the tables outside the timing
	cache.reset()
	timed := func(f func(string) int) ([]int, time.Duration) {
		counts := make([]int, len(texts))
		start := time.Now()
		for i, s := range texts {
			counts[i] = f(s)
		}
		return counts, time.Since(start)
	}
	cold, coldTime := timed(Count)
	_, warmTime := timed(Count)
	ref, refTime := timed(Reference)
	tokens, bad := 0, 0
	for i := range texts {
		tokens += ref[i]
		if cold[i] != ref[i] {
			if bad++; bad <= 10 {
				t.Errorf("%s: Count %d, codec %d", paths[i], cold[i], ref[i])
			}
		}
	}
	mbps := func(d time.Duration) float64 { return float64(total) / d.Seconds() / 1e6 }
	t.Logf("%d files, %d bytes, %d tokens, %d mismatches; Count cold %.1f MB/s, warm %.1f MB/s, codec %.1f MB/s",
		len(texts), total, tokens, bad, mbps(coldTime), mbps(warmTime), mbps(refTime))
}

// TestASCIIWordFastPath checks asciiWordEnd against the general path on
// every ASCII word shape it takes and every one it must leave alone.
func TestASCIIWordFastPath(t *testing.T) {
	tab := bmpClasses()
	leads := []string{"", " ", "\t", "(", "'", "_", "$", "\x7f", "\r", "\n", "1", "é"}
	words := []string{"a", "foo", "Foo", "FOO", "FOObar", "fooBar", "X", "xY", "ABCdefGHI"}
	tails := []string{"", " ", "'s", "'S", "'ll", "'re", "'ve", "'x", "1", "é", "É", "\u0301", "ſ", "'ſ", "_", "\n", "ǅ"}
	for _, l := range leads {
		for _, w := range words {
			for _, tail := range tails {
				s := l + w + tail
				if fast := asciiWordEnd(s, 0); fast >= 0 {
					general := pieceEndGeneral(tab, s, 0)
					if fast != general {
						t.Errorf("%q: fast path ends at %d, general path at %d", s, fast, general)
					}
				}
				checkExact(t, "ascii word", s)
			}
		}
	}
}

// TestASCIIFastPaths compares asciiWordEnd and asciiOtherEnd with the
// general path at the start of every string of up to 4 symbols from an
// alphabet of the bytes they treat apart, and of the ones they must leave
// alone (the general path is itself checked against the regex above).
func TestASCIIFastPaths(t *testing.T) {
	tab := bmpClasses()
	alphabet := []string{"a", "Z", "1", " ", "\t", "\n", "\r", "\v", "/", "(", "'", "s", "_", "\x7f", "\x00", "é", "\u00a0", "、", "ſ"}
	var walk func(prefix string, depth int)
	walk = func(s string, depth int) {
		if s != "" {
			general := pieceEndGeneral(tab, s, 0)
			for name, fast := range map[string]int{"asciiWordEnd": asciiWordEnd(s, 0), "asciiOtherEnd": asciiOtherEnd(tab, s, 0)} {
				if fast >= 0 && fast != general {
					t.Errorf("%q: %s ends at %d, general path at %d", s, name, fast, general)
				}
			}
		}
		if depth == 0 {
			return
		}
		for _, a := range alphabet {
			walk(s+a, depth-1)
		}
	}
	walk("", 4)
}

// hostileShapes are texts that once made Count quadratic: the splitter
// scanned each whitespace run to its end for every piece in it, so a run
// of "\n " cost its length squared (1.5 s for 64 KiB). The codec's own
// regexp2 matcher still does (5.8 s for 64 KiB).
var hostileShapes = []string{"\n ", "\r\n\t", " \n\n", "\u00a0\n", "\t \r"}

// Count gives the codec's count on each hostile shape, and finishes a few
// MiB of each (1 MiB under -short, make test's race pass): quadratic, that
// would take hours, and a tree is allowed to hold such a file.
func TestCountHostileShapes(t *testing.T) {
	// The codec, quadratic on these shapes, counts 2000 units of each in
	// make test's whole pass, 1000 under -short (the race pass): a quarter of
	// the time.
	units := 2000
	if testing.Short() {
		units = 1000
	}
	for _, unit := range hostileShapes {
		small := strings.Repeat(unit, units) + "x"
		if got, want := Count(small), Reference(small); got != want {
			t.Errorf("%q x %d: Count %d, the codec %d", unit, units, got, want)
		}
		size := 4 << 20
		if testing.Short() {
			size = 1 << 20 // still minutes if quadratic
		}
		big := strings.Repeat(unit, size/len(unit))
		done := make(chan int, 1)
		go func() { done <- Count(big) }()
		select {
		case n := <-done:
			if n == 0 {
				t.Errorf("%q x %d: no tokens", unit, len(big)/len(unit))
			}
		case <-time.After(60 * time.Second): // about 0.1 s when linear
			t.Fatalf("%q x %d: Count still running after a minute", unit, len(big)/len(unit))
		}
	}
}

// BenchmarkHostileShapes counts 1 MiB of each hostile shape, beside Go
// source of the same size counted warm (the corpus BenchmarkCorpus reads).
func BenchmarkHostileShapes(b *testing.B) {
	texts := map[string]string{"go source": goSource(b)[:1<<20]}
	for _, unit := range hostileShapes {
		texts[fmt.Sprintf("%q", unit)] = strings.Repeat(unit, (1<<20)/len(unit))
	}
	for name, text := range texts {
		b.Run(name, func(b *testing.B) {
			Count(text)
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				Count(text)
			}
		})
	}
}
