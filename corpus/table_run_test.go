package corpus

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"
)

// partSeen waits up to a while for a pending table's first part under
// dir (the table being written, not yet published), and says whether
// it came.
func partSeen(dir string) bool {
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if m, _ := filepath.Glob(filepath.Join(dir, "*", partName(FormatParquet, 0))); len(m) > 0 {
			return true
		}
		time.Sleep(10 * time.Millisecond)
	}
	return false
}

// lastReporter runs wait when the repository named last is done, before
// the corpus goes on.
type lastReporter struct {
	nopReporter
	last string
	wait func() bool
	seen chan bool
}

func (r *lastReporter) Repo(name string, _ error) {
	if name == r.last {
		r.seen <- r.wait()
	}
}

// TestTableBesideBuilds: the table is written in LIST order as far as
// the repositories are done, while the last still builds (a whole run)
// or is still read (a merge): when the last repository is done, the
// first rows are already in the pending part. Written after every build,
// the table's last step ran alone with one core idle.
func TestTableBesideBuilds(t *testing.T) {
	root := t.TempDir()
	var list []Entry
	for _, tc := range []struct {
		name  string
		files int
	}{{"first", 30}, {"second", 20}, {"last", 2}} {
		sizedTree(t, filepath.Join(root, "src", tc.name), tc.files)
		list = append(list, Entry{tc.name, filepath.Join(root, "src", tc.name)})
	}
	t.Run("run", func(t *testing.T) {
		dir := filepath.Join(root, "whole")
		rep := &lastReporter{last: "last", wait: func() bool { return partSeen(dir) }, seen: make(chan bool, 1)}
		opts := testOptions(list, dir)
		opts.Workers, opts.Progress = 1, rep
		mustRun(t, opts)
		if !<-rep.seen {
			t.Error("no row of the table was written before the last repository was done")
		}
	})
	t.Run("merge", func(t *testing.T) {
		dir := filepath.Join(root, "sharded")
		for k := range 2 {
			opts := testOptions(list, dir)
			opts.Shard = Shard{K: k, N: 2}
			mustRun(t, opts)
		}
		rep := &lastReporter{last: "last", wait: func() bool { return partSeen(dir) }, seen: make(chan bool, 1)}
		if _, err := Merge(context.Background(), MergeOptions{Dir: dir, Workers: 1, Progress: rep}); err != nil {
			t.Fatal(err)
		}
		if !<-rep.seen {
			t.Error("no row of the table was written before the last repository was read")
		}
		sameTree(t, filepath.Join(root, "whole", CorpusDir), filepath.Join(dir, CorpusDir), nil)
	})
}

// cancelReporter cancels the corpus when the first repository is done.
type cancelReporter struct {
	nopReporter
	cancel context.CancelFunc
}

func (r *cancelReporter) Repo(string, error) { r.cancel() }

// TestRunCancelledStopsTable: a corpus cancelled while its table is being
// written returns the cancellation, leaves no table, and its writer lets
// go of DIR/corpus: the next run writes it.
func TestRunCancelledStopsTable(t *testing.T) {
	root := t.TempDir()
	var list []Entry
	for _, name := range []string{"a", "b", "c"} {
		sizedTree(t, filepath.Join(root, "src", name), 3)
		list = append(list, Entry{name, filepath.Join(root, "src", name)})
	}
	dir := filepath.Join(root, "corpus")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	opts := testOptions(list, dir)
	opts.Workers, opts.Progress = 1, &cancelReporter{cancel: cancel}
	if _, err := Run(ctx, opts); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled corpus: %v, want context.Canceled", err)
	}
	if _, err := ReadManifest(dir); err == nil {
		t.Error("a cancelled corpus published its table")
	}
	opts = testOptions(list, dir)
	res := mustRun(t, opts)
	if res.Manifest == nil || res.Manifest.Totals.Repos != 3 {
		t.Errorf("the run after a cancelled one: %+v", res.Manifest)
	}
}
