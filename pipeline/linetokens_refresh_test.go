package pipeline

import (
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
)

// TestRefreshCarriesLineTokens: a refresh counts the line tokens of the
// texts it changed only, taking the others from the previous
// linetokens.index the refresh state vouches for, and publishes what
// --full publishes; a previous index changed since (one byte) is not used
// at all.
func TestRefreshCarriesLineTokens(t *testing.T) {
	cases := []struct {
		name   string
		tamper bool
		want   func(counted []string, staged int) bool
	}{
		{name: "one edit", want: func(c []string, _ int) bool { return slices.Equal(c, []string{"main.go"}) }},
		{name: "one edit, the previous index changed", tamper: true, want: func(c []string, staged int) bool { return len(c) == staged }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			noRacyWindow(t)
			src := unchangedTree(t)
			out := filepath.Join(t.TempDir(), "out")
			runOpts(t, refreshOpts(src, out))
			writeU(t, filepath.Join(src, "main.go"), "package main\n\nfunc main() { println(2) }\n")
			if c.tamper {
				name := filepath.Join(out, "linetokens.index")
				b, err := os.ReadFile(name)
				mustU(t, err)
				b[10] ^= 1 // in the first file's data
				mustU(t, os.WriteFile(name, b, 0o644))
			}
			var mu sync.Mutex
			var counted []string
			countingFile = func(p string) { mu.Lock(); counted = append(counted, p); mu.Unlock() }
			t.Cleanup(func() { countingFile = nil })
			res := runOpts(t, refreshOpts(src, out))
			countingFile = nil
			staged := 0
			for _, e := range res.Manifest.Files {
				if e.Staged {
					staged++
				}
			}
			slices.Sort(counted)
			if !c.want(counted, staged) {
				t.Errorf("counted %q of %d staged texts", counted, staged)
			}
			full := filepath.Join(t.TempDir(), "full")
			o := refreshOpts(src, full)
			o.Full = true
			runOpts(t, o)
			sameSnapshot(t, out, full)
		})
	}
}
