package main

import (
	"path/filepath"
	"strings"
	"testing"

	xt "github.com/repoprep/repoprep/internal/extract/extracttest"
)

// TestReadExtractedDocument: after a run, `repoprep read OUT docs/spec.docx`
// answers the document's extracted text with line numbers, through the
// same path resolution as any file (serve needs no change for documents).
func TestReadExtractedDocument(t *testing.T) {
	src := smallRepo(t, map[string]string{"docs/spec.docx": string(xt.DOCX(t))})
	out := filepath.Join(t.TempDir(), "out")
	if code, _, stderr := runCmd(t, "run", "-q", "-o", out, src); code != exitOK {
		t.Fatalf("run: %d %s", code, stderr)
	}
	code, stdout, stderr := runCmd(t, "read", out, "docs/spec.docx:1-3")
	if code != exitOK {
		t.Fatalf("read: %d %s", code, stderr)
	}
	for _, want := range []string{"   1 | # Payment service specification", "   3 | # 1. Scope", "[file: docs/spec.docx | total: "} {
		if !strings.Contains(stdout, want) {
			t.Errorf("read output lacks %q:\n%s", want, stdout)
		}
	}
}

// TestReadExtractedPDF is the same for a PDF (run without -race by make
// test: see extracttest.SkipPDFUnderRace).
func TestReadExtractedPDF(t *testing.T) {
	xt.SkipPDFUnderRace(t)
	src := smallRepo(t, map[string]string{"docs/spec.pdf": string(xt.PDF(t, [][]string{{"Refund policy"}}, xt.PDFOptions{}))})
	out := filepath.Join(t.TempDir(), "out")
	if code, _, stderr := runCmd(t, "run", "-q", "-o", out, src); code != exitOK {
		t.Fatalf("run: %d %s", code, stderr)
	}
	code, stdout, stderr := runCmd(t, "read", out, "docs/spec.pdf")
	if code != exitOK || !strings.Contains(stdout, "   1 | --- page 1 ---\n   2 | Refund policy\n") {
		t.Errorf("read: %d %s\n%s", code, stderr, stdout)
	}
}
