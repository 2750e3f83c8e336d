//go:build unix

package pipeline

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/repoprep/repoprep/internal/dirfd"
	"github.com/repoprep/repoprep/internal/testkit"
	"github.com/repoprep/repoprep/report"
	"github.com/repoprep/repoprep/snapshot"
)

// TestUnreadableFile: a file the user cannot read is recorded with reason
// "unreadable" and the run goes on. Root reads mode-000 files, so the run
// happens in a child process as nobody.
func TestUnreadableFile(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to start a child as nobody")
	}
	t.Parallel() // changes no package state: see TestMain
	base := t.TempDir()
	letNobodyTraverse(t, base)
	src := filepath.Join(base, "src")
	os.MkdirAll(filepath.Join(src, "locked-dir"), 0o755)
	os.WriteFile(filepath.Join(src, "ok.go"), []byte("package ok\n"), 0o644)
	os.WriteFile(filepath.Join(src, "secret.txt"), []byte("can't read me\n"), 0o000)
	// Left out by its name, then opened by the secret scan of left-out files.
	os.WriteFile(filepath.Join(src, "debug.log"), []byte("can't read me either\n"), 0o000)
	os.WriteFile(filepath.Join(src, "locked-dir", "inner.txt"), []byte("x\n"), 0o644)
	os.Chmod(filepath.Join(src, "locked-dir"), 0o000)
	outParent := filepath.Join(base, "outs")
	os.Mkdir(outParent, 0o755)
	os.Chown(outParent, 65534, 65534)
	t.Cleanup(func() { os.Chmod(filepath.Join(src, "locked-dir"), 0o755) })

	out := filepath.Join(outParent, "out")
	if b, err := runAsNobody(t, base, src, out); err != nil {
		t.Fatalf("run as nobody failed: %v\n%s", err, b)
	}
	m, err := snapshot.ReadManifest(out)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]snapshot.Entry{}
	for _, e := range m.Files {
		got[e.Path] = e
	}
	if e := got["secret.txt"]; e.Reason != "unreadable" || e.Staged || !strings.Contains(e.Err, "permission denied") {
		t.Errorf("secret.txt = %+v, want unreadable with the cause", e)
	}
	if e := got["debug.log"]; e.Staged || !strings.Contains(e.Err, "permission denied") {
		t.Errorf("debug.log = %+v, want left out with the cause of the failed read", e)
	}
	if e := got["ok.go"]; !e.Staged {
		t.Errorf("ok.go not staged: the run did not go on")
	}
	found := false
	for _, p := range m.Pruned {
		found = found || p.Path == "locked-dir" && p.Reason == "unreadable"
	}
	if !found {
		t.Errorf("locked-dir not recorded as unreadable: %+v", m.Pruned)
	}
}

// runAsNobody runs the pipeline on src in a child process as nobody and
// returns its combined output. base must be a directory nobody can enter.
func runAsNobody(t *testing.T, base, src, out string) ([]byte, error) {
	t.Helper()
	bin, err := nobodyBinary()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-test.run=^$")
	cmd.Env = append(os.Environ(), childSrc+"="+src, childOut+"="+out)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	return cmd.CombinedOutput()
}

// nobodyBinary is this test binary copied once per process where nobody
// can run it (the build directory is closed to nobody): beside the
// tokenizer's tables TestMain keeps for the children, so that every child
// of every test runs the same executable and only the first builds them
// (a copy per test built them once each, 2-4 s under -race).
var nobodyBinary = sync.OnceValues(func() (string, error) {
	dir := os.Getenv(childTokens)
	if dir == "" {
		return "", errors.New("TestMain made no directory for the children")
	}
	self, err := os.ReadFile(os.Args[0])
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "pipeline.test")
	return bin, os.WriteFile(bin, self, 0o755)
})

// nobodyBase makes a temporary directory nobody can traverse, with an
// output parent nobody owns.
// letNobodyTraverse adds search permission for others to dir and each of
// its parents that lacks it (t.TempDir makes 0700 directories), keeping
// every other bit: /tmp keeps its sticky bit and a parent is never opened
// up beyond traversal.
func letNobodyTraverse(t *testing.T, dir string) {
	t.Helper()
	for d := dir; d != "/"; d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm()&0o001 != 0 {
			continue
		}
		keep := fi.Mode() & (os.ModePerm | os.ModeSticky | os.ModeSetuid | os.ModeSetgid)
		if err := os.Chmod(d, keep|0o055); err != nil {
			t.Fatal(err)
		}
	}
}

func nobodyBase(t *testing.T) (base, outParent string) {
	t.Helper()
	if os.Getuid() != 0 {
		t.Skip("needs root to start a child as nobody")
	}
	base = t.TempDir()
	letNobodyTraverse(t, base)
	outParent = filepath.Join(base, "outs")
	if err := os.Mkdir(outParent, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(outParent, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	return base, outParent
}

// TestReadOnlySnapshotDoesNotWedge: a user who makes a published snapshot
// read-only (chmod -R a-w) cannot remove it without making it writable
// again; runs that follow must still publish and leave nothing behind
// (a previous snapshot that could not be removed used to fail every later
// run in its cleanup).
func TestReadOnlySnapshotDoesNotWedge(t *testing.T) {
	base, outParent := nobodyBase(t)
	t.Parallel() // changes no package state: see TestMain
	src := filepath.Join(base, "src")
	testkit.WriteTree(t, src, map[string]string{"a.go": "package a\n", "docs/b.md": "# b\n"})
	out := filepath.Join(outParent, "out")
	for i := range 3 {
		if b, err := runAsNobody(t, base, src, out); err != nil {
			t.Fatalf("run %d as nobody failed: %v\n%s", i, err, b)
		}
		if err := exec.Command("chmod", "-R", "a-w", out).Run(); err != nil {
			t.Fatal(err)
		}
	}
	entries, _ := os.ReadDir(outParent)
	for _, e := range entries {
		if e.Name() != "out" && e.Name() != ".out.lock" {
			t.Errorf("left beside OUT: %s", e.Name())
		}
	}
	exec.Command("chmod", "-R", "u+w", out).Run() // let the test clean up
}

// TestATimeRefusedSaidOnce: a user who does not own the files cannot open
// them with O_NOATIME; the run says so once (not per file) and counts the
// files in report.json, rather than moving atimes silently.
func TestATimeRefusedSaidOnce(t *testing.T) {
	if !dirfd.KeepsATime {
		t.Skip("no O_NOATIME on this platform (or built with repoprep_portable): nothing is refused")
	}
	base, outParent := nobodyBase(t)
	t.Parallel() // changes no package state: see TestMain
	src := filepath.Join(base, "src")
	testkit.WriteTree(t, src, map[string]string{"a.go": "package a\n", "b.go": "package b\n", "c.md": "# c\n"})
	out := filepath.Join(outParent, "out")
	b, err := runAsNobody(t, base, src, out)
	if err != nil {
		t.Fatalf("run as nobody failed: %v\n%s", err, b)
	}
	if n := strings.Count(string(b), "cannot keep access times"); n != 1 {
		t.Errorf("said %d times, want once:\n%s", n, b)
	}
	data, err := os.ReadFile(filepath.Join(out, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rep report.Report
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.ATimeNotKept < 3 {
		t.Errorf("report.json atime_not_kept = %d, want every file opened", rep.ATimeNotKept)
	}
}
