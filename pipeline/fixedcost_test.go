package pipeline

import (
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/repoprep/repoprep/internal/secrets"
	"github.com/repoprep/repoprep/internal/testkit"
	"github.com/repoprep/repoprep/report"
	"github.com/repoprep/repoprep/rules"
	"github.com/repoprep/repoprep/snapshot"
)

// countCompiles counts the runs that need the secret rules compiled (that
// compile them, or take them from the process's cache) until the test ends.
func countCompiles(t *testing.T) *atomic.Int32 {
	t.Helper()
	var n atomic.Int32
	prev := newScanner
	newScanner = func(rs []rules.SecretRule, opts ...secrets.Option) (*secrets.Scanner, error) {
		n.Add(1)
		return prev(rs, opts...)
	}
	t.Cleanup(func() { newScanner = prev })
	return &n
}

// TestRulesCompiledOnlyToRead: the secret rules are compiled by a run
// that reads a file (a first run, --full, a refresh after an edit, one
// whose previous snapshot is unusable) and never by a refresh that keeps
// the snapshot standing, which reads none; and what each run publishes is
// what --full publishes. On the code before, every run compiled them.
func TestRulesCompiledOnlyToRead(t *testing.T) {
	cases := []struct {
		name     string
		change   func(t *testing.T, src, out string)
		opts     func(o *Options)
		compiles int32
		kept     bool
	}{
		{name: "nothing changed", kept: true},
		{name: "an edit", compiles: 1, change: func(t *testing.T, src, out string) {
			writeU(t, filepath.Join(src, "main.go"), "package main\n\nfunc main() { println(2) }\n")
		}},
		{name: "a secret added", compiles: 1, change: func(t *testing.T, src, out string) {
			writeU(t, filepath.Join(src, "notes/plain.txt"), "PASSWORD_TOKEN="+testkit.RandomString(testkit.AlphaNum, 32)+"\n")
		}},
		{name: "--full", compiles: 1, opts: func(o *Options) { o.Full = true }},
		{name: "the state removed", compiles: 1, change: func(t *testing.T, src, out string) {
			mustU(t, os.Remove(filepath.Join(out, snapshot.StateFile)))
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			noRacyWindow(t)
			n := countCompiles(t)
			src := unchangedTree(t)
			out := filepath.Join(t.TempDir(), "out")
			runOpts(t, refreshOpts(src, out))
			if got := n.Swap(0); got != 1 {
				t.Fatalf("the first run compiled the rules %d times, want 1", got)
			}
			if c.change != nil {
				c.change(t, src, out)
			}
			opts := refreshOpts(src, out)
			if c.opts != nil {
				c.opts(&opts)
			}
			res := runOpts(t, opts)
			if got := n.Load(); got != c.compiles {
				t.Errorf("the refresh compiled the rules %d times, want %d", got, c.compiles)
			}
			if res.Report.Refresh.Unchanged != c.kept {
				t.Errorf("refresh %+v, kept: want %t", res.Report.Refresh, c.kept)
			}
			if c.kept && res.Report.Refresh.Previous != report.PreviousUsed {
				t.Errorf("refresh %+v, want previous used", res.Report.Refresh)
			}
			full := filepath.Join(t.TempDir(), "full")
			opts.OutDir, opts.Full = full, true
			runOpts(t, opts)
			sameSnapshot(t, out, full)
		})
	}
}
