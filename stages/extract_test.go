package stages

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/repoprep/repoprep/internal/extract"
	xt "github.com/repoprep/repoprep/internal/extract/extracttest"
)

// processDocument runs the one-read loop on one document under lim, and
// returns its record and the Env (for its warnings).
func processDocument(t *testing.T, name string, data []byte, lim extract.Limits) (*Record, *Env, string) {
	t.Helper()
	src, out := t.TempDir(), t.TempDir()
	writeTree(t, src, map[string]string{name: string(data)})
	env := &Env{Src: openRoot(t, src), TreeDir: out, Rules: defaultRules(t), MaxTextBytes: 1 << 20, Extract: lim}
	t.Cleanup(func() { env.Close() })
	rec := NewRecord(name, name, int64(len(data)))
	if err := env.Process(context.Background(), rec, NewWorkerSet(1).Get(), &Clock{}); err != nil {
		t.Fatal(err)
	}
	return rec, env, filepath.Join(out, filepath.FromSlash(name))
}

// TestExtractTruncated: a document whose text reaches a work limit after
// some was written is staged cut short, its last line the marker, and its
// record says what was left out; no error, and nothing for a refresh to
// remember as a limit refusal.
func TestExtractTruncated(t *testing.T) {
	var paras []string
	for i := range 300 {
		paras = append(paras, fmt.Sprintf("Clause %d: the supplier keeps the records for seven years.", i+1))
	}
	rec, env, staged := processDocument(t, "docs/contract.docx", xt.DOCX(t, paras...), extract.Limits{MaxTextBytes: 4096})
	const left = "rest not extracted: text limit 4096 bytes"
	if !rec.Staged || rec.Err != "" || rec.Truncated != left || rec.ExtractedFrom != "docx" || rec.Memo.Lasting {
		t.Fatalf("record: staged %v, err %q, truncated %q, extracted from %q, at limit %v; want staged, cut short", rec.Staged, rec.Err, rec.Truncated, rec.ExtractedFrom, rec.Memo.Lasting)
	}
	text, err := os.ReadFile(staged)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(text), "# Payment service specification\n") || !strings.HasSuffix(string(text), "\n\n[… "+left+"]\n") ||
		len(text) > 4096 || strings.Contains(string(text), "Clause 300:") {
		t.Errorf("staged text (%d bytes) is not the first 4 KiB and the marker:\n%s", len(text), text)
	}
	if rec.OutSize != int64(len(text)) || rec.Lines != strings.Count(string(text), "\n") {
		t.Errorf("record: %d bytes, %d lines; the staged text has %d and %d", rec.OutSize, rec.Lines, len(text), strings.Count(string(text), "\n"))
	}
	if w := env.Warnings(); len(w) != 0 {
		t.Errorf("warnings for a cut at a work limit: %q", w)
	}
}

// TestExtractTimeGuard: a document still being read when extraction's
// time guard fires is refused (over-limit, not remembered as a work
// limit, so a refresh reads it again) with an error naming the guard, and
// the stage tells the run in a warning naming the file.
func TestExtractTimeGuard(t *testing.T) {
	slow := []byte(`{\rtf1 ` + strings.Repeat(`\par a line of the memo `, 300_000) + "}")
	rec, env, staged := processDocument(t, "docs/memo.rtf", slow, extract.Limits{Timeout: time.Millisecond})
	if rec.Staged || rec.Reason != extract.ReasonOverLimit || !strings.Contains(rec.Err, "safety guard") || rec.Memo.Lasting || rec.Truncated != "" {
		t.Errorf("record: staged %v, reason %q, err %q, at limit %v, truncated %q; want refused by the safety guard",
			rec.Staged, rec.Reason, rec.Err, rec.Memo.Lasting, rec.Truncated)
	}
	if _, err := os.Stat(staged); !os.IsNotExist(err) {
		t.Errorf("a refused document left a staged copy: %v", err)
	}
	w := env.Warnings()
	if len(w) != 1 || !strings.Contains(w[0], "docs/memo.rtf") || !strings.Contains(w[0], "safety guard") {
		t.Errorf("warnings = %q, want one naming docs/memo.rtf and the guard", w)
	}
}
