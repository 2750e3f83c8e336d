package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCacheDirs: where the tokenizer's tables and the build's digest are
// kept, by default, moved, and off.
func TestCacheDirs(t *testing.T) {
	cache := t.TempDir()
	for _, c := range []struct {
		env, name string
		dir       func() string
	}{{"REPOPREP_TOKENS_CACHE", "tokens", tokensCacheDir}, {"REPOPREP_BUILD_CACHE", "build", buildCacheDir}} {
		tests := []struct {
			name, env, want string
		}{
			{"default", "", filepath.Join(cache, "repoprep", c.name)},
			{"moved", "/srv/kept", "/srv/kept"},
			{"off", "off", ""},
		}
		for _, tt := range tests {
			t.Run(c.name+"/"+tt.name, func(t *testing.T) {
				t.Setenv(c.env, tt.env)
				t.Setenv("XDG_CACHE_HOME", cache)
				if got := c.dir(); got != tt.want {
					t.Errorf("%s=%q: %q, want %q", c.env, tt.env, got, tt.want)
				}
			})
		}
	}
}

// runAsCommand runs this test binary as the repoprep command (TestMain),
// with env added, and returns its standard error.
//
// Under -race the child would sleep a second before it exits (the race
// runtime's atexit_sleep_ms, to catch races of goroutines still running at
// exit, which no test here looks for): GORACE turns that sleep off and
// keeps whatever else the caller set. A binary built without -race
// ignores GORACE.
func runAsCommand(t *testing.T, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	gorace := strings.TrimSpace(os.Getenv("GORACE") + " atexit_sleep_ms=0")
	cmd.Env = append(append(os.Environ(), "REPOPREP_TEST_MAIN=1", "GORACE="+gorace), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("repoprep %q: %v\n%s", args, err, stderr.String())
	}
	return stderr.String()
}

// TestRunKeepsTokenTables: the first run of an executable leaves the
// tokenizer's tables in REPOPREP_TOKENS_CACHE, and a second run of the
// same executable reads them (it writes no new file) and publishes the
// same counts; nothing else lands there.
func TestRunKeepsTokenTables(t *testing.T) {
	t.Parallel() // two child processes, their environment their own
	src := smallRepo(t, map[string]string{"doc/zh.md": "# 说明\n\n自然语言处理是人工智能的一个分支。\n"})
	tables := filepath.Join(t.TempDir(), "tables")
	env := []string{"REPOPREP_TOKENS_CACHE=" + tables}
	var (
		manifests [2][]byte
		files     [2]os.FileInfo
	)
	for i := range manifests {
		out := filepath.Join(t.TempDir(), "out")
		runAsCommand(t, env, "run", "-q", "--progress", "never", "-o", out, src)
		b, err := os.ReadFile(filepath.Join(out, "files.json"))
		if err != nil {
			t.Fatal(err)
		}
		manifests[i] = b
		ents, err := os.ReadDir(tables)
		if err != nil {
			t.Fatalf("after run %d: %v", i+1, err)
		}
		if len(ents) != 1 || filepath.Ext(ents[0].Name()) != ".tables" {
			t.Fatalf("after run %d the cache holds %v, want one .tables file", i+1, ents)
		}
		if files[i], err = os.Stat(filepath.Join(tables, ents[0].Name())); err != nil {
			t.Fatal(err)
		}
	}
	if !os.SameFile(files[0], files[1]) {
		t.Error("the second run wrote the tables again instead of reading them")
	}
	if !bytes.Equal(manifests[0], manifests[1]) {
		t.Errorf("files.json differs between the run that built the tables and the one that read them:\n%s\n%s", manifests[0], manifests[1])
	}
}
