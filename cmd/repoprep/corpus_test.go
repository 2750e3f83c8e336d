package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/repoprep/repoprep/corpus"
)

// TestCorpusCommand: `repoprep corpus LIST -o DIR` builds every
// repository, names the broken entry on stderr and exits 4 with the
// others finished; --shards N takes K from JOB_COMPLETION_INDEX, as a
// Kubernetes Indexed Job sets it, each shard draws one bar (repositories
// and files), and `corpus merge DIR` writes the same manifest one process
// does.
func TestCorpusCommand(t *testing.T) {
	a, b := smallRepo(t, nil), smallRepo(t, map[string]string{"lib.py": "def f():\n    return 1\n"})
	list := filepath.Join(t.TempDir(), "repos.txt")
	if err := os.WriteFile(list, []byte("# two repositories and a broken entry\na\t"+a+"\nmissing\t"+filepath.Join(a, "nope")+"\nb\t"+b+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	whole := filepath.Join(t.TempDir(), "whole")
	code, stdout, stderr := runCmd(t, "corpus", list, "-o", whole, "--json")
	if code != exitRepoFailed || !strings.Contains(stderr, "repoprep: missing: source directory") || !strings.Contains(stderr, "1 of 3 repositories failed") {
		t.Fatalf("corpus: exit %d, stderr %q; want 4 naming missing", code, stderr)
	}
	var m corpus.Manifest
	if err := json.Unmarshal([]byte(stdout), &m); err != nil || m.Totals.Repos != 2 || len(m.Failures) != 1 {
		t.Fatalf("--json printed %q (%v): want a manifest of 2 repositories and 1 failure", stdout, err)
	}
	wholeManifest, err := os.ReadFile(filepath.Join(whole, corpus.CorpusDir, corpus.ManifestFile))
	if err != nil {
		t.Fatal(err)
	}

	sharded := filepath.Join(t.TempDir(), "sharded")
	for _, k := range []string{"0", "1"} {
		t.Setenv(jobIndexEnv, k)
		code, _, stderr := runCmd(t, "corpus", list, "-o", sharded, "--shards", "2", "--progress", "always")
		if want := map[string]int{"0": exitOK, "1": exitRepoFailed}[k]; code != want {
			t.Fatalf("shard %s of 2: exit %d, want %d: %s", k, code, want, stderr)
		}
		// One bar for the corpus: repositories done, files so far.
		if !strings.Contains(stderr, "repositories (") || !strings.Contains(stderr, " files) ") || !strings.Contains(stderr, "% |") {
			t.Errorf("shard %s of 2: no corpus progress bar on stderr: %q", k, stderr)
		}
		if _, err := os.Stat(filepath.Join(sharded, corpus.PartsDir, k+"-of-2")); err != nil {
			t.Errorf("shard %s of 2 wrote no part: %v", k, err)
		}
	}
	code, stdout, stderr = runCmd(t, "corpus", "merge", sharded)
	if code != exitRepoFailed || !strings.Contains(stdout, "3 repositories, 1 failed") || !strings.Contains(stderr, "missing") {
		t.Fatalf("corpus merge: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	merged, err := os.ReadFile(filepath.Join(sharded, corpus.CorpusDir, corpus.ManifestFile))
	if err != nil || string(merged) != string(wholeManifest) {
		t.Errorf("the merged manifest differs from one process's (%v):\n%s\n%s", err, merged, wholeManifest)
	}
}

// TestCorpusUsage: what is wrong with a corpus command line is said in
// one line with the usage, exit 2.
func TestCorpusUsage(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good.txt", "/src/a\n")
	dup := write("dup.txt", "/x/a\n/y/a\n")
	out := filepath.Join(dir, "out")
	for _, tc := range []struct {
		name string
		args []string
		env  string // JOB_COMPLETION_INDEX
		want string
	}{
		{"no -o", []string{"corpus", good}, "", "-o DIR: a corpus needs a directory"},
		{"no LIST", []string{"corpus", "-o", out}, "", "one LIST file, got 0"},
		{"taken name", []string{"corpus", dup, "-o", out}, "", `LIST line 2: name "a" is taken by line 1`},
		{"bad shard", []string{"corpus", good, "-o", out, "--shard", "4/4"}, "", "K counts from 0 and must be below N"},
		{"shards without an index", []string{"corpus", good, "-o", out, "--shards", "3"}, "", "needs $JOB_COMPLETION_INDEX"},
		{"index out of range", []string{"corpus", good, "-o", out, "--shards", "3"}, "3", "must be below N"},
		{"bad format", []string{"corpus", good, "-o", out, "--format", "csv"}, "", `format "csv": want parquet or jsonl`},
		{"merge two", []string{"corpus", "merge", out, out}, "", "one corpus directory, got 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(jobIndexEnv, tc.env)
			code, _, stderr := runCmd(t, tc.args...)
			if code != exitUsage || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, stderr, tc.want)
			}
		})
	}
	if code, _, stderr := runCmd(t, "corpus", "merge", dir); code != exitFailed || !strings.Contains(stderr, "run the shards first") {
		t.Errorf("merge of a directory without parts: exit %d, %q", code, stderr)
	}
}
