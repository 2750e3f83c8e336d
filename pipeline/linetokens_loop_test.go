package pipeline

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/repoprep/repoprep/snapshot"
)

// TestLoopCountsLineTokens: the per-file loop makes every staged text's
// line-token data where it counts the text (held in memory, streamed past
// the loop's read cap, or read back from its staged copy when the count
// was put off while the tokenizer's tables were built), and the index
// stage copies it: no staged text is counted again from its copy but the
// ones changed after the loop (a redacted copy), and linetokens.index
// holds every staged line's count (snapshot.Verify counts them again).
// Before, every staged text was counted again from its copy after the
// loop.
func TestLoopCountsLineTokens(t *testing.T) {
	token := randFrom(t, alnum, 40)
	files := map[string]string{
		"main.go":            "package main\n\nfunc main() {\n\tprintln(\"hi\")\n}\n",
		"lib/a.go":           "package lib\n\n// A is a.\nfunc A() int { return 1 }\n",
		"lib/copy.go":        "package lib\n\n// A is a.\nfunc A() int { return 1 }\n", // a duplicate
		"docs/notes.md":      "# Notes\n\n注释 and prose.\r\nNo newline at the end",
		"docs/empty.txt":     "",
		"big.txt":            strings.Repeat("a line of a text streamed past the loop's read cap\n", 24_000), // 1.2 MiB
		"config/settings.py": "API_KEY = \"" + token + "\"\n",
	}
	cases := []struct {
		name  string
		setup func(t *testing.T) func() // the check it returns runs after the run
	}{
		{"counted at once", func(t *testing.T) func() { countsAtOnce(t); return func() {} }},
		{"every count put off", func(t *testing.T) func() { return putCountsOff(t, math.MaxInt64) }},
		{"counts put off, then taken", func(t *testing.T) func() { return putCountsOff(t, 3) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := t.TempDir()
			writeFiles(t, src, files)
			var mu sync.Mutex
			var fromCopy []string
			prev := countingCopy
			countingCopy = func(p string) { mu.Lock(); fromCopy = append(fromCopy, p); mu.Unlock() }
			t.Cleanup(func() { countingCopy = prev })
			check := c.setup(t)
			out := filepath.Join(t.TempDir(), "out")
			res := runFixture(t, src, out, func(o *Options) { o.MaxTextBytes = 4 << 20 })
			check()
			countingCopy = prev
			staged := 0
			for _, e := range res.Manifest.Files {
				if e.Staged {
					staged++
				}
			}
			if staged < 5 {
				t.Fatalf("%d staged texts, want the fixture's", staged)
			}
			slices.Sort(fromCopy)
			if want := []string{"config/settings.py"}; !slices.Equal(fromCopy, want) {
				t.Errorf("counted from their staged copies: %q, want only the redacted %q", fromCopy, want)
			}
			if drifts, err := snapshot.Verify(t.Context(), out); err != nil || len(drifts) != 0 {
				t.Errorf("verify: %v %v", drifts, err)
			}
			entries, err := os.ReadDir(out)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range entries {
				if strings.Contains(e.Name(), "spill") {
					t.Errorf("OUT holds %s: the spill is published", e.Name())
				}
			}
		})
	}
}

// TestLoopLineTokensSameIndex: linetokens.index made from the loop's
// spill is byte for byte the one counted from the staged copies (the old
// way), at one worker and at three.
func TestLoopLineTokensSameIndex(t *testing.T) {
	src := fixtureTree(t)
	writeU(t, filepath.Join(src, "big2.txt"), strings.Repeat("x := f(y) // 注释\n", 80_000))
	indexOf := func(workers int, spill bool) []byte {
		out := filepath.Join(t.TempDir(), "out")
		if !spill {
			noSpill = true
			defer func() { noSpill = false }()
		}
		runFixture(t, src, out, func(o *Options) { o.Workers = workers; o.FingerprintKey = testFingerprintKey })
		b, err := os.ReadFile(filepath.Join(out, snapshot.LineTokens))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	want := indexOf(2, false)
	for _, workers := range []int{1, 3} {
		if got := indexOf(workers, true); string(got) != string(want) {
			t.Errorf("workers %d: linetokens.index from the loop differs from the one counted from the copies (%d and %d bytes)", workers, len(got), len(want))
		}
	}
}
