package pipeline

// Helpers of the refresh tests that run on every system (the unchanged
// tests that compare inodes and ctimes are Linux only).

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// unchangedTree is a small repository with what keeping a snapshot must
// get right, and no credential in a name or link target (which makes a
// refresh read the files with findings again): duplicates, a file whose
// credential is redacted, an oversize file, a binary, a symlink, an
// ignored file, a vendor directory and an agent instruction file.
func unchangedTree(t *testing.T) string {
	t.Helper()
	src := filepath.Join(t.TempDir(), "repo")
	writeFiles(t, src, map[string]string{
		"go.mod":            "module example.com/repo\n\ngo 1.22\n",
		"main.go":           "package main\n\nfunc main() {}\n",
		"internal/a/a.go":   "package a\n\n// A is a.\nfunc A() int { return 1 }\n",
		"docs/readme.md":    "# repo\r\n\r\nA small service.\r\n",
		"docs/deep/copy.md": "# repo\n\nA small service.\n",
		"deploy/.env":       "API_TOKEN=" + randFrom(t, alnum, 36) + "2x\n",
		"notes/plain.txt":   "nothing to see here\n",
		"vendor/lib/lib.go": "package lib\n\nfunc L() {}\n",
		"big.txt":           strings.Repeat("a line of an oversize file\n", 200),
		"assets/logo.png":   "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + strings.Repeat("\x00", 40),
		".gitignore":        "*.log\n",
		"debug.log":         "noise\n",
		"CLAUDE.md":         "# Agent notes\n\nRun make test.\n",
	})
	mustU(t, os.Symlink("main.go", filepath.Join(src, "link-to-main")))
	return src
}

func mustU(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func writeU(t *testing.T, name, text string) {
	t.Helper()
	mustU(t, os.MkdirAll(filepath.Dir(name), 0o755))
	mustU(t, os.WriteFile(name, []byte(text), 0o644))
}
