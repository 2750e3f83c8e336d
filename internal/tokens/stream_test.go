package tokens

import (
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/repoprep/repoprep/internal/testkit"
)

// A Counter fed a text in any parts totals Count of the whole text, as
// long as no mebibyte of it passes without a cut.
func TestCounterExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	texts := slices.Sorted(maps.Values(exactCases))
	if files, _ := filepath.Glob(filepath.Join(testkit.GoSrc(t), "bufio", "*.go")); len(files) > 0 {
		var all strings.Builder
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			all.Write(data)
		}
		texts = append(texts, all.String()) // several batches of 64 KiB
	}
	// Lines that start with "//" or a blank line are not cuts: a batch
	// must end elsewhere.
	texts = append(texts, strings.Repeat("x := 1\n// comment\n\n", 20000))
	for i, text := range texts {
		var c Counter
		for rest := text; len(rest) > 0; {
			n := min(len(rest), 1+rng.IntN(100_000))
			c.Write([]byte(rest[:n]))
			rest = rest[n:]
		}
		if got, want := c.Total(), Count(text); got != want {
			t.Errorf("text %d (%d bytes): Counter = %d, Count = %d", i, len(text), got, want)
		}
	}
}

// A text with no cut for over a mebibyte is counted in parts that end on
// a newline or a rune boundary: memory stays bounded and the total stays
// within a token per part of Count.
func TestCounterWithoutCuts(t *testing.T) {
	// 2.8 and 1.6 MB in make test's whole pass; under -short (the race pass)
	// 1.1 MB each, still over counterMaxPendingBytes.
	lines, slashes := 400_000, 400_000
	if testing.Short() {
		lines, slashes = 160_000, 280_000
	}
	for name, text := range map[string]string{
		"one line":    strings.Repeat("é abc ", lines),
		"slash lines": strings.Repeat("x\n//", slashes),
	} {
		if len(text) <= counterMaxPendingBytes {
			t.Fatalf("%s: %d bytes, not over counterMaxPendingBytes", name, len(text))
		}
		var c Counter
		for i := 0; i < len(text); i += 4096 {
			c.Write([]byte(text[i:min(i+4096, len(text))]))
			if len(c.pending) > 2*counterMaxPendingBytes {
				t.Fatalf("%s: %d bytes pending", name, len(c.pending))
			}
		}
		got, want := c.Total(), Count(text)
		if parts := len(text)/counterMaxPendingBytes + 1; got < want-parts || got > want+parts {
			t.Errorf("%s: Counter = %d, Count = %d", name, got, want)
		}
	}
}
