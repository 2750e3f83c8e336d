package snapshot

import (
	"bufio"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// The crash test needs a second process, killed between the two renames
// of a publication without RENAME_EXCHANGE: the test binary re-runs
// itself in child mode for that.
const childOut = "REPOPREP_TEST_PUBLISH_OUT"

func TestMain(m *testing.M) {
	if out := os.Getenv(childOut); out != "" {
		renameExchange = func(string, string) error { return syscall.EINVAL }
		afterMoveAside = func() { killSelf(); select {} }
		if err := publishFixture(out, "second"); err != nil {
			fmt.Fprintln(os.Stderr, "child:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// publishFixture publishes a snapshot of one staged file, text, to out.
func publishFixture(out, text string) error {
	lock, err := Acquire(out, slog.New(slog.DiscardHandler))
	if err != nil {
		return err
	}
	defer lock.Release()
	p, err := lock.Begin()
	if err != nil {
		return err
	}
	defer p.Discard()
	m := &Manifest{Schema: FilesSchema, Files: []Entry{{Path: "a.txt", Staged: true}}}
	if err := os.Mkdir(p.Path(TreeDir), 0o755); err != nil {
		return err
	}
	if err := WriteFile(filepath.Join(p.Path(TreeDir), "a.txt"), func(w *bufio.Writer) error { _, err := w.WriteString(text); return err }); err != nil {
		return err
	}
	if err := p.WriteJSON(FilesJSON, m); err != nil {
		return err
	}
	return p.Publish()
}

// dirState digests every name, mode and content below root.
func dirState(t *testing.T, root string) string {
	t.Helper()
	h := sha256.New()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s %v\n", strings.TrimPrefix(p, root), info.Mode())
		if info.Mode().IsRegular() {
			f, err := os.Open(p)
			if err != nil {
				return err
			}
			defer f.Close()
			io.Copy(h, f)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%x", h.Sum(nil))
}

// assertNoLeftovers fails when anything but OUT lies beside it: a
// temporary snapshot or the lock file.
func assertNoLeftovers(t *testing.T, parent string) {
	t.Helper()
	entries, _ := os.ReadDir(parent)
	for _, e := range entries {
		if e.Name() != "out" {
			t.Errorf("%s left beside OUT", e.Name())
		}
	}
}

// TestPublishWithoutExchange: where the filesystem has no RENAME_EXCHANGE
// the two-rename fallback publishes, removes the previous snapshot and
// leaves nothing behind.
func TestPublishWithoutExchange(t *testing.T) {
	defer func(f func(string, string) error) { renameExchange = f }(renameExchange)
	renameExchange = func(string, string) error { return syscall.EINVAL }
	parent := t.TempDir()
	out := filepath.Join(parent, "out")
	for _, text := range []string{"first", "second"} {
		if err := publishFixture(out, text); err != nil {
			t.Fatal(err)
		}
	}
	if b, err := os.ReadFile(filepath.Join(out, TreeDir, "a.txt")); err != nil || string(b) != "second" {
		t.Fatalf("published: %q, %v; want the second snapshot", b, err)
	}
	assertNoLeftovers(t, parent)
}

// TestKilledBetweenRenames: without RENAME_EXCHANGE, a run killed after it
// moved the previous snapshot aside and before it moved the new one in
// leaves no OUT; the next run to take the lock puts the previous snapshot
// back (it does not delete it) before anything else, so even a next run
// that fails leaves OUT as it was.
func TestKilledBetweenRenames(t *testing.T) {
	parent := t.TempDir()
	out := filepath.Join(parent, "out")
	if err := publishFixture(out, "first"); err != nil {
		t.Fatal(err)
	}
	before := dirState(t, out)

	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childOut+"="+out)
	err := cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || !killedHard(exit) {
		t.Fatalf("child: %v, want killed by SIGKILL between the renames", err)
	}
	if _, err := os.Lstat(out); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("OUT after the crash: %v; the crash was not between the renames", err)
	}
	aside, _ := filepath.Glob(filepath.Join(parent, ".out.tmp-*.old"))
	if len(aside) != 1 {
		t.Fatalf("previous snapshot not found aside: %v", aside)
	}

	lock, err := Acquire(out, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(out); err != nil {
		t.Fatalf("the previous snapshot was not restored: %v", err)
	}
	if dirState(t, out) != before {
		t.Fatal("the restored snapshot differs from the one the killed run moved aside")
	}
	lock.Release() // a run that fails here leaves OUT restored
	if err := publishFixture(out, "third"); err != nil {
		t.Fatal(err)
	}
	assertNoLeftovers(t, parent)
}

// TestSecondLockRefused: while one holder has the lock, a second gets
// ErrLocked naming OUT as it was given, and the first one's pending
// snapshot is left alone.
func TestSecondLockRefused(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	first, err := Acquire(out, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer first.Release()
	p, err := first.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer p.Discard()
	_, err = Acquire(out, slog.New(slog.DiscardHandler))
	if !errors.Is(err, ErrLocked) || !strings.HasPrefix(err.Error(), out+": ") {
		t.Fatalf("second Acquire: %v, want ErrLocked naming %s", err, out)
	}
	if _, err := os.Stat(p.Dir()); err != nil {
		t.Errorf("the first holder's pending snapshot: %v", err)
	}
}

// TestRemoveOwnTreeStaysInside: removing a snapshot removes all of it,
// deep and wide, on several goroutines, and nothing a symlink inside it
// points to, whichever level the link sits at; a read-only level is made
// writable first.
func TestRemoveOwnTreeStaysInside(t *testing.T) {
	must := func(t *testing.T, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	outside := filepath.Join(dir, "outside")
	snap := filepath.Join(dir, "snap")
	files := map[string]string{"keep/a.txt": "a", "keep/sub/b.txt": "b"}
	for i := range 20 {
		files[fmt.Sprintf("tree/d%d/e%d/f/g/h.txt", i, i)] = "x"
		files[fmt.Sprintf("tree/d%d/top.txt", i)] = "y"
	}
	for name, text := range files {
		root := snap
		if strings.HasPrefix(name, "keep/") {
			root = outside
		}
		p := filepath.Join(root, filepath.FromSlash(name))
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.WriteFile(p, []byte(text), 0o644))
	}
	for _, link := range []string{"l1", "tree/l2", "tree/d0/l3", "tree/d0/e0/l4", "tree/d1/e1/f/l5"} {
		must(t, os.Symlink(filepath.Join(outside, "keep"), filepath.Join(snap, link)))
	}
	must(t, os.Chmod(filepath.Join(snap, "tree/d2/e2"), 0o555))
	if err := removeOwnTree(snap); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(snap); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the snapshot is still there: %v", err)
	}
	for _, name := range []string{"keep/a.txt", "keep/sub/b.txt"} {
		if _, err := os.Stat(filepath.Join(outside, name)); err != nil {
			t.Errorf("%s, outside the snapshot, is gone: %v", name, err)
		}
	}
}
