package main

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/repoprep/repoprep/internal/testkit"
)

func runCmd(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

func smallRepo(t *testing.T, extra map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{"main.go": "package main\n\nfunc main() {}\n", "README.md": "# demo\n"}
	for k, v := range extra {
		files[k] = v
	}
	testkit.WriteTree(t, dir, files)
	return dir
}

// randomToken makes a credential-shaped value at run time: nothing
// secret-looking is committed.
func randomToken(n int) string { return testkit.RandomString(testkit.AlphaNum, n) }

func TestExitCodes(t *testing.T) {
	clean := smallRepo(t, nil)
	token := "ghp_" + randomToken(36)
	leaky := smallRepo(t, map[string]string{"config.env": "GITHUB_TOKEN=" + token + "\n"})
	tests := []struct {
		name string
		args []string
		code int
		err  string
	}{
		{"no command", nil, exitUsage, "usage"},
		{"unknown command", []string{"frobnicate"}, exitUsage, "unknown command"},
		{"bad flag", []string{"run", "--nope"}, exitUsage, "unknown flag --nope"},
		{"bad secrets mode", []string{"run", "--secrets", "shred", "-o", t.TempDir() + "/o", clean}, exitUsage, "secrets mode"},
		{"bad progress mode", []string{"run", "--progress", "sometimes", clean}, exitUsage, "--progress"},
		{"two sources", []string{"run", clean, clean}, exitUsage, "one source"},
		{"negative workers", []string{"run", "--workers", "-2", clean}, exitUsage, "--workers"},
		{"size overflow", []string{"run", "--max-text-bytes", "9999999999999G", clean}, exitUsage, "byte count"},
		{"size suffix", []string{"run", "-q", "--max-text-bytes", "1K", "-o", t.TempDir() + "/o", clean}, exitOK, ""},
		{"missing source", []string{"run", "-o", t.TempDir() + "/o", "/nonexistent/src"}, exitUsage, "source directory /nonexistent/src does not exist"},
		{"clean run", []string{"run", "-q", "-o", t.TempDir() + "/o", clean}, exitOK, ""},
		{"flags after the source", []string{"run", clean, "-q", "--out", t.TempDir() + "/o"}, exitOK, ""},
		{"flag after --", []string{"run", "-q", "--", "-o"}, exitUsage, "-o"},
		{"secrets without flag", []string{"run", "-q", "-o", t.TempDir() + "/o", leaky}, exitOK, ""},
		{"fail on secrets", []string{"run", "-q", "--fail-on-secrets", "-o", t.TempDir() + "/o", leaky}, exitSecrets, "secrets found"},
		{"version", []string{"version"}, exitOK, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runCmd(t, tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, tt.code, stderr)
			}
			if !strings.Contains(stderr, tt.err) {
				t.Errorf("stderr %q does not contain %q", stderr, tt.err)
			}
			if strings.Contains(stderr, token) {
				t.Error("stderr shows the secret")
			}
		})
	}
}

func TestRunJSONSummary(t *testing.T) {
	src := smallRepo(t, nil)
	out := filepath.Join(t.TempDir(), "o")
	code, stdout, stderr := runCmd(t, "run", "--json", "--progress", "never", "-o", out, src)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rep struct {
		Schema     string         `json:"schema"`
		Files      int            `json:"files"`
		Categories map[string]int `json:"categories"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("--json printed %q: %v", stdout, err)
	}
	if rep.Files != 2 || rep.Categories["source"] != 1 || rep.Categories["text"] != 1 {
		t.Errorf("summary = %+v, want 2 files: 1 source, 1 text", rep)
	}
	if stderr != "" {
		t.Errorf("stderr not empty without a terminal: %q", stderr)
	}
}
