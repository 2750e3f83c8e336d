package dirfd

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func mustT(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func openTree(t testing.TB, dir string, opts Options) *Tree {
	t.Helper()
	tr, err := Open(dir, opts)
	mustT(t, err)
	t.Cleanup(func() { tr.Close() })
	return tr
}

func lstatID(t testing.TB, p string) ID {
	t.Helper()
	var st unix.Stat_t
	mustT(t, unix.Lstat(p, &st))
	return IDOf(&st)
}

func openFDs(t testing.TB) int {
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("no /proc/self/fd: %v", err)
	}
	return len(entries)
}

// TestOpenFile: a regular file opens, blocking (so the runtime never polls
// it); anything else at the name is refused without being read or
// blocking on: a symlink (even to a file inside), a FIFO, a directory, or
// another file than the one the caller saw.
func TestOpenFile(t *testing.T) {
	dir := t.TempDir()
	mustT(t, os.WriteFile(filepath.Join(dir, "f.txt"), []byte("hello\n"), 0o644))
	mustT(t, os.WriteFile(filepath.Join(dir, "other.txt"), []byte("other\n"), 0o644))
	mustT(t, os.Symlink("f.txt", filepath.Join(dir, "link")))
	mustT(t, syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644))
	mustT(t, os.Mkdir(filepath.Join(dir, "sub"), 0o755))
	tr := openTree(t, dir, Options{})
	root := tr.Root()

	f, err := root.OpenFile("f.txt", lstatID(t, filepath.Join(dir, "f.txt")))
	mustT(t, err)
	flags, err := unix.FcntlInt(f.Fd(), unix.F_GETFL, 0)
	mustT(t, err)
	if flags&unix.O_NONBLOCK != 0 {
		t.Error("a regular file is left non-blocking")
	}
	f.Close()

	done := make(chan struct{})
	go func() {
		defer close(done)
		for name, want := range map[string]error{
			"link": ErrReplaced, "fifo": ErrNotRegular, "sub": ErrNotRegular, "missing": os.ErrNotExist,
		} {
			if _, err := root.OpenFile(name, ID{}); !errors.Is(err, want) {
				t.Errorf("OpenFile(%s) = %v, want %v", name, err, want)
			}
		}
		if _, err := root.OpenFile("other.txt", lstatID(t, filepath.Join(dir, "f.txt"))); !errors.Is(err, ErrReplaced) {
			t.Errorf("another file under the name: %v, want ErrReplaced", err)
		}
		for _, name := range []string{"..", ".", "sub/../f.txt", ""} {
			if _, err := root.OpenFile(name, ID{}); err == nil {
				t.Errorf("OpenFile(%q) opened a path, not a component", name)
			}
		}
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("an open blocked (the FIFO?)")
	}
}

// TestReopenChecksIdentity: a directory whose descriptor was evicted is
// reopened from its parent, and refused when the name now holds another
// directory (renamed away and replaced after the caller saw it).
func TestReopenChecksIdentity(t *testing.T) {
	dir := t.TempDir()
	mustT(t, os.MkdirAll(filepath.Join(dir, "a", "b"), 0o755))
	mustT(t, os.WriteFile(filepath.Join(dir, "a", "b", "f"), []byte("x"), 0o644))
	tr := openTree(t, dir, Options{MaxOpenDirs: 1})
	a := tr.Root().Child("a", lstatID(t, filepath.Join(dir, "a")))
	b := a.Child("b", lstatID(t, filepath.Join(dir, "a", "b")))
	names, err := b.ReadDir()
	mustT(t, err)
	if len(names) != 1 || names[0] != "f" {
		t.Fatalf("ReadDir = %q", names)
	}
	if tr.open > 1 {
		t.Errorf("%d descriptors cached, bound is 1", tr.open)
	}
	// Swap a for a look-alike holding a symlink where b was.
	mustT(t, os.Rename(filepath.Join(dir, "a"), filepath.Join(dir, "a.old")))
	mustT(t, os.Mkdir(filepath.Join(dir, "a"), 0o755))
	mustT(t, os.Symlink("/etc", filepath.Join(dir, "a", "b")))
	tr.shed()
	if _, err := b.ReadDir(); !errors.Is(err, ErrReplaced) {
		t.Errorf("ReadDir through a replaced parent = %v, want ErrReplaced", err)
	}
	// The path is no help either: b itself is a symlink now.
	b2 := tr.Root().Child("a", ID{}).Child("b", ID{})
	if _, err := b2.ReadDir(); err == nil {
		t.Error("a symlinked directory was followed")
	}
}

// TestDescriptorsBounded: walking 300 sibling directories keeps at most
// MaxOpenDirs descriptors cached.
func TestDescriptorsBounded(t *testing.T) {
	dir := t.TempDir()
	for i := range 300 {
		mustT(t, os.MkdirAll(filepath.Join(dir, fmt.Sprintf("d%03d", i), "x"), 0o755))
	}
	tr := openTree(t, dir, Options{MaxOpenDirs: 8})
	before := openFDs(t)
	for i := range 300 {
		d := tr.Root().Child(fmt.Sprintf("d%03d", i), ID{}).Child("x", ID{})
		if _, err := d.ReadDir(); err != nil {
			t.Fatal(err)
		}
	}
	if n := openFDs(t) - before; n > 8 {
		t.Errorf("%d descriptors held after the walk, want at most 8", n)
	}
}

// TestShedsCacheWhenOutOfDescriptors: a process out of descriptors gives
// back its cached directories and the open goes through; one with nothing
// to give back fails with EMFILE, which IsResource reports.
func TestShedsCacheWhenOutOfDescriptors(t *testing.T) {
	dir := t.TempDir()
	for i := range 40 {
		mustT(t, os.Mkdir(filepath.Join(dir, fmt.Sprintf("d%02d", i)), 0o755))
	}
	tr := openTree(t, dir, Options{MaxOpenDirs: 1000})
	for i := range 39 {
		_, err := tr.Root().Child(fmt.Sprintf("d%02d", i), ID{}).ReadDir()
		mustT(t, err)
	}
	var old unix.Rlimit
	mustT(t, unix.Getrlimit(unix.RLIMIT_NOFILE, &old))
	defer unix.Setrlimit(unix.RLIMIT_NOFILE, &old)
	// The next descriptor would be the lowest free one: a limit at its
	// number leaves none.
	lowestFree := func() uint64 {
		fd, err := unix.Dup(0)
		mustT(t, err)
		unix.Close(fd)
		return uint64(fd)
	}
	mustT(t, unix.Setrlimit(unix.RLIMIT_NOFILE, &unix.Rlimit{Cur: lowestFree(), Max: old.Max}))
	if _, err := tr.Root().Child("d39", ID{}).ReadDir(); err != nil {
		t.Errorf("with 39 cached descriptors to give back: %v", err)
	}
	mustT(t, unix.Setrlimit(unix.RLIMIT_NOFILE, &old))
	tr.shed()
	mustT(t, unix.Setrlimit(unix.RLIMIT_NOFILE, &unix.Rlimit{Cur: lowestFree(), Max: old.Max}))
	_, err := tr.Root().Child("d00", ID{}).ReadDir()
	mustT(t, unix.Setrlimit(unix.RLIMIT_NOFILE, &old))
	if !IsResource(err) || !errors.Is(err, unix.EMFILE) {
		t.Errorf("out of descriptors with none cached: %v, want EMFILE", err)
	}
}

func TestIsResource(t *testing.T) {
	for err, want := range map[error]bool{
		unix.EMFILE: true, unix.ENFILE: true, unix.ENOMEM: true, unix.EIO: true, unix.ENOSPC: true,
		fmt.Errorf("read x: %w", &os.PathError{Op: "read", Path: "x", Err: unix.EIO}): true,
		unix.EACCES: false, unix.ENOENT: false, unix.ENAMETOOLONG: false, ErrReplaced: false, nil: false,
	} {
		if got := IsResource(err); got != want {
			t.Errorf("IsResource(%v) = %v, want %v", err, got, want)
		}
	}
}
