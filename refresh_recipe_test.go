package repoprep_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// readmeBlock is the fenced block after the line "<!-- name -->" in the README.
func readmeBlock(t *testing.T, name string) string {
	t.Helper()
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)<!-- " + regexp.QuoteMeta(name) + " -->\\s*```[a-z]*\n(.*?)```").FindSubmatch(readme)
	if m == nil {
		t.Fatalf("README.md has no fenced block after <!-- %s -->", name)
	}
	return string(m[1])
}

// TestCrontabRecipe runs the README's crontab line, as cron would (sh -c,
// its PATH), against a stand-in repoprep exiting with each code: it must
// print nothing (cron mails only what a job prints) when the run
// published (0) or found another run holding the lock (75), and say the
// exit code otherwise.
func TestCrontabRecipe(t *testing.T) {
	var path, job string
	for line := range strings.SplitSeq(readmeBlock(t, "refresh-crontab"), "\n") {
		switch {
		case strings.HasPrefix(line, "PATH="):
			path = strings.TrimPrefix(line, "PATH=")
		case strings.TrimSpace(line) != "" && !strings.HasPrefix(line, "#"):
			job = line
		}
	}
	fields := regexp.MustCompile(`^((?:\S+\s+){5})(.+)$`).FindStringSubmatch(job)
	if fields == nil || path == "" {
		t.Fatalf("crontab block: PATH %q, job %q", path, job)
	}
	if strings.Contains(fields[2], "%") {
		t.Error("a % in a crontab command is a newline to cron")
	}
	bin := t.TempDir()
	standIn := "#!/bin/sh\necho \"repoprep: something to say\" >&2\nexit $STANDIN_EXIT\n"
	if err := os.WriteFile(filepath.Join(bin, "repoprep"), []byte(standIn), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, code := range []string{"0", "75", "1", "2", "3"} {
		cmd := exec.Command("/bin/sh", "-c", fields[2])
		cmd.Env = []string{"PATH=" + bin + ":" + path, "HOME=" + t.TempDir(), "STANDIN_EXIT=" + code}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Errorf("exit %s: the job itself failed: %v", code, err)
		}
		quiet := code == "0" || code == "75"
		if quiet != (len(out) == 0) || !quiet && !strings.Contains(string(out), "exit "+code) {
			t.Errorf("stand-in exit %s: the job printed %q", code, out)
		}
	}
}

// TestSystemdRecipe checks the README's service and timer with
// systemd-analyze verify (where systemd is installed) and that the service
// treats 75, and only 75, as success besides 0.
func TestSystemdRecipe(t *testing.T) {
	service, timer := readmeBlock(t, "refresh-service"), readmeBlock(t, "refresh-timer")
	if m := regexp.MustCompile(`(?m)^SuccessExitStatus=(.*)$`).FindStringSubmatch(service); m == nil || strings.TrimSpace(m[1]) != "75" {
		t.Errorf("service: SuccessExitStatus %v, want 75", m)
	}
	analyze, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Skip("systemd-analyze not installed")
	}
	dir := t.TempDir()
	// verify wants ExecStart's program to exist.
	bin := filepath.Join(dir, "repoprep")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	service = strings.Replace(service, "/usr/local/bin/repoprep", bin, 1)
	for name, text := range map[string]string{"repoprep-refresh.service": service, "repoprep-refresh.timer": timer} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(analyze, "verify", filepath.Join(dir, "repoprep-refresh.timer"), filepath.Join(dir, "repoprep-refresh.service"))
	if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
		t.Errorf("systemd-analyze verify: %v\n%s", err, out)
	}
}
