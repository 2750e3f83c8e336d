package pipeline

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/repoprep/repoprep/snapshot"
)

// TestLineTokensWritten: a run writes linetokens.index with every staged
// file's line counts (Verify recounts them from the staged texts), and a
// refresh whose previous index was forged, damaged or removed writes the
// one a full run writes.
func TestLineTokensWritten(t *testing.T) {
	noRacyWindow(t)
	files := map[string]string{
		"main.go":        "package main\n\nfunc main() {\n\tprintln(\"hi\")\n}\n",
		"docs/guide.md":  "# Guide\n\n中文文本，用于测试。\nno final newline",
		"empty.txt":      "",
		"big.txt":        strings.Repeat("a line of an oversize file\n", 200),
		"notes/long.txt": strings.Repeat("word ", 20000) + "\n",
	}
	src := filepath.Join(t.TempDir(), "repo")
	writeFiles(t, src, files)
	full := filepath.Join(t.TempDir(), "full")
	runOpts(t, refreshOpts(src, full))
	drifts, err := snapshot.Verify(context.Background(), full)
	if err != nil || len(drifts) > 0 {
		t.Fatalf("a full run: %v %q", err, drifts)
	}
	snap, err := snapshot.Open(full)
	if err != nil {
		t.Fatal(err)
	}
	m, _, err := snap.Manifest()
	if err != nil {
		t.Fatal(err)
	}
	ix, err := snap.LineTokens(m)
	if err != nil {
		t.Fatal(err)
	}
	staged := 0
	for _, e := range m.Files {
		if e.Staged {
			staged++
		}
	}
	if ix.Files() != staged || staged < 4 {
		t.Errorf("the token index lists %d files, want the %d staged", ix.Files(), staged)
	}
	ix.Close()
	snap.Close()

	for name, spoil := range map[string]func(t *testing.T, name string){
		"damaged": func(t *testing.T, name string) {
			data, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			data[10] ^= 1
			os.Remove(name)
			if err := os.WriteFile(name, data, 0o644); err != nil {
				t.Fatal(err)
			}
		},
		"removed": func(t *testing.T, name string) { os.Remove(name) },
		"of another tree": func(t *testing.T, name string) {
			os.Remove(name)
			if err := os.WriteFile(name, []byte("RPLTOK1\n"+strings.Repeat("\x00", 48)+"RPLTOK1\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		},
	} {
		t.Run(name, func(t *testing.T) {
			// Each case its own tree, so they run two at a time (the
			// windows noRacyWindow set are put back after all of them).
			t.Parallel()
			src := filepath.Join(t.TempDir(), "repo")
			writeFiles(t, src, files)
			out := filepath.Join(t.TempDir(), "out")
			runOpts(t, refreshOpts(src, out))
			spoil(t, filepath.Join(out, snapshot.LineTokens))
			// An edit, so that the refresh publishes whatever it makes of
			// an unchanged tree.
			writeFiles(t, src, map[string]string{"notes/new.txt": name + "\n"})
			runOpts(t, refreshOpts(src, out))
			fresh := filepath.Join(t.TempDir(), "fresh")
			runOpts(t, refreshOpts(src, fresh))
			got, err1 := os.ReadFile(filepath.Join(out, snapshot.LineTokens))
			want, err2 := os.ReadFile(filepath.Join(fresh, snapshot.LineTokens))
			if err1 != nil || err2 != nil || !bytes.Equal(got, want) {
				t.Fatalf("the refresh's token index is not the full run's (%v, %v)", err1, err2)
			}
			if drifts, err := snapshot.Verify(context.Background(), out); err != nil || len(drifts) > 0 {
				t.Fatalf("after the refresh: %v %q", err, drifts)
			}
		})
	}
}
