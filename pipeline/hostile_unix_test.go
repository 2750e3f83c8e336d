//go:build unix

package pipeline

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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
	base := t.TempDir()
	for d := base; d != "/"; d = filepath.Dir(d) {
		os.Chmod(d, 0o755) // let nobody traverse the temp dirs
	}
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
	// The test binary sits in a build dir nobody cannot enter: copy it out.
	bin := filepath.Join(base, "pipeline.test")
	if _, err := os.Stat(bin); err != nil {
		self, err := os.ReadFile(os.Args[0])
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(bin, self, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(bin, "-test.run=^$")
	cmd.Env = append(os.Environ(), childSrc+"="+src, childOut+"="+out)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	return cmd.CombinedOutput()
}

// nobodyBase makes a temporary directory nobody can traverse, with an
// output parent nobody owns.
func nobodyBase(t *testing.T) (base, outParent string) {
	t.Helper()
	if os.Getuid() != 0 {
		t.Skip("needs root to start a child as nobody")
	}
	base = t.TempDir()
	for d := base; d != "/"; d = filepath.Dir(d) {
		os.Chmod(d, 0o755) // let nobody traverse the temp dirs
	}
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
