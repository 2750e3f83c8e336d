package textenc

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
	"testing/iotest"
)

// StreamTokens gives the count the sink gave while it decoded, on texts
// whose batches end where the pending text happens to end (no cut for over
// a MiB: comment lines, one long line) and with multi-byte runes across
// the flush boundaries, read back in any chunk sizes; and on plain text.
func TestStreamTokensMatchesSink(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	pieces := []string{"// a comment line, no cut before it\n", "//\n", "汉字注释", "é", "𝟙", "word ", "x", "\n", "{\"k\": [1, 2]}"}
	texts := map[string]string{
		"comments":  strings.Repeat("// no cut: every line starts with a slash\n", 80000),
		"one line":  strings.Repeat("ab汉", 900000),
		"go source": strings.Repeat("func f() {\n\treturn 1 // 中\n}\n", 40000),
	}
	for i := range 6 {
		var b strings.Builder
		for b.Len() < 2<<20+rng.IntN(1<<20) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		texts["random "+string(rune('a'+i))] = b.String()
	}
	for name, text := range texts {
		var staged bytes.Buffer
		res, err := Normalize(strings.NewReader(text), &staged)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, read := range []func(*bytes.Reader) any{
			func(r *bytes.Reader) any { return r },
			func(r *bytes.Reader) any { return iotest.HalfReader(r) },
			func(r *bytes.Reader) any { return iotest.OneByteReader(r) },
		} {
			r := read(bytes.NewReader(staged.Bytes())).(interface{ Read([]byte) (int, error) })
			got, err := StreamTokens(r)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if got != res.Tokens {
				t.Errorf("%s (%T): StreamTokens %d, the sink %d", name, r, got, res.Tokens)
			}
		}
	}
}
