package refresh_test

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/repoprep/repoprep/internal/testkit"
	"github.com/repoprep/repoprep/pipeline"
	"github.com/repoprep/repoprep/refresh"
	"github.com/repoprep/repoprep/report"
	"github.com/repoprep/repoprep/snapshot"
)

// The refresh facing what a hostile repository, or anyone who can write to
// OUT, puts there: a state file of gigabytes, and documents that are
// refused at a limit every time they are read.

var hostileKey = []byte("refresh-hostile-key-0123456789ab")

// hostileRun runs the pipeline over src into out as a scheduled refresh
// does (the same fingerprint key each time), logging warnings into logs.
func hostileRun(t *testing.T, src, out string, full bool, logs *bytes.Buffer) *pipeline.Result {
	t.Helper()
	opts := pipeline.Options{Root: src, OutDir: out, Workers: 2, Version: "test", FingerprintKey: hostileKey, Full: full}
	if logs != nil {
		opts.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	res, err := pipeline.Run(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// reuseNow lets a refresh take files written a moment ago (a real run reads
// again what changed within two seconds of the previous one).
func reuseNow(t *testing.T) {
	racy, trust := refresh.RacyWindow, refresh.CopyTrustWindow
	refresh.RacyWindow, refresh.CopyTrustWindow = 0, 0
	t.Cleanup(func() { refresh.RacyWindow, refresh.CopyTrustWindow = racy, trust })
}

// samePublished fails unless got and want publish the same files.json and
// tree/ (report.json and report.html hold times, the state identities).
func samePublished(t *testing.T, got, want string) {
	t.Helper()
	read := func(root string) map[string]string {
		files := map[string]string{}
		err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(root, p)
			if slices.Contains(snapshot.Volatile, rel) {
				return nil
			}
			b, err := os.ReadFile(p)
			files[rel] = string(b)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return files
	}
	g, w := read(got), read(want)
	for name, wb := range w {
		if gb, ok := g[name]; !ok || gb != wb {
			t.Errorf("%s differs from a full run's (present %v)", name, ok)
		}
	}
	for name := range g {
		if _, ok := w[name]; !ok {
			t.Errorf("%s: only in the refresh", name)
		}
	}
}

// TestPlantedStateRefused: a refresh state of 4 GiB (a sparse file) planted
// in OUT is refused from its size, before a byte of it is read: the run is
// a full one, says so in report.json and in a warning naming the file, its
// size and the bound, publishes what a full run publishes, and writes a
// state the next refresh uses. Before, the state was read whole before its
// MAC was checked: 107 s and 7.4 GB of memory.
func TestPlantedStateRefused(t *testing.T) {
	reuseNow(t)
	src := filepath.Join(t.TempDir(), "repo")
	testkit.WriteTree(t, src, map[string]string{"main.go": "package main\n\nfunc main() {}\n", "README.md": "# repo\n"})
	out, full := filepath.Join(t.TempDir(), "out"), filepath.Join(t.TempDir(), "full")
	hostileRun(t, src, out, false, nil)
	hostileRun(t, src, full, true, nil)

	f, err := os.OpenFile(filepath.Join(out, snapshot.StateFile), os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(4 << 30); err != nil {
		t.Skipf("no sparse file of 4 GiB here: %v", err)
	}
	f.Close()
	var logs bytes.Buffer
	before := testkit.ReadBytes()
	res := hostileRun(t, src, out, false, &logs)
	read := testkit.ReadBytes() - before
	ref := res.Report.Refresh
	if ref.Previous != report.PreviousNoState || !strings.Contains(ref.Detail, snapshot.StateFile+" is 4,294,967,296 bytes, over the ") || !strings.Contains(ref.Detail, snapshot.FilesJSON) {
		t.Errorf("refresh: previous %q, detail %q; want %s, naming the state, its size and the bound", ref.Previous, ref.Detail, report.PreviousNoState)
	}
	if w := logs.String(); !strings.Contains(w, "level=WARN") || !strings.Contains(w, snapshot.StateFile+" is 4,294,967,296 bytes") {
		t.Errorf("no warning naming the refused state; logged: %q", w)
	}
	t.Logf("the refresh read %d bytes", read)
	if before >= 0 && read > 64<<20 {
		t.Errorf("the refresh read %d bytes: the planted state was read", read)
	}
	samePublished(t, out, full)
	if res := hostileRun(t, src, out, false, nil); res.Report.Refresh.Previous != report.PreviousUsed || res.Report.Refresh.Reused != 2 {
		t.Errorf("the refresh after: %+v, want the state it wrote used and both files reused", res.Report.Refresh)
	}
}

// TestRefusedAtLimitReused: a document refused at a work limit (an RTF
// nested 5,000 groups deep) is an outcome like any other: an unchanged
// refresh takes its entry, reason and error as they were instead of
// extracting it again (before, it was read again on every refresh as
// had-error: six 2 MB workbooks of 8 million cells cost 92 s a tick), and
// publishes what a full run publishes. So is a document that holds no
// text (an RTF of nothing but a group): the same bytes hold none again.
// A document refused as unreadable (no RTF header), which a failing
// reader could cause too, is still read again.
func TestRefusedAtLimitReused(t *testing.T) {
	reuseNow(t)
	src := filepath.Join(t.TempDir(), "repo")
	testkit.WriteTree(t, src, map[string]string{
		"docs/deep.rtf":  `{\rtf1 ` + strings.Repeat("{", 5000) + "x" + strings.Repeat("}", 5000) + "}",
		"docs/plain.rtf": "plain words, no RTF header",
		"docs/empty.rtf": `{\rtf1 {\*\generator nothing}}`,
		"main.go":        "package main\n\nfunc main() {}\n",
	})
	out, full := filepath.Join(t.TempDir(), "out"), filepath.Join(t.TempDir(), "full")
	first := hostileRun(t, src, out, false, nil)
	var deep, empty snapshot.Entry
	for _, e := range first.Manifest.Files {
		switch e.Path {
		case "docs/deep.rtf":
			deep = e
		case "docs/empty.rtf":
			empty = e
		}
	}
	if deep.Reason != "over-limit" || !strings.Contains(deep.Err, "nested more than") {
		t.Fatalf("docs/deep.rtf: reason %q, error %q; the test wants a refusal at the nesting limit", deep.Reason, deep.Err)
	}
	if empty.Reason != "no-text" {
		t.Fatalf("docs/empty.rtf: reason %q, error %q; the test wants a document with no text", empty.Reason, empty.Err)
	}
	res := hostileRun(t, src, out, false, nil)
	ref := res.Report.Refresh
	if ref.Previous != report.PreviousUsed || ref.NotReused[report.NotReusedError] != 1 || ref.Reused != 3 {
		t.Errorf("refresh: %+v; want docs/deep.rtf, docs/empty.rtf and main.go reused, docs/plain.rtf (unreadable) read again as had-error", ref)
	}
	for _, e := range res.Manifest.Files {
		if e.Path == "docs/deep.rtf" && e != deep || e.Path == "docs/empty.rtf" && e != empty {
			t.Errorf("%s reused as %+v, want it as it was", e.Path, e)
		}
	}
	hostileRun(t, src, full, true, nil)
	samePublished(t, out, full)
	// And the refresh after that one takes it again: the state it wrote
	// remembers the refusal too.
	if again := hostileRun(t, src, out, false, nil).Report.Refresh; again.Reused != ref.Reused {
		t.Errorf("the next refresh reused %d, want %d", again.Reused, ref.Reused)
	}
}
