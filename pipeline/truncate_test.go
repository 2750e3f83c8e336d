package pipeline

import (
	"bytes"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/repoprep/repoprep/internal/extract"
	xt "github.com/repoprep/repoprep/internal/extract/extracttest"
	"github.com/repoprep/repoprep/report"
	"github.com/repoprep/repoprep/snapshot"
)

// withExtractLimits runs the test's pipeline runs under lim.
func withExtractLimits(t *testing.T, lim extract.Limits) {
	prev := extractLimits
	extractLimits = lim
	t.Cleanup(func() { extractLimits = prev })
}

// TestDocumentsTruncated: documents past a work limit (a PDF past the
// page limit, a Word document past the text limit) are staged with the
// text before the limit and a closing marker, and files.json says what
// was left out in "truncated", valid against the schema. A refresh takes
// them as they were, and publishes what a full run does.
func TestDocumentsTruncated(t *testing.T) {
	xt.SkipPDFUnderRace(t)
	noRacyWindow(t)
	withExtractLimits(t, extract.Limits{MaxPages: 3, MaxTextBytes: 4096})
	var pages [][]string
	for i := range 8 {
		pages = append(pages, []string{fmt.Sprintf("Page %d of the manual", i+1)})
	}
	var paras []string
	for i := range 300 {
		paras = append(paras, fmt.Sprintf("Clause %d: the supplier keeps the records for seven years.", i+1))
	}
	src := t.TempDir()
	writeFiles(t, src, map[string]string{
		"docs/manual.pdf":    string(xt.PDF(t, pages, xt.PDFOptions{Compressed: true})),
		"docs/contract.docx": string(xt.DOCX(t, paras...)),
		"docs/short.pdf":     string(xt.PDF(t, pages[:2], xt.PDFOptions{})),
		"main.go":            "package main\n",
	})
	out := filepath.Join(t.TempDir(), "out")
	opts := refreshOpts(src, out)
	res := runOpts(t, opts)
	want := map[string]struct{ left, last, past string }{
		"docs/manual.pdf":    {"pages 4–8 not extracted: page limit 3", "Page 3 of the manual", "Page 4"},
		"docs/contract.docx": {"rest not extracted: text limit 4096 bytes", "Clause 1:", "Clause 300:"},
	}
	check := func(res *Result) {
		t.Helper()
		byPath := map[string]snapshot.Entry{}
		for _, e := range res.Manifest.Files {
			byPath[e.Path] = e
		}
		for p, w := range want {
			e := byPath[p]
			if !e.Staged || e.Truncated != w.left || e.Err != "" || e.Reason == extract.ReasonOverLimit || e.ExtractedFrom == "" {
				t.Errorf("%s: %+v, want staged and truncated %q", p, e, w.left)
			}
			text, err := os.ReadFile(filepath.Join(out, "tree", p))
			if err != nil || !strings.HasSuffix(string(text), "\n\n[… "+w.left+"]\n") || !strings.Contains(string(text), w.last) || strings.Contains(string(text), w.past) {
				t.Errorf("%s: staged text (err %v):\n%s", p, err, text)
			}
		}
		if e := byPath["docs/short.pdf"]; !e.Staged || e.Truncated != "" {
			t.Errorf("a PDF within the limit: %+v", e)
		}
	}
	check(res)
	files, err := os.ReadFile(filepath.Join(out, "files.json"))
	if err != nil || !bytes.Contains(files, []byte(`"truncated": "pages 4–8 not extracted: page limit 3"`)) {
		t.Errorf("files.json lacks the PDF's truncated field (err %v)", err)
	}
	// REPO_MAP says that documents were cut short, and where to look.
	if m, err := os.ReadFile(filepath.Join(out, "REPO_MAP.md")); err != nil || !bytes.Contains(m, []byte("2 cut short at a work limit (`truncated` in files.json")) {
		t.Errorf("REPO_MAP.md does not say two documents were cut short (err %v):\n%s", err, m)
	}
	validateOut(t, compileSchemas(t), out)

	// The refresh takes both as they were, truncated field and all.
	res = runOpts(t, opts)
	if r := res.Report.Refresh; r.Previous != report.PreviousUsed || r.Reused != len(res.Manifest.Files) {
		t.Errorf("refresh reused %d of %d (%s, not reused %v)", r.Reused, len(res.Manifest.Files), r.Previous, r.NotReused)
	}
	check(res)
	full := filepath.Join(t.TempDir(), "full")
	runOpts(t, refreshOpts(src, full))
	sameSnapshot(t, out, full)
}

// TestTimeGuardWarns: a document refused by extraction's time guard (set
// absurdly short here) is refused in files.json as over-limit with an
// error naming the guard, and the run logs a warning naming the file;
// since the guard is not a work limit, a refresh reads the document again
// (and warns again) instead of keeping the refusal.
func TestTimeGuardWarns(t *testing.T) {
	noRacyWindow(t)
	withExtractLimits(t, extract.Limits{Timeout: time.Nanosecond})
	src := t.TempDir()
	writeFiles(t, src, map[string]string{
		"docs/memo.rtf": `{\rtf1 ` + strings.Repeat(`\par a line of the memo `, 50_000) + "}",
		"main.go":       "package main\n",
	})
	out := filepath.Join(t.TempDir(), "out")
	for _, run := range []string{"full", "refresh"} {
		var log bytes.Buffer
		opts := refreshOpts(src, out)
		opts.Logger = slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelWarn}))
		res := runOpts(t, opts)
		var memo snapshot.Entry
		for _, e := range res.Manifest.Files {
			if e.Path == "docs/memo.rtf" {
				memo = e
			}
		}
		if memo.Staged || memo.Reason != extract.ReasonOverLimit || !strings.Contains(memo.Err, "safety guard") || memo.Truncated != "" {
			t.Errorf("%s run: %+v, want refused by the safety guard", run, memo)
		}
		if !strings.Contains(log.String(), "level=WARN") || !strings.Contains(log.String(), "docs/memo.rtf") || !strings.Contains(log.String(), "safety guard") {
			t.Errorf("%s run logged no warning naming docs/memo.rtf and the guard:\n%s", run, log.String())
		}
		if r := res.Report.Refresh; run == "refresh" && r.NotReused[report.NotReusedError] != 1 {
			t.Errorf("refresh: not reused %v, want the guarded document read again (had-error)", r.NotReused)
		}
	}
}
