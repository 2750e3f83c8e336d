package textenc

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/repoprep/repoprep/internal/tokens"
)

// StreamTokens gives the count the sink gave while it decoded, on texts
// whose batches end where the pending text happens to end (no cut for over
// a MiB: comment lines, one long line) and with multi-byte runes across
// the flush boundaries, read back in any chunk sizes; and on plain text.
func TestStreamTokensMatchesSink(t *testing.T) {
	// make test's whole pass runs the full size: the two texts without a cut
	// 3.4 and 4.5 MB (three or four batches cut at the cap), Go source 1.2 MB
	// and six random texts of 2-3 MiB. Under -short (the race pass) they are
	// 1.25 MB each: one batch cut at the cap and more than a batch left for
	// the last count (checked below), 150 KB and two random texts of 128-192
	// KiB: still several flushes each, through every reader.
	comments, oneLine, goSource, randoms, randomBytes := 80000, 900000, 40000, 6, 2<<20
	if testing.Short() {
		comments, oneLine, goSource, randoms, randomBytes = 29000, 250000, 5000, 2, 128<<10
	}
	rng := rand.New(rand.NewPCG(5, 6))
	pieces := []string{"// a comment line, no cut before it\n", "//\n", "汉字注释", "é", "𝟙", "word ", "x", "\n", "{\"k\": [1, 2]}"}
	texts := map[string]string{
		"comments":  strings.Repeat("// no cut: every line starts with a slash\n", comments),
		"one line":  strings.Repeat("ab汉", oneLine),
		"go source": strings.Repeat("func f() {\n\treturn 1 // 中\n}\n", goSource),
	}
	for _, name := range []string{"comments", "one line"} {
		// A batch ends at the cap once a flush takes it past; more than a
		// batch is left after the last one.
		if text := texts[name]; len(text) <= tokenMaxPendingBytes+flushBytes+tokenBatchBytes || tokens.Cut([]byte(text)) != 0 {
			t.Fatalf("%s: %d bytes, cut at %d: the batches would not end at the cap", name, len(text), tokens.Cut([]byte(text)))
		}
	}
	for i := range randoms {
		var b strings.Builder
		for b.Len() < randomBytes+rng.IntN(randomBytes/2) {
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
