package pipeline

import (
	"bytes"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/unicode"

	"github.com/repoprep/repoprep/internal/extract/extracttest"
	"github.com/repoprep/repoprep/internal/secrets/secrettest"
	"github.com/repoprep/repoprep/internal/testkit"
	"github.com/repoprep/repoprep/snapshot"
)

// hardTree builds a tree with every case the per-file loop must get right:
// legacy encodings, UTF-16, CRLF and lone CR, files that differ only in
// encoding (duplicates after normalize), plain duplicates, secrets of
// every default rule in several copies and as bare values elsewhere, a
// secret in a file name, texts over the loop's 1 MiB read cap (streamed),
// over redact's 4 MiB recount bound (not under -short) and on one line,
// documents and their copies, binary, empty, minified, mojibake and
// undecodable files, a vendored directory, ignored files, symlinks, a
// FIFO and a name that is not UTF-8. Secrets are random, made at test time.
func hardTree(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "hard")
	enc := func(e interface{ String(string) (string, error) }, s string) string {
		out, err := e.String(s)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	chinese := "这是一个用于测试的中文文档。\r\n编码转换应当准确无误。\r\n"
	samples := secrettest.Samples()
	var all strings.Builder
	for _, s := range samples {
		all.WriteString("x = 1\n" + s.Text + "\n")
	}
	key := samples[0].Secret // an AWS access key id
	token := samples[3].Secret
	line := "func f(a, b int) int { return a*b + 42 } // ordinary Go, repeated\n"
	big := strings.Repeat(line, (1<<20)/len(line)) + "token: " + token + "\n" + strings.Repeat(line, 5000)
	hugeBytes := 5 << 20
	if testing.Short() {
		// The race pass: still streamed, not over the recount bound (the
		// whole pass covers that); the 5 MiB cost 8 s under the detector.
		hugeBytes = 1<<20 + 64<<10
	}
	huge := strings.Repeat(line, hugeBytes/len(line)) + "key_id: " + key + "\n"
	oneLine := `{"data":[` + strings.Repeat(`"abcdefghij",`, (1<<20)/13) + `"` + key + `"]}`
	bigGBK := enc(simplifiedchinese.GBK.NewEncoder(), strings.Repeat("编码转换应当准确无误。这是一个测试。\n", 40000))
	docx := string(extracttest.DOCX(t, "A document that mentions "+key+"."))
	files := map[string]string{
		"go.mod":                        "module example.com/hard\n\ngo 1.22\n",
		"cmd/app/main.go":               "package main\n\nconst id = \"" + key + "\"\n\nfunc main() {}\n",
		"cmd/app/copy/main.go":          "package main\n\nconst id = \"" + key + "\"\n\nfunc main() {}\n",
		"notes/bare-value.txt":          "the value again, with no context: " + key + "\nand " + token + "\n",
		"secrets/all.txt":               all.String(),
		"secrets/copy/all.txt":          all.String(),
		"docs/zh-gbk.txt":               enc(simplifiedchinese.GBK.NewEncoder(), chinese),
		"docs/zh-utf8-crlf.txt":         chinese,
		"docs/zh-utf8.txt":              strings.ReplaceAll(chinese, "\r\n", "\n"),
		"docs/ja-sjis.txt":              enc(japanese.ShiftJIS.NewEncoder(), "日本語のテキストです。\r\nもう一行。\r\n"),
		"docs/utf16.txt":                enc(unicode.UTF16(unicode.LittleEndian, unicode.UseBOM).NewEncoder(), "Notes in UTF-16.\r\nSecond line.\r\n"),
		"docs/lone-cr.txt":              "one\rtwo\rthree\r",
		"docs/mojibake.txt":             "Caf\u00c3\u00a9 cr\u00c3\u00a8me br\u00c3\u00bbl\u00c3\u00a9e\n",
		"docs/undecodable.txt":          "\xff\xfe\xfd\x80\x81 not text in any charset \x90\x91\x92\x93\n",
		"docs/nul.txt":                  "text\x00with a NUL\n",
		"docs/spec.docx":                docx,
		"docs/copy/spec.docx":           docx,
		"big/streamed.txt":              big,
		"big/recounted-as-stream.txt":   huge,
		"big/one-line.json":             oneLine,
		"big/gbk-streamed.txt":          bigGBK,
		"vendor/modules.txt":            "# example.com/dep v1.0.0\n",
		"vendor/example.com/dep/dep.go": "package dep\n",
		"node_modules/x/index.js":       "module.exports = 1\n",
		".gitignore":                    "*.log\n",
		"debug.log":                     "noise\n",
		"empty.txt":                     "",
		"web/app.min.js":                "var a=1;" + strings.Repeat("b", 600) + "\n",
		"assets/logo.png":               "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x02\x00\x00\x00" + strings.Repeat("\x00", 40),
		"creds/" + token + ".txt":       "a file named after a token\n",
		"pii/contacts.txt":              samples[len(samples)-4].Text + "\n" + "ip " + "10.1.2.3" + "\n",
	}
	testkit.WriteTree(t, dir, files)
	if err := os.Symlink("cmd/app/main.go", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	testkit.Mkfifo(t, filepath.Join(dir, "pipe"))
	if err := os.WriteFile(filepath.Join(dir, "bad\xffname.txt"), []byte("named badly\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestHardTree runs the hard tree in every secrets mode twice, once with
// every count taken at once and once with the first counts put off as
// while the tokenizer's tables are built: the two snapshots are the same
// byte for byte (the schedule changes nothing), verify finds them whole,
// and the tree still holds every case it is for. Golden snapshots of real
// trees (TestRealTreesGolden) pin what the loop publishes.
func TestHardTree(t *testing.T) {
	src := hardTree(t)
	for _, mode := range []string{SecretsRedact, SecretsReport, SecretsExclude} {
		t.Run(mode, func(t *testing.T) {
			if testing.Short() && mode != SecretsRedact {
				t.Skip("-short runs redact only")
			}
			ref := filepath.Join(t.TempDir(), "ref")
			got := filepath.Join(t.TempDir(), "got")
			opts := func(o *Options) { o.Secrets, o.FingerprintKey = mode, []byte("a fixed key for both runs") }
			countsAtOnce(t)
			runFixture(t, src, ref, opts)
			check := putCountsOff(t, 30)
			res := runFixture(t, src, got, opts)
			check()
			compareSnapshots(t, ref, got)
			if drifts, err := snapshot.Verify(t.Context(), got); err != nil || len(drifts) > 0 {
				t.Errorf("verify: %v %v", drifts, err)
			}
			if mode == SecretsRedact {
				checkHardTreeCovered(t, res.Manifest)
			}
		})
	}
}

// checkHardTreeCovered fails when the hard tree no longer exercises what
// it is for, so the comparison cannot pass by testing less.
func checkHardTreeCovered(t *testing.T, m *snapshot.Manifest) {
	t.Helper()
	var streamed, duplicates, redacted, documents, legacy int
	for _, e := range m.Files {
		switch {
		case e.Staged && e.Size > 1<<20:
			streamed++
		}
		if e.DuplicateOf != "" {
			duplicates++
		}
		if e.Secrets > 0 && (e.Staged || e.DuplicateOf != "") {
			redacted++
		}
		if e.ExtractedFrom != "" && (e.Staged || e.DuplicateOf != "") {
			documents++
		}
		if e.Encoding == "gbk" || e.Encoding == "shift_jis" || e.Encoding == "utf-16le" {
			legacy++
		}
	}
	for _, c := range []struct {
		what      string
		got, want int
	}{
		{"staged files over the 1 MiB read cap", streamed, 4},
		{"duplicates", duplicates, 5},
		{"files with secrets", redacted, 8},
		{"documents", documents, 2},
		{"legacy or UTF-16 encodings", legacy, 4},
	} {
		if c.got < c.want {
			t.Errorf("the hard tree has %d %s, want at least %d", c.got, c.what, c.want)
		}
	}
}

// compareSnapshots fails on any difference between two snapshots but in
// report.json and the refresh state (both hold the run's times).
func compareSnapshots(t *testing.T, want, got string) {
	t.Helper()
	wantFiles, gotFiles := snapshotFiles(t, want), snapshotFiles(t, got)
	for name, w := range wantFiles {
		g, ok := gotFiles[name]
		switch {
		case !ok:
			t.Errorf("%s: missing from %s", name, got)
		case !bytes.Equal(w, g):
			t.Errorf("%s differs from %s's:\n%s", name, want, firstDiff(w, g))
		}
	}
	for name := range gotFiles {
		if _, ok := wantFiles[name]; !ok {
			t.Errorf("%s: only in %s", name, got)
		}
	}
}

// snapshotFiles reads every file and directory of a snapshot but
// report.json and the refresh state; directories map to nil.
func snapshotFiles(t *testing.T, root string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == root {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		switch {
		case d.IsDir():
			out[rel+"/"] = nil
		case !slices.Contains(snapshot.Volatile, rel):
			out[rel], err = os.ReadFile(p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// firstDiff shows the first line that differs.
func firstDiff(a, b []byte) string {
	al, bl := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := range min(len(al), len(bl)) {
		if al[i] != bl[i] {
			return "line " + strconv.Itoa(i+1) + ":\n- " + clip(al[i]) + "\n+ " + clip(bl[i])
		}
	}
	return "one is a prefix of the other (" + strconv.Itoa(len(al)) + " vs " + strconv.Itoa(len(bl)) + " lines)"
}

func clip(s string) string {
	if len(s) > 300 {
		return s[:300] + "…"
	}
	return s
}

// While the tokenizer's tables are being built, the loop leaves counts for
// later instead of waiting (stages.Env.TokensReady). The snapshot is the
// same byte for byte when every count waits for the loop's end.
// TestHardTree covers tables that turn ready halfway.
func TestCountsLeftForLater(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: TestHardTree covers it")
	}
	src := hardTree(t)
	// A streamed text with no cut for over a MiB: its count depends on
	// where its batches end, so it must be counted in the decoder's.
	if err := os.WriteFile(filepath.Join(src, "big", "one-line-cjk.txt"), []byte(strings.Repeat("ab汉", 900_000)), 0o644); err != nil {
		t.Fatal(err)
	}
	fixed := func(o *Options) { o.FingerprintKey = []byte("a fixed key for both runs") }
	ref := filepath.Join(t.TempDir(), "ref")
	countsAtOnce(t)
	runFixture(t, src, ref, fixed)
	check := putCountsOff(t, math.MaxInt64)
	got := filepath.Join(t.TempDir(), "got")
	runFixture(t, src, got, fixed)
	check()
	compareSnapshots(t, ref, got)
}

// countsAtOnce makes the loop's tokensReady say yes, so every count is
// taken in normalize (waiting for the tables if need be), until the test
// ends or putCountsOff.
func countsAtOnce(t *testing.T) {
	prev := tokensReady
	t.Cleanup(func() { tokensReady = prev })
	tokensReady = func() bool { return true }
}

// putCountsOff makes the loop's tokensReady say no to its first n calls,
// as while the tables are built, and yes after, until the test ends. The
// function it returns fails the test if the loop did not ask both ways
// (only no, for an n it never reaches).
func putCountsOff(t *testing.T, n int64) (check func()) {
	t.Helper()
	var calls, no atomic.Int64
	prev := tokensReady
	t.Cleanup(func() { tokensReady = prev })
	tokensReady = func() bool {
		if calls.Add(1) > n {
			return true
		}
		no.Add(1)
		return false
	}
	return func() {
		t.Helper()
		if no.Load() == 0 || (n < math.MaxInt64 && calls.Load() <= n) {
			t.Fatalf("tokensReady said no %d times of %d: the run did not put counts off as the test says", no.Load(), calls.Load())
		}
	}
}
