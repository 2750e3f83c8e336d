package pipeline

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/text/encoding/traditionalchinese"

	"github.com/repoprep/repoprep/report"
	"github.com/repoprep/repoprep/snapshot"
)

// Shapes of a Taiwanese BBS's files (pttbbs), written for the test: a
// comment of two Big5 characters, which alone reads as the Thai of
// Windows-874, and ANSI art of Big5's symbol rows between colour codes,
// which alone is refused.
var bbsArt = map[string]string{
	"mbbsd/tag.c":      "/* Tag List 標籤 */\n",
	"etc/chickens/i4":  "\n\x1b[1m坐起來嘍~\x1b[m\n\n\n\n              ▄▅▆▅▄\n",
	"etc/chickens/e13": "             \x1b[1;32m◢◢◢                \x1b[37m  ◢\n",
}

// big5Tree writes n Big5 C files with comments long enough to decide
// alone, and the BBS art, in Big5, under src.
func big5Tree(t *testing.T, src string, n int) {
	t.Helper()
	enc := traditionalchinese.Big5.NewEncoder()
	files := map[string]string{}
	for i := range n {
		text := fmt.Sprintf("/* 第%d個程式：處理使用者的登入與登出，並記錄每一次連線的時間。 */\nint f%d(void) { return %d; } /* 傳回目前的狀態 */\n", i, i, i)
		files[fmt.Sprintf("mbbsd/f%d.c", i)] = text
	}
	for p, text := range bbsArt {
		files[p] = text
	}
	for p, text := range files {
		b, err := enc.String(text)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		files[p] = b
	}
	writeFiles(t, src, files)
}

// stagedArt returns, for each BBS art file, whether it is staged as the
// Big5 text it is, and what files.json says of it.
func stagedArt(t *testing.T, out string) map[string]string {
	t.Helper()
	m, err := snapshot.ReadManifest(out)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, e := range m.Files {
		want, ok := bbsArt[e.Path]
		if !ok {
			continue
		}
		b, err := os.ReadFile(filepath.Join(out, snapshot.TreeDir, filepath.FromSlash(e.Path)))
		switch {
		case err == nil && e.Staged && e.Encoding == "big5" && string(b) == want:
			got[e.Path] = "right"
		case e.Staged:
			got[e.Path] = "garbled as " + e.Encoding
		default:
			got[e.Path] = "refused: " + e.Reason
		}
	}
	return got
}

// TestEncodingPriorDecidesWeakFiles: in a repository of Big5 files, a
// two-character comment and short ANSI drawings of Big5 symbols (which
// alone read as Windows-874 or are refused) are staged as the Big5 they
// are, whatever the number of workers. Before the pass after the loop,
// each was garbled or refused.
func TestEncodingPriorDecidesWeakFiles(t *testing.T) {
	src := filepath.Join(t.TempDir(), "repo")
	big5Tree(t, src, 12)
	var first []byte
	for _, workers := range []int{3, 1} {
		if testing.Short() && workers == 1 {
			continue // -short (the race pass): the pool that runs concurrently; the whole pass compares both
		}
		out := filepath.Join(t.TempDir(), "out")
		runOpts(t, Options{Root: src, OutDir: out, Workers: workers, Version: "test"})
		for p, v := range stagedArt(t, out) {
			if v != "right" {
				t.Errorf("workers %d: %s: %s", workers, p, v)
			}
		}
		b, err := os.ReadFile(filepath.Join(out, snapshot.FilesJSON))
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = b
		} else if string(b) != string(first) {
			t.Errorf("files.json with %d workers differs from three workers'", workers)
		}
	}

	// Alone (too few Big5 files for a prior), they are not read right:
	// the prior is what decides them.
	alone := filepath.Join(t.TempDir(), "alone")
	big5Tree(t, alone, 2)
	out := filepath.Join(t.TempDir(), "out-alone")
	runOpts(t, Options{Root: alone, OutDir: out, Version: "test"})
	for p, v := range stagedArt(t, out) {
		if v == "right" {
			t.Errorf("%s is right without a prior: the test shows nothing", p)
		}
	}
}

// TestRefreshFollowsEncodingPrior: a refresh decides a reused weak file
// again when a change to other files moves the repository's prior: the
// prior goes (a Big5 file removed leaves seven), and comes back (a Big5
// file added), and each refresh publishes what a full run does.
func TestRefreshFollowsEncodingPrior(t *testing.T) {
	noRacyWindow(t)
	src := filepath.Join(t.TempDir(), "repo")
	big5Tree(t, src, 8)
	out := filepath.Join(t.TempDir(), "out")
	runOpts(t, refreshOpts(src, out))
	if v := stagedArt(t, out)["etc/chickens/i4"]; v != "right" {
		t.Fatalf("first run: i4 %s", v)
	}
	steps := []struct {
		name   string
		change func(t *testing.T)
		want   string // i4's verdict after the refresh
		again  int    // reused weak files decided again: report.json's not_reused encoding-prior
	}{
		{"a Big5 file removed: no prior", func(t *testing.T) {
			if err := os.Remove(filepath.Join(src, "mbbsd", "f7.c")); err != nil {
				t.Fatal(err)
			}
		}, "", len(bbsArt)},
		{"a Big5 file added: the prior again", func(t *testing.T) {
			b, err := traditionalchinese.Big5.NewEncoder().String("/* 新增的檔案：說明如何設定系統的參數與環境變數。 */\nint g(void) { return 0; }\n")
			if err != nil {
				t.Fatal(err)
			}
			writeFiles(t, src, map[string]string{"mbbsd/g.c": b})
		}, "right", len(bbsArt)},
		{"nothing changed", func(t *testing.T) {}, "right", 0},
	}
	// -short (the race pass) compares with --full only where the prior
	// comes back, the step that decides the weak files again and stages
	// them as Big5; the whole pass compares every step.
	for _, step := range steps {
		t.Run(step.name, func(t *testing.T) {
			step.change(t)
			res := runOpts(t, refreshOpts(src, out))
			rf := res.Report.Refresh
			if rf.Previous != report.PreviousUsed || rf.Reused == 0 {
				t.Fatalf("not a refresh: %+v", rf)
			}
			if rf.NotReused[report.NotReusedPrior] != step.again {
				t.Errorf("not_reused %v; want %s %d (reused %d)", rf.NotReused, report.NotReusedPrior, step.again, rf.Reused)
			}
			read := rf.Reused
			for _, n := range rf.NotReused {
				read += n
			}
			if m, err := snapshot.ReadManifest(out); err != nil || read != len(m.Files) {
				t.Errorf("reused and not reused add up to %d; files.json has %d files (%v)", read, len(m.Files), err)
			}
			if !testing.Short() || step.want == "right" && step.again > 0 {
				full := refreshOpts(src, filepath.Join(t.TempDir(), "full"))
				full.Full = true
				runOpts(t, full)
				sameSnapshot(t, out, full.OutDir)
			}
			v := stagedArt(t, out)["etc/chickens/i4"]
			if step.want == "right" && v != "right" || step.want == "" && v == "right" {
				t.Errorf("i4: %s after the refresh", v)
			}
		})
	}
}

// TestExplainFollowsEncodingPrior: explain reports what the run decides
// for every file of a Big5 tree, including the BBS art the repository
// prior decides (explain decided each file alone, and called the art
// refused or Windows-874), and names the prior; a file decided alone has
// none.
func TestExplainFollowsEncodingPrior(t *testing.T) {
	src := filepath.Join(t.TempDir(), "repo")
	big5Tree(t, src, 12)
	out := filepath.Join(t.TempDir(), "out")
	res := runOpts(t, Options{Root: src, OutDir: out, Version: "test"})
	var paths []string
	for _, e := range res.Manifest.Files {
		paths = append(paths, e.Path)
	}
	xs, err := Explain(t.Context(), ExplainOptions{Root: src}, paths)
	if err != nil {
		t.Fatal(err)
	}
	byPrior := 0
	for i, e := range res.Manifest.Files {
		x := xs[i]
		if x.Category != e.Category || x.Reason != e.Reason || x.Staged != e.Staged || x.Encoding != e.Encoding {
			t.Errorf("%s: explain says %s/%s staged=%v %q, the run %s/%s staged=%v %q",
				e.Path, x.Category, x.Reason, x.Staged, x.Encoding, e.Category, e.Reason, e.Staged, e.Encoding)
		}
		_, art := bbsArt[e.Path]
		if art != (x.EncodingPrior == "big5") {
			t.Errorf("%s: encoding prior %q", e.Path, x.EncodingPrior)
		}
		if x.EncodingPrior != "" {
			byPrior++
		}
	}
	if byPrior != len(bbsArt) {
		t.Errorf("%d files explained as decided by the prior; want %d", byPrior, len(bbsArt))
	}
}
