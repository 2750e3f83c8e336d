package dirfd

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
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
	st, err := Lstat(p)
	mustT(t, err)
	return st.ID
}

func openFDs(t testing.TB) int {
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("no /proc/self/fd: %v", err)
	}
	return len(entries)
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

// TestStat: Lstat by path and Dir.Lstat agree with os.Lstat on type and
// size, never follow a symlink, and give the same identity for the same
// file and another one for another file (os.SameFile decides).
func TestStat(t *testing.T) {
	dir := t.TempDir()
	mustT(t, os.WriteFile(filepath.Join(dir, "f.txt"), []byte("hello\n"), 0o644))
	mustT(t, os.WriteFile(filepath.Join(dir, "g.txt"), nil, 0o644))
	mustT(t, os.Mkdir(filepath.Join(dir, "sub"), 0o755))
	names := []string{"f.txt", "g.txt", "sub"}
	if err := os.Symlink("f.txt", filepath.Join(dir, "link")); err == nil {
		names = append(names, "link")
	} else {
		t.Logf("no symlink (%v): not checked", err)
	}
	if err := os.Symlink("sub", filepath.Join(dir, "dirlink")); err == nil {
		names = append(names, "dirlink")
	}
	tr := openTree(t, dir, Options{})
	for _, name := range names {
		p := filepath.Join(dir, name)
		fi, err := os.Lstat(p)
		mustT(t, err)
		byPath, err := Lstat(p)
		mustT(t, err)
		inDir, err := tr.Root().Lstat(name)
		mustT(t, err)
		if byPath != inDir {
			t.Errorf("%s: Lstat = %+v, Dir.Lstat = %+v", name, byPath, inDir)
		}
		if inDir.Type != fi.Mode().Type() {
			t.Errorf("%s: type %v, os.Lstat says %v", name, inDir.Type, fi.Mode().Type())
		}
		if fi.Mode().IsRegular() && inDir.Size != fi.Size() {
			t.Errorf("%s: size %d, os.Lstat says %d", name, inDir.Size, fi.Size())
		}
		if inDir.IsDir() != fi.IsDir() || inDir.IsRegular() != fi.Mode().IsRegular() || inDir.IsSymlink() != (fi.Mode()&os.ModeSymlink != 0) {
			t.Errorf("%s: IsDir/IsRegular/IsSymlink disagree with %v", name, fi.Mode())
		}
		for _, other := range names {
			ofi, err := os.Lstat(filepath.Join(dir, other))
			mustT(t, err)
			ost, err := Lstat(filepath.Join(dir, other))
			mustT(t, err)
			if same := ost.ID == inDir.ID; same != os.SameFile(fi, ofi) {
				t.Errorf("%s and %s: same identity %v, os.SameFile %v", name, other, same, !same)
			}
		}
	}
	if _, err := Lstat(filepath.Join(dir, "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Lstat(missing) = %v, want ErrNotExist", err)
	}
}

// TestReadDirAgain: a cached descriptor read once lists everything again
// (Linux rewinds it for getdents; other Unixes read through a duplicate
// sharing its offset; Windows restarts the listing).
func TestReadDirAgain(t *testing.T) {
	dir := t.TempDir()
	var want []string
	for i := range 300 { // more than one buffer of entries
		name := fmt.Sprintf("file-with-a-longish-name-%03d.txt", i)
		want = append(want, name)
		mustT(t, os.WriteFile(filepath.Join(dir, name), nil, 0o644))
	}
	tr := openTree(t, dir, Options{})
	for round := range 3 {
		names, err := tr.Root().ReadDir()
		mustT(t, err)
		slices.Sort(names)
		if !slices.Equal(names, want) {
			t.Fatalf("round %d: %d names, want %d", round, len(names), len(want))
		}
	}
}

// TestATimeMovedCounted: where opens can keep access times (Linux, as the
// files' owner) none is counted; where the platform cannot (KeepsATime
// false), every open is, so report.json's atime_not_kept says so.
func TestATimeMovedCounted(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"a", "b", "c"} {
		mustT(t, os.WriteFile(filepath.Join(dir, name), []byte(name), 0o644))
	}
	tr := openTree(t, dir, Options{ATimeRefused: func() { t.Error("O_NOATIME refused for the files' owner") }})
	for _, name := range []string{"a", "b", "c"} {
		f, err := tr.Root().OpenFile(name, ID{})
		mustT(t, err)
		f.Close()
	}
	want := int64(0)
	if !KeepsATime {
		want = 3
	}
	if got := tr.ATimeMoved(); got != want {
		t.Errorf("ATimeMoved = %d after 3 opens, want %d (KeepsATime %v)", got, want, KeepsATime)
	}
}

// OpenPlain and CreatePlain keep os.Open's and os.OpenFile(O_EXCL)'s
// semantics: the same errors for a missing or existing file, the mode
// asked for, and files that read and write.
func TestPlainOpenAndCreate(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "f")
	if _, err := OpenPlain(name); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("OpenPlain of a missing file: %v", err)
	}
	f, err := CreatePlain(name, 0o640)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte("hello")); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := CreatePlain(name, 0o644); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("CreatePlain over an existing file: %v", err)
	}
	if info, err := os.Stat(name); err != nil || runtime.GOOS != "windows" && info.Mode().Perm()&^0o640 != 0 {
		t.Fatalf("mode %v, %v; want at most 0640", info.Mode(), err)
	}
	g, err := OpenPlain(name)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if data, err := io.ReadAll(g); err != nil || string(data) != "hello" {
		t.Fatalf("read %q, %v", data, err)
	}
}
