package secrets

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	ahocorasick "github.com/BobuSumisu/aho-corasick"

	"github.com/repoprep/repoprep/rules"
)

type report struct{ last, n, pattern int }

// walkLibrary is what the keyword pass did before the compiled automaton:
// the library trie over the lower-cased content.
func walkLibrary(patterns []string, input []byte) []report {
	trie := ahocorasick.NewTrieBuilder().AddStrings(patterns).Build()
	var out []report
	lower := make([]byte, len(input)) // ASCII only, byte for byte, as the pass did
	for i, c := range input {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		lower[i] = c
	}
	trie.Walk(lower, func(last, n, pattern int64) bool {
		out = append(out, report{int(last), int(n), int(pattern)})
		return true
	})
	return out
}

func walkDFA(patterns []string, input []byte) []report {
	var out []report
	newDFA(patterns, true).walk(input, func(last, n, pattern int) { out = append(out, report{last, n, pattern}) })
	return out
}

// The compiled automaton reports exactly what the library trie reports on
// lower-cased input, in the same order: for the default rules' keywords on
// text dense with them, and for random small alphabets where patterns are
// suffixes and prefixes of each other.
func TestDFAMatchesLibraryTrie(t *testing.T) {
	rs := mustRules(t)
	s := defaultScanner(t) // the same rules: rules.Load("") adds none to the defaults
	var kws []string
	seen := map[string]bool{}
	for _, r := range rs.Secrets {
		for _, k := range r.Keywords {
			if k = strings.ToLower(k); !seen[k] {
				seen[k] = true
				kws = append(kws, k)
			}
		}
	}
	if s.kw == nil || len(kws) < 50 {
		t.Fatalf("%d keywords", len(kws))
	}
	rng := rand.New(rand.NewPCG(7, 8))
	var text strings.Builder
	for range 20000 {
		switch rng.IntN(3) {
		case 0:
			k := kws[rng.IntN(len(kws))]
			if rng.IntN(2) == 0 {
				k = strings.ToUpper(k)
			}
			text.WriteString(k)
		case 1:
			text.WriteString(" = \"Ab9+/x\"\n")
		default:
			text.WriteByte(byte(rng.IntN(256)))
		}
	}
	check := func(name string, patterns []string, input []byte) {
		t.Helper()
		want, got := walkLibrary(patterns, input), walkDFA(patterns, input)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: %d reports, the library trie %d; first: %v vs %v", name, len(got), len(want), got[:min(len(got), 5)], want[:min(len(want), 5)])
		}
	}
	check("default keywords", kws, []byte(text.String()))
	// Long inputs are walked as two halves at once; with a small bound
	// the random inputs below are too, split anywhere near a match.
	defer func(n int) { minSplitWalk = n }(minSplitWalk)
	minSplitWalk = 8
	check("default keywords, split", kws, []byte(text.String()))
	// 300 random sets in make test's whole pass, 100 under -short (the race
	// pass); half of them split, half in one walk, either way.
	sets := 300
	if testing.Short() {
		sets = 100
	}
	for i := range sets {
		if i == sets/2 {
			minSplitWalk = 1 << 30 // and the rest in one walk
		}
		var patterns []string
		seen := map[string]bool{}
		for range 1 + rng.IntN(12) {
			p := randString(rng, "abAB", 1+rng.IntN(5))
			if p = strings.ToLower(p); !seen[p] {
				seen[p] = true
				patterns = append(patterns, p)
			}
		}
		check(fmt.Sprintf("random set %d %q", i, patterns), patterns, []byte(randString(rng, "abAB.", 200)))
	}
}

func randString(rng *rand.Rand, alphabet string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[rng.IntN(len(alphabet))]
	}
	return string(b)
}

// The four quarters walked at once report what one walk over the whole
// input reports, in the same order, for the default keywords and any input.
func FuzzDFAQuarters(f *testing.F) {
	d := defaultScanner(f).kw
	f.Add([]byte(strings.Repeat("x", 120) + "password=hunter2 API_KEY: x" + strings.Repeat("token ", 20)))
	f.Add([]byte(strings.Repeat("secretsecret", 30)))
	f.Fuzz(func(t *testing.T, input []byte) {
		var one, four []report
		d.walkFrom(input, 0, func(last, n, pattern int) { one = append(one, report{last, n, pattern}) })
		if !d.quarters(input, func(last, n, pattern int) { four = append(four, report{last, n, pattern}) }) {
			if len(input)/4 > d.maxLen {
				t.Fatalf("%d bytes not walked in quarters", len(input))
			}
			return
		}
		if fmt.Sprint(one) != fmt.Sprint(four) {
			t.Errorf("quarters: %d reports, one walk %d", len(four), len(one))
		}
	})
}

func mustRules(tb testing.TB) *rules.Set {
	tb.Helper()
	rs, err := rules.Load("")
	if err != nil {
		tb.Fatal(err)
	}
	return rs
}

// Keywords finds each default rule's keywords, in either case, and counts
// a window for the rule: a text holding one keyword has more windows than
// the same text without it (the rules that run everywhere have one in
// both), and an empty text has none.
func TestKeywordsFindsEveryRule(t *testing.T) {
	s := defaultScanner(t)
	if n := s.Keywords(nil); n != 0 {
		t.Fatalf("Keywords(nil) = %d", n)
	}
	base := s.Keywords([]byte("a line of plain words\n"))
	for _, r := range mustRules(t).Secrets {
		for _, k := range r.Keywords {
			for _, k := range []string{k, strings.ToUpper(k)} {
				if n := s.Keywords([]byte("a line of " + k + " words\n")); n <= base {
					t.Errorf("rule %s: Keywords of a line holding %q = %d, without it %d", r.ID, k, n, base)
				}
			}
		}
	}
}
