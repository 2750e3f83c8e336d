package stages

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/repoprep/repoprep/internal/gitindex"
)

// runGit runs git in dir with no user or system configuration, on a
// repository the test made (never on a tree under test).
func runGit(t *testing.T, dir string, args ...string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "HOME="+dir,
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	out, err := cmd.Output()
	if err != nil && !(args[0] == "check-ignore" && cmd.ProcessState.ExitCode() == 1) {
		t.Fatalf("git %s: %v", strings.Join(args, " "), err)
	}
	return string(out)
}

func gitList(t *testing.T, dir string, args ...string) map[string]bool {
	set := map[string]bool{}
	for p := range strings.SplitSeq(runGit(t, dir, args...), "\x00") {
		if p != "" {
			set[p] = true
		}
	}
	return set
}

// trackedRepo makes a work tree whose .gitignore matches tracked files:
// matomo's robots.txt, and files force-added inside ignored directories.
func trackedRepo(t *testing.T) string {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		".gitignore":                 "robots.txt\nbuild/\n*.log\nsecret/\nconfig/*.php\n!config/global.php\n",
		"robots.txt":                 "User-agent: *\n",
		"web/robots.txt":             "User-agent: *\n",
		"src/main.go":                "package main\n",
		"build/keep.txt":             "kept\n",
		"build/sub/deep.txt":         "kept\n",
		"build/untracked.txt":        "x\n",
		"build/other/x.txt":          "x\n",
		"build/sub/untracked.log":    "x\n",
		"app.log":                    "x\n",
		"logs/tracked.log":           "x\n",
		"secret/key.txt":             "x\n",
		"config/global.php":          "<?php\n",
		"config/local.php":           "<?php\n",
		"config/tracked.php":         "<?php\n",
		"untracked.go":               "package main\n",
		"pkg/__init__.py":            "",
		"packages/a/build/index.txt": "x\n", // "build/" matches at any depth
	})
	runGit(t, dir, "init", "-q")
	runGit(t, dir, "add", ".gitignore", "src/main.go", "config/global.php", "pkg/__init__.py")
	runGit(t, dir, "add", "-f", "robots.txt", "web/robots.txt", "build/keep.txt", "build/sub/deep.txt",
		"logs/tracked.log", "config/tracked.php", "packages/a/build/index.txt")
	runGit(t, dir, "commit", "-q", "-m", "x")
	return dir
}

// TestScanKeepsTrackedFiles: files.json agrees with git on what is in the
// repository. A file is scanned as not ignored exactly when git tracks it
// (`git ls-files`) or it is untracked and not ignored (`git ls-files
// --others --exclude-standard`); every other file is ignored, as a record
// or below a pruned directory. Before, the tracked robots.txt and the
// files force-added in build/ were ignored.
func TestScanKeepsTrackedFiles(t *testing.T) {
	dir := trackedRepo(t)
	inRepo := gitList(t, dir, "ls-files", "-z")
	for p := range gitList(t, dir, "ls-files", "-z", "--others", "--exclude-standard") {
		inRepo[p] = true
	}
	ignored := gitList(t, dir, "ls-files", "-z", "--others", "--ignored", "--exclude-standard")
	if !inRepo["robots.txt"] || !inRepo["build/sub/deep.txt"] || !ignored["build/untracked.txt"] {
		t.Fatalf("fixture: git says in repo %v, ignored %v", inRepo, ignored)
	}
	var warned []string
	recs, pruned := scanDir(t, dir, ScanOptions{Warn: func(m string) { warned = append(warned, m) }})
	if len(warned) != 0 {
		t.Errorf("warnings: %q", warned)
	}
	seen := map[string]bool{}
	for p, rec := range recs {
		if strings.HasPrefix(p, ".git/") {
			continue
		}
		seen[p] = true
		if got := rec.Reason != "ignored"; got != inRepo[p] {
			t.Errorf("%s: kept = %v, git: in the repository = %v", p, got, inRepo[p])
		}
	}
	for p := range ignored {
		if seen[p] {
			continue
		}
		under := ""
		for d, reason := range pruned {
			if strings.HasPrefix(p, d+"/") {
				under = reason
			}
		}
		if under != "ignored" {
			t.Errorf("%s: git ignores it; the scan neither lists it nor prunes it as ignored (%q)", p, under)
		}
	}
	for p := range inRepo {
		if !seen[p] {
			t.Errorf("%s: in the repository, not scanned", p)
		}
	}
	// Untracked directories below a walked ignored one are still pruned.
	for _, d := range []string{"build/other", "secret"} {
		if pruned[d] != "ignored" {
			t.Errorf("pruned[%s] = %q, want ignored", d, pruned[d])
		}
	}

	// --no-ignore is unchanged: every file scanned, nothing ignored.
	recs, _ = scanDir(t, dir, ScanOptions{NoIgnore: true})
	for p, rec := range recs {
		if rec.Reason == "ignored" {
			t.Errorf("--no-ignore: %s ignored", p)
		}
	}
}

// TestScanIndexFallback: an index that cannot be read is said once, and
// the scan goes on as before (a tracked file .gitignore matches is
// ignored); an index nothing asks about is never read.
func TestScanIndexFallback(t *testing.T) {
	for _, tc := range []struct {
		name    string
		corrupt func(t *testing.T, index string)
		want    string // in the warning
	}{
		{"corrupt", func(t *testing.T, index string) {
			data, err := os.ReadFile(index)
			must(t, err)
			data[len(data)/2] ^= 0xff
			must(t, os.WriteFile(index, data, 0o644))
		}, "malformed"},
		{"huge", func(t *testing.T, index string) {
			must(t, os.Truncate(index, gitindex.MaxBytes+1)) // sparse: nothing is written, nothing read
		}, "too large"},
		{"split", func(t *testing.T, index string) {
			runGit(t, filepath.Dir(filepath.Dir(index)), "update-index", "--split-index")
		}, "unsupported"},
		{"a symlink", func(t *testing.T, index string) {
			must(t, os.Rename(index, index+".real"))
			must(t, os.Symlink(index+".real", index))
		}, "index"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := trackedRepo(t)
			tc.corrupt(t, filepath.Join(dir, ".git", "index"))
			var mu sync.Mutex
			var warned []string
			warn := func(m string) { mu.Lock(); warned = append(warned, m); mu.Unlock() }
			recs, pruned := scanDir(t, dir, ScanOptions{Warn: warn})
			if len(warned) != 1 || !strings.Contains(warned[0], tc.want) {
				t.Errorf("warnings %q, want one saying %q", warned, tc.want)
			}
			if r := recs["robots.txt"]; r == nil || r.Reason != "ignored" {
				t.Errorf("robots.txt = %+v, want today's ignored", r)
			}
			if pruned["build"] != "ignored" {
				t.Errorf("build/ not pruned as ignored: %v", pruned)
			}
		})
	}

	t.Run("never asked", func(t *testing.T) {
		dir := t.TempDir()
		writeTree(t, dir, map[string]string{"a.go": "package a\n", ".git/index": "garbage"})
		var warned []string
		recs, _ := scanDir(t, dir, ScanOptions{Warn: func(m string) { warned = append(warned, m) }})
		if len(warned) != 0 || recs["a.go"] == nil {
			t.Errorf("warnings %q, records %v", warned, keys(recs))
		}
	})
}

// TestScanGitFile: a worktree's .git is a file, "gitdir: PATH"; the index
// there decides. A relative PATH needs RootPath.
func TestScanGitFile(t *testing.T) {
	main := trackedRepo(t)
	wt := filepath.Join(t.TempDir(), "wt")
	runGit(t, main, "worktree", "add", "-q", wt)
	must(t, os.WriteFile(filepath.Join(wt, "build", "untracked.txt"), []byte("x\n"), 0o644))
	gitFile, err := os.ReadFile(filepath.Join(wt, ".git"))
	must(t, err)
	if !strings.HasPrefix(string(gitFile), "gitdir: /") {
		t.Fatalf(".git = %q, want an absolute gitdir", gitFile)
	}
	recs, _ := scanDir(t, wt, ScanOptions{})
	for p, want := range map[string]string{"robots.txt": "", "build/keep.txt": "", "build/untracked.txt": "ignored"} {
		if r := recs[p]; r == nil || r.Reason != want {
			t.Errorf("%s = %+v, want reason %q", p, r, want)
		}
	}

	// The same index by a relative path: read with RootPath, said without.
	gitDir := strings.TrimSpace(strings.TrimPrefix(string(gitFile), "gitdir:"))
	rel, err := filepath.Rel(wt, gitDir)
	must(t, err)
	must(t, os.WriteFile(filepath.Join(wt, ".git"), []byte("gitdir: "+rel+"\n"), 0o644))
	recs, _ = scanDir(t, wt, ScanOptions{RootPath: wt})
	if r := recs["robots.txt"]; r == nil || r.Reason != "" {
		t.Errorf("relative gitdir with RootPath: robots.txt = %+v", r)
	}
	var warned []string
	recs, _ = scanDir(t, wt, ScanOptions{Warn: func(m string) { warned = append(warned, m) }})
	if r := recs["robots.txt"]; r == nil || r.Reason != "ignored" || len(warned) != 1 {
		t.Errorf("relative gitdir without RootPath: robots.txt = %+v, warnings %q", r, warned)
	}
}

func TestParseGitFile(t *testing.T) {
	for _, tc := range []struct {
		in, dir string
		ok      bool
	}{
		{"gitdir: /a/b/.git/worktrees/x\n", "/a/b/.git/worktrees/x", true},
		{"gitdir: ../.git/modules/sub\r\n", "../.git/modules/sub", true},
		{"gitdir:   spaced  \nextra\n", "spaced", true},
		{"gitdir: \n", "", false},
		{"ref: refs/heads/main\n", "", false},
		{"gitdir: a\x00b", "", false},
		{strings.Repeat("x", maxGitFileBytes+1), "", false},
	} {
		dir, ok := parseGitFile([]byte(tc.in))
		if dir != tc.dir || ok != tc.ok {
			t.Errorf("parseGitFile(%q) = %q, %v", tc.in, dir, ok)
		}
	}
}

// TestScanShippedTrees: editor and output directories are pruned at the
// root of the repository and of a workspace package, and kept inside a
// template or fixture tree the repository ships (vite's
// create-vite/template-vue/.vscode/, playground/.../out/), where they
// were pruned before. Dependency and cache directories stay pruned
// everywhere.
func TestScanShippedTrees(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		".vscode/settings.json":                                     "{}",
		"package.json":                                              "{}",
		"dist/index.js":                                             "x",
		"packages/foo/package.json":                                 "{}",
		"packages/foo/.idea/workspace.xml":                          "<x/>",
		"packages/foo/dist/index.js":                                "x",
		"packages/create-vite/package.json":                         "{}",
		"packages/create-vite/template-vue/.vscode/extensions.json": "{}",
		"packages/create-vite/template-vue/package.json":            "{}",
		"packages/create-vite/template-vue/dist/keep.js":            "x",
		"playground/resolve/browser-field/package.json":             "{}",
		"playground/resolve/browser-field/out/esm.browser.js":       "x",
		"test/fixtures/proj/.idea/workspace.xml":                    "<x/>",
		"fixtures/app/package.json":                                 "{}",
		"fixtures/app/node_modules/x/index.js":                      "x",
		"fixtures/app/__pycache__/m.pyc":                            "x",
		"testdata/.vs/x.json":                                       "{}",
		"examples/demo/package.json":                                "{}",
		"examples/demo/dist/app.js":                                 "x",
	})
	recs, pruned := scanDir(t, dir, ScanOptions{})
	for _, p := range []string{
		"packages/create-vite/template-vue/.vscode/extensions.json", "packages/create-vite/template-vue/dist/keep.js",
		"playground/resolve/browser-field/out/esm.browser.js", "test/fixtures/proj/.idea/workspace.xml", "testdata/.vs/x.json",
	} {
		if recs[p] == nil {
			t.Errorf("%s: not scanned (pruned %v)", p, pruned)
		}
	}
	for _, p := range []string{".vscode", "dist", "packages/foo/.idea", "packages/foo/dist",
		"fixtures/app/node_modules", "fixtures/app/__pycache__", "examples/demo/dist"} {
		if pruned[p] != "excluded-dir" {
			t.Errorf("pruned[%s] = %q, want excluded-dir", p, pruned[p])
		}
	}
	if got := slices.Sorted(func(yield func(string) bool) {
		for p := range pruned {
			if !yield(p) {
				return
			}
		}
	}); len(got) != 7 {
		t.Errorf("pruned %q, want exactly the 7 above", got)
	}
}
