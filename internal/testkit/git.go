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

// TrickyIgnorePatterns are gitignore patterns with git's tricky cases:
// negation, anchoring, "**" (backtracking past its first fit too),
// directory-only patterns, escapes and re-inclusion under an excluded
// directory (which git refuses). Both ignore matchers (the scan's and the
// rules files') are compared with git on them and TrickyIgnorePaths.
var TrickyIgnorePatterns = []string{
	"*.log", "!keep.log", "/build-out/", "docs/**/*.tmp",
	"**/cache", "temp?/", "a/**/b", "*.o", "!/important.o", `\#hash`,
	"logs/", "!logs/keep/", "foo/*", "!foo/bar", "star/**", "!star/**/", "!star/b/c.md",
	"neg/*.bin", "!neg/b.bin", "legacy/", "!legacy/keep.md", "/anchored.txt", "bt/**/*/build",
}

// TrickyIgnorePaths are the files TrickyIgnorePatterns are checked on.
var TrickyIgnorePaths = []string{
	"app.log", "keep.log", "sub/deep/x.log", "sub/keep.log",
	"build-out/a.c", "sub/build-out/a.c",
	"docs/a.tmp", "docs/x/y/b.tmp", "other/c.tmp",
	"cache/c1", "src/cache/c2", "src/cachex/c3",
	"temp1/t", "tempXY/t", "temp1.txt",
	"a/b/f", "a/x/y/b/f", "a/c/f",
	"m.o", "important.o", "sub/important.o",
	"#hash", "hash",
	"logs/a", "logs/keep/b",
	"foo/bar", "foo/baz", "foo/sub/q",
	"star/a.md", "star/b/c.md", "q/x.go",
	"neg/a.bin", "neg/b.bin", "neg/sub/c.bin",
	"legacy/old.md", "legacy/keep.md", "anchored.txt", "sub/anchored.txt",
	"bt/x/build/f", "bt/x/y/build/f", "bt/build/f",
}
