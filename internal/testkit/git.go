package testkit

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// GitIgnored makes dir a git repository and asks `git check-ignore` which
// of paths (slash paths below dir) git ignores: the reference every ignore
// matcher of ours is compared with. It skips the test without git.
func GitIgnored(t testing.TB, dir string, paths []string) map[string]bool {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	env := append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
	init := exec.Command("git", "-C", dir, "init", "-q")
	init.Env = env
	if out, err := init.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	cmd := exec.Command("git", "-C", dir, "check-ignore", "--no-index", "--stdin")
	cmd.Env = env
	cmd.Stdin = strings.NewReader(strings.Join(paths, "\n") + "\n")
	out, err := cmd.Output()
	if err != nil && cmd.ProcessState.ExitCode() != 1 { // 1: nothing ignored
		t.Fatalf("git check-ignore: %v", err)
	}
	ignored := map[string]bool{}
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if l != "" {
			ignored[l] = true
		}
	}
	return ignored
}
