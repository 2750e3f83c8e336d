package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/repoprep/repoprep/internal/secrets/secrettest"
	"github.com/repoprep/repoprep/internal/testkit"
	"github.com/repoprep/repoprep/snapshot"
)

// TestLockNeverFollowed: a repository that commits ".staging.lock" as a
// symlink (or a hard link) must not get the run to truncate, write or
// create the file it points at, when OUT lies inside the repository.
func TestLockNeverFollowed(t *testing.T) {
	for _, tt := range []struct {
		name  string
		plant func(t *testing.T, lock, victim string)
		want  string
	}{
		{"symlink to a file outside", func(t *testing.T, lock, victim string) {
			noErr(t, os.WriteFile(victim, []byte("precious\n"), 0o644))
			noErr(t, os.Symlink("../victim", lock))
		}, "is a symlink"},
		{"dangling symlink", func(t *testing.T, lock, victim string) {
			noErr(t, os.Symlink("../victim", lock))
		}, "is a symlink"},
		{"hard link to a file outside", func(t *testing.T, lock, victim string) {
			noErr(t, os.WriteFile(victim, []byte("precious\n"), 0o644))
			noErr(t, os.Link(victim, lock))
		}, "hard links"},
		{"a FIFO", func(t *testing.T, lock, victim string) {
			testkit.Mkfifo(t, lock)
		}, "not a regular file"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			parent := t.TempDir()
			src := filepath.Join(parent, "src")
			testkit.WriteTree(t, src, map[string]string{"main.go": "package main\n"})
			victim := filepath.Join(parent, "victim")
			tt.plant(t, filepath.Join(src, ".staging.lock"), victim)
			before, statErr := os.ReadFile(victim)
			_, err := Run(context.Background(), Options{Root: src, OutDir: filepath.Join(src, "staging")})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want a refusal saying %q", err, tt.want)
			}
			after, err := os.ReadFile(victim)
			if (statErr == nil) != (err == nil) || !bytes.Equal(before, after) {
				t.Fatalf("victim changed: before %q (%v), after %q (%v)", before, statErr, after, err)
			}
			if _, err := os.Stat(filepath.Join(src, "staging")); err == nil {
				t.Error("a refused run published")
			}
		})
	}
}

// TestSourceNamesLikeOurs: a repository holding names that look like the
// run's own (".staging.tmp-42/", ".staging.tmp-7.old/", ".staging.notes")
// keeps them and sees them in files.json, even when it also commits a
// ".staging.lock" whose journal names them: only a directory with the
// recorded identity, owned by the user, is ever removed.
func TestSourceNamesLikeOurs(t *testing.T) {
	src := filepath.Join(t.TempDir(), "src")
	files := map[string]string{
		"main.go":                 "package main\n",
		".staging.tmp-42/keep.go": "package keep\n",
		".staging.tmp-7.old/x.md": "# kept\n",
		".staging.notes":          "notes\n",
		".staging.lock":           "pid 1 on elsewhere\n",
	}
	testkit.WriteTree(t, src, files)
	// A forged journal naming the directories, with identities that are
	// not theirs (the repository cannot know them before checkout).
	forged := "pid 1 on elsewhere\ntmp .staging.tmp-42 1 2\nold .staging.tmp-7.old 1 3\n"
	noErr(t, os.WriteFile(filepath.Join(src, ".staging.lock"), []byte(forged), 0o644))
	out := filepath.Join(src, "staging")
	for range 2 {
		res := runFixture(t, src, out, nil)
		got := map[string]bool{}
		for _, e := range res.Manifest.Files {
			got[e.Path] = e.Staged
		}
		for _, p := range []string{".staging.tmp-42/keep.go", ".staging.tmp-7.old/x.md", ".staging.notes", "main.go"} {
			if !got[p] {
				t.Errorf("%s missing from files.json or not staged: %v", p, got)
			}
		}
		for p := range got {
			if strings.HasPrefix(p, "staging/") || p == ".staging.lock" {
				t.Errorf("files.json lists the run's own %s", p)
			}
		}
	}
	for p, content := range files {
		if p == ".staging.lock" {
			continue // it is the lock now
		}
		if b, err := os.ReadFile(filepath.Join(src, p)); err != nil || string(b) != content {
			t.Errorf("%s: %q, %v; the run touched the source", p, b, err)
		}
	}
}

// TestLockUnlinkedMidRun: a lock file unlinked while a run holds it lets a
// second run take a new lock, but the second run never touches the first
// one's temporary snapshot, and the first one, finding its lock gone,
// does not publish over the second's snapshot.
func TestLockUnlinkedMidRun(t *testing.T) {
	src := fixtureTree(t)
	parent := t.TempDir()
	out := filepath.Join(parent, "out")
	runFixture(t, src, out, nil)

	goOn := filepath.Join(t.TempDir(), "go")
	ready := filepath.Join(t.TempDir(), "ready")
	var stderr bytes.Buffer
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childSrc+"="+src, childOut+"="+out, childBlock+"=files", childReady+"="+ready, childGo+"="+goOn)
	cmd.Stderr = &stderr
	noErr(t, cmd.Start())
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	waitFor(t, ready)
	firstTmp, _ := filepath.Glob(filepath.Join(parent, ".out.tmp-*"))
	if len(firstTmp) != 1 {
		t.Fatalf("temporary snapshots: %v, want the first run's", firstTmp)
	}

	noErr(t, os.Remove(filepath.Join(filepath.Dir(out), ".out.lock")))
	testkit.WriteTree(t, src, map[string]string{"second.go": "package svc\n"})
	runFixture(t, src, out, nil) // a new lock file: it gets in
	if _, err := os.Stat(firstTmp[0]); err != nil {
		t.Fatalf("the second run removed the first run's temporary snapshot: %v", err)
	}
	second := treeState(t, out)

	noErr(t, os.WriteFile(goOn, nil, 0o644))
	err := cmd.Wait()
	if err == nil || !strings.Contains(stderr.String(), "removed or replaced") {
		t.Fatalf("first run: %v %s; want it to stand down for its lost lock", err, stderr.String())
	}
	if treeState(t, out) != second {
		t.Fatal("the first run published over the second run's snapshot")
	}
	assertNoLeftovers(t, parent)
}

func waitFor(t *testing.T, name string) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		if _, err := os.Stat(name); err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never appeared", name)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestFdStarvedRun: a run that runs out of file descriptors fails and
// publishes nothing; it must never publish a snapshot missing the files it
// could not open (today's prlimit --nofile=12 published an empty snapshot
// with exit 0). Under limits that let it finish, the snapshot is whole.
func TestFdStarvedRun(t *testing.T) {
	if !haveRlimit {
		t.Skip("no RLIMIT_NOFILE to starve a run with on this platform")
	}
	src := filepath.Join(t.TempDir(), "src")
	files := map[string]string{}
	for i := range 300 {
		files[fmt.Sprintf("d%02d/f%04d.go", i%10, i)] = fmt.Sprintf("package d\n\nconst X%d = %d\n", i, i)
	}
	testkit.WriteTree(t, src, files)
	parent := t.TempDir()
	out := filepath.Join(parent, "out")
	runFixture(t, src, out, nil)
	before := treeState(t, out)
	failed := 0
	limits := []int{12, 20, 64}
	if testing.Short() {
		limits = []int{12, 64} // a child process each: -short keeps one that starves and one that finishes
	}
	for _, limit := range limits {
		var stderr bytes.Buffer
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), childSrc+"="+src, childOut+"="+out, fmt.Sprintf("%s=%d", childNoFile, limit))
		cmd.Stderr = &stderr
		err := cmd.Run()
		if err != nil {
			failed++
			if !strings.Contains(stderr.String(), "too many open files") {
				t.Errorf("nofile=%d: %v %s; want a failure that names the cause", limit, err, stderr.String())
			}
			if treeState(t, out) != before {
				t.Fatalf("nofile=%d: a failed run changed the snapshot", limit)
			}
			t.Logf("nofile=%d: failed, nothing published: %s", limit, strings.TrimSpace(stderr.String()))
			continue
		}
		m, err := snapshot.ReadManifest(out)
		noErr(t, err)
		staged := 0
		for _, e := range m.Files {
			if e.Staged {
				staged++
			}
		}
		if staged != len(files) {
			t.Fatalf("nofile=%d: published with %d of %d files staged", limit, staged, len(files))
		}
		t.Logf("nofile=%d: whole snapshot published", limit)
		before = treeState(t, out)
	}
	if failed == 0 {
		t.Error("no limit starved the run; the test proves nothing")
	}
	assertNoLeftovers(t, parent)
}

// TestGrowingFile: a file that grows between the scan and normalize is
// recorded with the bytes staged, and lands in oversize.json when that
// makes it oversize.
func TestGrowingFile(t *testing.T) {
	src := fixtureTree(t)
	grow := filepath.Join(src, "docs", "growing.txt")
	noErr(t, os.WriteFile(grow, []byte("small\n"), 0o644))
	big := strings.Repeat("now it is much longer\n", 200)
	hook := func() { noErr(t, os.WriteFile(grow, []byte(big), 0o644)) }
	out := filepath.Join(t.TempDir(), "out")
	res := runFixture(t, src, out, func(o *Options) { o.Progress = onStage{"files", hook} })
	var e snapshot.Entry
	for _, x := range res.Manifest.Files {
		if x.Path == "docs/growing.txt" {
			e = x
		}
	}
	if e.Size != int64(len(big)) || !e.Oversize || e.Lines != 200 || !e.Staged {
		t.Fatalf("grown file = size %d oversize %v lines %d staged %v; want %d, true, 200, true", e.Size, e.Oversize, e.Lines, e.Staged, len(big))
	}
	var idx snapshot.OversizeIndex
	data, err := os.ReadFile(filepath.Join(out, "oversize.json"))
	noErr(t, err)
	noErr(t, json.Unmarshal(data, &idx))
	found := false
	for _, f := range idx.Files {
		found = found || f.Path == "docs/growing.txt" && f.Size == int64(len(big))
	}
	if !found {
		t.Errorf("oversize.json does not list the grown file with its size: %+v", idx.Files)
	}
	if drifts, err := snapshot.Verify(t.Context(), out); err != nil || len(drifts) > 0 {
		t.Fatalf("verify: %v %v", drifts, err)
	}
}

// onStage calls fn when a stage starts.
type onStage struct {
	stage string
	fn    func()
}

func (o onStage) Stage(name string, _ int) {
	if name == o.stage {
		o.fn()
	}
}
func (onStage) Add(int) {}
func (onStage) Done()   {}

// TestLongNameWithSecret: a 255-byte name (NAME_MAX) holding a secret is
// redacted like any other; the redaction's temporary file must fit too.
func TestLongNameWithSecret(t *testing.T) {
	src := filepath.Join(t.TempDir(), "src")
	name := strings.Repeat("n", 251) + ".txt"
	key := secrettest.Samples()[0] // an AWS access key id
	testkit.WriteTree(t, src, map[string]string{name: "aws key: " + key.Text + "\n", "ok.go": "package ok\n"})
	out := filepath.Join(t.TempDir(), "out")
	res := runFixture(t, src, out, nil)
	staged, err := os.ReadFile(filepath.Join(out, "tree", name))
	noErr(t, err)
	if strings.Contains(string(staged), key.Secret) || !strings.Contains(string(staged), "[REDACTED:") {
		t.Errorf("staged copy = %q, want the key redacted", staged)
	}
	if len(res.Findings) == 0 {
		t.Error("no finding reported")
	}
}

// TestCancelInsideHugeLine: a cancelled run ends within a second whatever
// it is reading, here a 32 MiB file of one line (8 MiB under -race) (a run used to go on to
// the end of it: 229 s for 200 MB). The bound is loose for a loaded
// machine; the run without checks took seconds per MiB under -race.
func TestCancelInsideHugeLine(t *testing.T) {
	src := filepath.Join(t.TempDir(), "src")
	noErr(t, os.MkdirAll(src, 0o755))
	size := 32 << 20 // the one-read loop is done with 8 MiB in under 300 ms
	if testkit.Race {
		size = 8 << 20 // still seconds of work under the race detector
	}
	line := bytes.Repeat([]byte("abcdefgh ijklmnop qrstuvwx yz012345 "), size/36)
	noErr(t, os.WriteFile(filepath.Join(src, "huge.txt"), append(line, '\n'), 0o644))
	// The per-file loop ("files") decodes the line, then runs the secret
	// rules over it: the cancel lands in the one or the other.
	for _, after := range []time.Duration{50 * time.Millisecond, 300 * time.Millisecond} {
		t.Run(after.String(), func(t *testing.T) {
			parent := t.TempDir()
			ctx, cancel := context.WithCancel(context.Background())
			cancelled := make(chan time.Time, 1)
			hook := func() {
				go func() {
					time.Sleep(after) // inside the file by then
					cancelled <- time.Now()
					cancel()
				}()
			}
			_, err := Run(ctx, Options{Root: src, OutDir: filepath.Join(parent, "out"), Workers: 2, Progress: onStage{"files", hook}})
			took := time.Since(<-cancelled)
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("err = %v, want context.Canceled", err)
			}
			t.Logf("cancelled %v into the loop, ended %v later", after, took)
			if took > 2*time.Second {
				t.Errorf("the run ended %v after it was cancelled, want under 1 s", took)
			}
			assertNoLeftovers(t, parent)
		})
	}
}

// TestNoAbsolutePathsInFilesJSON: a path too long once OUT is put before
// it is recorded without the machine's absolute paths (the temporary
// snapshot's name included), so files.json is the same anywhere.
func TestNoAbsolutePathsInFilesJSON(t *testing.T) {
	src := filepath.Join(t.TempDir(), "src")
	deep := strings.Repeat(strings.Repeat("d", 195)+"/", 20) + "leaf.txt" // 3,928 bytes: fits SRC's path
	testkit.WriteTree(t, src, map[string]string{deep: "deep\n", "ok.go": "package ok\n"})
	parent := filepath.Join(t.TempDir(), strings.Repeat("p", 200)) // but not OUT's
	out := filepath.Join(parent, "out")
	res := runFixture(t, src, out, nil)
	data, err := os.ReadFile(filepath.Join(out, "files.json"))
	noErr(t, err)
	for _, abs := range []string{parent, src, ".out.tmp-", "/tmp/"} {
		if bytes.Contains(data, []byte(abs)) {
			t.Errorf("files.json holds %q", abs)
		}
	}
	for _, e := range res.Manifest.Files {
		if e.Path == filepath.ToSlash(deep) && e.Reason != "path-too-long" {
			t.Errorf("deep file: reason %q, want path-too-long", e.Reason)
		}
	}
}

// TestUnservableNamesUnsafe: names the read server would refuse are never
// staged: percent-encoded and NFKC look-alikes of "..", bidi controls, a
// drive letter.
func TestUnservableNamesUnsafe(t *testing.T) {
	src := filepath.Join(t.TempDir(), "src")
	bad := []string{"%2e%2e/x.txt", "．．/y.txt", "a%2f..%2fz.txt", "txt\u202e.exe.md", "c:evil.txt", "%252e%252e/w.txt"}
	files := map[string]string{"fine%41.txt": "fine\n", "ok.go": "package ok\n"}
	for _, p := range bad {
		files[p] = "hello\n"
	}
	testkit.WriteTree(t, src, files)
	res := runFixture(t, src, filepath.Join(t.TempDir(), "out"), nil)
	got := map[string]snapshot.Entry{}
	for _, e := range res.Manifest.Files {
		got[e.Path] = e
	}
	for _, p := range bad {
		if e := got[p]; e.Reason != "unsafe-name" || e.Staged {
			t.Errorf("%q: reason %q staged %v, want unsafe-name", p, e.Reason, e.Staged)
		}
	}
	if !got["fine%41.txt"].Staged {
		t.Error("fine%41.txt was not staged; a percent sign alone is servable")
	}
}

// TestDefaultOut: with no OUT the snapshot goes to the user's cache, not
// into the tree being scanned.
func TestDefaultOut(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	src := fixtureTree(t)
	before := treeState(t, src)
	res, err := Run(context.Background(), Options{Root: src})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(res.Report.Out, filepath.Join(cache, "repoprep", "svc-")) {
		t.Errorf("published to %s, want a directory under %s/repoprep", res.Report.Out, cache)
	}
	if treeState(t, src) != before {
		t.Error("the default run wrote into the source tree")
	}
	other := filepath.Join(t.TempDir(), "svc")
	noErr(t, os.Mkdir(other, 0o755))
	a, _ := snapshot.DefaultDir(src)
	b, _ := snapshot.DefaultDir(other)
	if a == b || a != res.Report.Out {
		t.Errorf("DefaultOut: %s and %s for two trees named svc; the run used %s", a, b, res.Report.Out)
	}
}
