//go:build unix

package dirfd

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

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

// TestReopenDeepChain: a directory 300 levels down, behind names of 100
// bytes (a path of 30 KB, far past PATH_MAX), whose ancestors were all
// evicted, is reopened from the root in a few opens where the kernel walks
// paths (each within PATH_MAX), and its identity is still checked: moved
// away and replaced by another directory of the same name, it is refused.
func TestReopenDeepChain(t *testing.T) {
	dir := t.TempDir()
	name := strings.Repeat("n", 100)
	r, err := os.OpenRoot(dir)
	mustT(t, err)
	for range 300 {
		mustT(t, r.Mkdir(name, 0o755))
		next, err := r.OpenRoot(name)
		mustT(t, err)
		r.Close()
		r = next
	}
	mustT(t, r.WriteFile("f", []byte("bottom\n"), 0o644))
	r.Close()
	tr := openTree(t, dir, Options{MaxOpenDirs: 4})
	d := tr.Root()
	for range 300 {
		st, err := d.Lstat(name)
		mustT(t, err)
		d = d.Child(name, st.ID)
	}
	tr.shed() // every ancestor evicted
	opens := tr.dirOpens.Load()
	f, err := d.OpenFile("f", ID{})
	mustT(t, err)
	b, _ := io.ReadAll(f)
	f.Close()
	if string(b) != "bottom\n" {
		t.Fatalf("read %q", b)
	}
	n := tr.dirOpens.Load() - opens
	t.Logf("reopened 300 levels in %d opens", n)
	if tr.walksPaths() && n > 30 {
		t.Errorf("reopening 300 evicted levels took %d opens, want a few (each walking up to PATH_MAX)", n)
	}
	// The bottom directory moved away and replaced by a new one.
	mustT(t, d.Parent().Do(func(a At) error { return unix.Renameat(a.fd, name, a.fd, "moved") }))
	mustT(t, d.Parent().Do(func(a At) error { return unix.Mkdirat(a.fd, name, 0o755) }))
	tr.shed()
	if _, err := d.OpenFile("f", ID{}); !errors.Is(err, ErrReplaced) {
		t.Errorf("opening below a replaced directory: %v, want ErrReplaced", err)
	}
}
