//go:build linux

// Linux only: the published files are compared by inode and ctime
// (syscall.Stat_t.Ctim), which the other systems spell differently.

package pipeline

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/repoprep/repoprep/refresh"
	"github.com/repoprep/repoprep/report"
)

// published is every name under OUT with its bytes and identity.
type publishedFile struct {
	data         string
	ino          uint64
	mtime, ctime time.Time
	mode         fs.FileMode
}

func publishedFiles(t *testing.T, out string) map[string]publishedFile {
	t.Helper()
	files := map[string]publishedFile{}
	mustU(t, filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		st := info.Sys().(*syscall.Stat_t)
		f := publishedFile{ino: st.Ino, mtime: info.ModTime(), ctime: time.Unix(st.Ctim.Unix()), mode: info.Mode()}
		if info.Mode().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			f.data = string(b)
		}
		rel, _ := filepath.Rel(out, p)
		files[rel] = f
		return nil
	}))
	return files
}

// TestUnchangedRefreshKeepsSnapshot: a refresh that finds nothing changed
// keeps the published snapshot (every byte, inode, mtime and ctime under
// OUT as it was, OUT itself included) and says so in its report, twice
// over; its result is the snapshot's manifest and findings. It does so
// whether the identities the state recorded vouch for the published files
// or were too recent to (then the top-level files are hashed, the
// directories read, and the copies hashed).
func TestUnchangedRefreshKeepsSnapshot(t *testing.T) {
	for _, trust := range []time.Duration{0, time.Hour} {
		t.Run(fmt.Sprint("trust window ", trust), func(t *testing.T) {
			noRacyWindow(t)
			refresh.CopyTrustWindow = trust
			testUnchangedKeeps(t)
		})
	}
}

func testUnchangedKeeps(t *testing.T) {
	src := unchangedTree(t)
	out := filepath.Join(t.TempDir(), "out")
	first := runOpts(t, refreshOpts(src, out))
	before := publishedFiles(t, out)
	for i := range 2 {
		res := runOpts(t, refreshOpts(src, out))
		rf := res.Report.Refresh
		if !rf.Unchanged || rf.Previous != report.PreviousUsed || rf.Reused == 0 {
			t.Fatalf("refresh %d: %+v, want unchanged", i, rf)
		}
		if !strings.HasPrefix(res.Report.Audit.Refresh.Line(len(res.Manifest.Files)), "unchanged") {
			t.Errorf("refresh %d: the audit says %q", i, res.Report.Audit.Refresh.Line(len(res.Manifest.Files)))
		}
		if len(res.Manifest.Files) != len(first.Manifest.Files) || len(res.Findings) != len(first.Findings) || len(res.Findings) == 0 {
			t.Errorf("refresh %d: %d entries and %d findings, the snapshot has %d and %d", i, len(res.Manifest.Files), len(res.Findings), len(first.Manifest.Files), len(first.Findings))
		}
		after := publishedFiles(t, out)
		if len(after) != len(before) {
			t.Fatalf("refresh %d: OUT holds %d names, it held %d", i, len(after), len(before))
		}
		for name, b := range before {
			if a, ok := after[name]; !ok || a != b {
				t.Errorf("refresh %d: %s changed: %+v, was %+v", i, name, a, b)
			}
		}
	}
}

// TestUnchangedRefreshRepublishes: any change to SRC, the options, the
// rules or the build's version, a file within the racy window, and any
// change to the published snapshot make a refresh publish again, and
// what it publishes is what --full publishes.
func TestUnchangedRefreshRepublishes(t *testing.T) {
	cases := []struct {
		name string
		src  func(t *testing.T, src string)
		out  func(t *testing.T, out string)
		opts func(o *Options)
		racy bool // the change lies within the racy window of the run before
	}{
		{name: "an edit", src: func(t *testing.T, src string) {
			writeU(t, filepath.Join(src, "main.go"), "package main\n\nfunc main() { println(1) }\n")
		}},
		{name: "a new file", src: func(t *testing.T, src string) { writeU(t, filepath.Join(src, "notes/new.txt"), "new\n") }},
		{name: "a new ignored file", src: func(t *testing.T, src string) { writeU(t, filepath.Join(src, "other.log"), "new\n") }},
		{name: "a delete", src: func(t *testing.T, src string) { mustU(t, os.Remove(filepath.Join(src, "internal/a/a.go"))) }},
		{name: "a chmod", src: func(t *testing.T, src string) { mustU(t, os.Chmod(filepath.Join(src, "main.go"), 0o600)) }},
		{name: "a symlink retargeted", src: func(t *testing.T, src string) {
			mustU(t, os.Remove(filepath.Join(src, "link-to-main")))
			mustU(t, os.Symlink("go.mod", filepath.Join(src, "link-to-main")))
		}},
		{name: "a rules change", src: func(t *testing.T, src string) {
			writeU(t, filepath.Join(src, ".repoprep.toml"), "exclude = [\"big.txt\"]\n")
		}},
		{name: "another version", opts: func(o *Options) { o.Version = "test-2" }},
		{name: "another --preview-lines", opts: func(o *Options) { o.PreviewLines = 5 }},
		{name: "--full", opts: func(o *Options) { o.Full = true }},
		{name: "a file written just before the last run", racy: true},
		{name: "a staged copy edited in OUT", out: func(t *testing.T, out string) {
			writeU(t, filepath.Join(out, "tree/notes/plain.txt"), "nothing to hear here\n")
		}},
		{name: "a staged copy removed in OUT", out: func(t *testing.T, out string) { mustU(t, os.Remove(filepath.Join(out, "tree/main.go"))) }},
		{name: "a file planted in tree/", out: func(t *testing.T, out string) {
			writeU(t, filepath.Join(out, "tree/internal/a/extra.go"), "package a\n")
		}},
		{name: "a file planted in OUT", out: func(t *testing.T, out string) { writeU(t, filepath.Join(out, "extra.json"), "{}\n") }},
		{name: "REPO_MAP.md edited in OUT", out: func(t *testing.T, out string) { writeU(t, filepath.Join(out, "REPO_MAP.md"), "# nothing\n") }},
		{name: "report.json removed in OUT", out: func(t *testing.T, out string) { mustU(t, os.Remove(filepath.Join(out, "report.json"))) }},
		{name: "files.json made writable by all", out: func(t *testing.T, out string) { mustU(t, os.Chmod(filepath.Join(out, "files.json"), 0o666)) }},
		{name: "a tree directory made private", out: func(t *testing.T, out string) { mustU(t, os.Chmod(filepath.Join(out, "tree/docs"), 0o700)) }},
	}
	// Each case costs three runs per trust window, about two seconds under
	// the race detector: -short (make test's race pass) runs every case
	// once, with the trust window under which identities vouch for the
	// staged copies (the one where a change in OUT is told by identity
	// alone; TestUnchangedRefreshKeepsSnapshot runs both windows under
	// -short), and compares with --full only these two, one change to SRC
	// and one to OUT. make test's whole pass runs everything.
	compared := map[string]bool{"an edit": true, "a staged copy edited in OUT": true}
	for _, c := range cases {
		for _, trust := range []time.Duration{0, time.Hour} {
			if testing.Short() && trust == 0 {
				continue
			}
			t.Run(fmt.Sprintf("%s, trust window %v", c.name, trust), func(t *testing.T) {
				noRacyWindow(t)
				refresh.CopyTrustWindow = trust
				src := unchangedTree(t)
				out := filepath.Join(t.TempDir(), "out")
				if c.racy {
					// The file is written right before the run that publishes:
					// that run may have read it in the same timestamp tick.
					fine := refresh.FineRacyWindow
					refresh.RacyWindow, refresh.FineRacyWindow = time.Hour, time.Hour
					t.Cleanup(func() { refresh.FineRacyWindow = fine })
					writeU(t, filepath.Join(src, "notes/plain.txt"), "nothing to hear here\n")
				}
				runOpts(t, refreshOpts(src, out))
				if c.src != nil {
					c.src(t, src)
				}
				if c.out != nil {
					c.out(t, out)
				}
				opts := refreshOpts(src, out)
				if c.opts != nil {
					c.opts(&opts)
				}
				res := runOpts(t, opts)
				if res.Report.Refresh.Unchanged {
					t.Fatalf("kept: %+v", res.Report.Refresh)
				}
				if testing.Short() && !compared[c.name] {
					return
				}
				full := filepath.Join(t.TempDir(), "full")
				opts.OutDir, opts.Full = full, true
				runOpts(t, opts)
				sameSnapshot(t, out, full)
			})
		}
	}
}
