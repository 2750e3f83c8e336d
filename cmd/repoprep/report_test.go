package main

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/repoprep/repoprep/snapshot"
)

// TestReportCommand: `repoprep report` writes the page the run wrote, byte
// for byte, to stdout, to a file or over OUT/report.html (with files.json's
// mode); it refuses what is not a snapshot and waits for no lock: a held
// one exits 75 and writes nothing.
func TestReportCommand(t *testing.T) {
	src := smallRepo(t, map[string]string{"config.env": "GITHUB_TOKEN=ghp_" + randomToken(36) + "\n", "CLAUDE.md": "Read @README.md\n"})
	out := filepath.Join(t.TempDir(), "o")
	if code, _, stderr := runCmd(t, "run", "-q", "-o", out, src); code != exitOK {
		t.Fatalf("run: exit %d: %s", code, stderr)
	}
	page := filepath.Join(out, snapshot.ReportHTML)
	want, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	elsewhere := filepath.Join(t.TempDir(), "page.html")
	tests := []struct {
		name  string
		setup func(t *testing.T) (cleanup func())
		args  []string
		code  int
		err   string // in stderr
		check func(t *testing.T, stdout string)
	}{
		{name: "missing OUT", args: []string{"report", filepath.Join(t.TempDir(), "nope")}, code: exitFailed, err: "does not exist"},
		{name: "not a snapshot", args: []string{"report", src}, code: exitFailed, err: "is not a repoprep snapshot"},
		{name: "no OUT", args: []string{"report"}, code: exitUsage, err: "one snapshot directory"},
		{name: "stdout", args: []string{"report", "-o", "-", out}, code: exitOK, check: func(t *testing.T, stdout string) {
			if stdout != string(want) {
				t.Error("the page on stdout is not the one the run wrote")
			}
		}},
		{name: "to a file", args: []string{"report", "--out", elsewhere, out}, code: exitOK, check: func(t *testing.T, _ string) {
			if got, err := os.ReadFile(elsewhere); err != nil || !bytes.Equal(got, want) {
				t.Errorf("the page in FILE is not the one the run wrote (%v)", err)
			}
		}},
		{name: "into OUT", setup: func(t *testing.T) func() {
			if err := os.Remove(page); err != nil {
				t.Fatal(err)
			}
			return func() {}
		}, args: []string{"report", out}, code: exitOK, check: func(t *testing.T, _ string) {
			got, err := os.ReadFile(page)
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("OUT/report.html is not the one the run wrote (%v)", err)
			}
			pi, _ := os.Stat(page)
			fi, _ := os.Stat(filepath.Join(out, snapshot.FilesJSON))
			if pi.Mode() != fi.Mode() {
				t.Errorf("report.html is %v, files.json %v", pi.Mode(), fi.Mode())
			}
			entries, _ := os.ReadDir(out)
			for _, e := range entries {
				if strings.Contains(e.Name(), ".tmp-") {
					t.Errorf("left %s in OUT", e.Name())
				}
			}
			if code, stdout, _ := runCmd(t, "verify", out); code != exitOK {
				t.Errorf("verify after report: %s", stdout)
			}
		}},
		{name: "locked OUT", setup: func(t *testing.T) func() {
			l, err := snapshot.Acquire(out, slog.New(slog.DiscardHandler))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Remove(page); err != nil {
				t.Fatal(err)
			}
			return l.Release
		}, args: []string{"report", out}, code: exitBusy, err: "another run is publishing", check: func(t *testing.T, _ string) {
			if _, err := os.Lstat(page); err == nil {
				t.Error("a locked OUT got a page")
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.setup != nil {
				defer tt.setup(t)()
			}
			code, stdout, stderr := runCmd(t, tt.args...)
			if code != tt.code || !strings.Contains(stderr, tt.err) {
				t.Errorf("exit %d, stderr %q; want %d with %q", code, stderr, tt.code, tt.err)
			}
			if tt.check != nil {
				tt.check(t, stdout)
			}
		})
	}
}
