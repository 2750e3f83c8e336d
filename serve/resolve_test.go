package serve

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/repoprep/repoprep/internal/testkit"
)

const secret = "TOP SECRET outside the tree"

// hostileServer publishes a snapshot, then does what an attacker with write
// access to OUT could: secrets beside the tree (in a sibling whose name
// starts with "tree", beside OUT, in OUT itself) and, at paths files.json
// lists as staged, symlinks, hard links, a symlinked directory and a FIFO.
func hostileServer(t testing.TB) (*Server, string) {
	t.Helper()
	s := baseSnap()
	for _, p := range []string{"planted/sym.txt", "planted/hard.txt", "planted/dirlink/secret.txt", "planted/fifo", "planted/inside.txt", "planted/abs.txt"} {
		s.files[p] = "harmless\n"
	}
	srv, out := newTestServer(t, &s, Options{})
	parent := filepath.Dir(out)
	outside := filepath.Join(parent, "outside")
	mustDo(t, os.MkdirAll(outside, 0o755))
	for _, p := range []string{
		filepath.Join(parent, "secret.txt"),
		filepath.Join(outside, "secret.txt"),
		filepath.Join(out, "tree_evil", "secret.txt"),
		filepath.Join(parent, "out_evil", "tree", "secret.txt"),
		filepath.Join(out, "secret.txt"),
	} {
		mustDo(t, os.MkdirAll(filepath.Dir(p), 0o755))
		mustDo(t, os.WriteFile(p, []byte(secret+"\n"), 0o644))
	}
	tree := filepath.Join(out, "tree")
	plant := func(name string, fn func(string) error) {
		p := filepath.Join(tree, name)
		mustDo(t, os.RemoveAll(p))
		mustDo(t, fn(p))
	}
	plant("planted/sym.txt", func(p string) error { return os.Symlink("../../../secret.txt", p) })
	plant("planted/abs.txt", func(p string) error { return os.Symlink(filepath.Join(outside, "secret.txt"), p) })
	plant("planted/hard.txt", func(p string) error { return os.Link(filepath.Join(outside, "secret.txt"), p) })
	plant("planted/dirlink", func(p string) error { return os.Symlink(outside, p) })
	plant("planted/fifo", func(p string) error { testkit.Mkfifo(t, p); return nil })
	plant("planted/inside.txt", func(p string) error { return os.Symlink("../src/app/main.go", p) })
	return srv, out
}

func mustDo(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// traversals are requests that must never be served from outside the tree.
var traversals = []string{
	"", ".", "..", "./", "/", "//etc/passwd", "/etc/passwd", "/secret.txt",
	"../secret.txt", "../../secret.txt", "../../../secret.txt", "../tree_evil/secret.txt",
	"../out_evil/tree/secret.txt", "../tree/src/app/main.go", "tree/../files.json",
	"../files.json", "files.json", "secret.txt", "tree_evil/secret.txt", "../../outside/secret.txt",
	"src/../../secret.txt", "src/app/../../../secret.txt", "./../secret.txt", ".//../secret.txt", "src//../../secret.txt",
	"src/app/main.go/", "src/app/main.go/.", "src/app/", "src/app", "src", "./", ".//", "./.",
	`src\app\main.go`, `..\secret.txt`, `a\..\..\b`, `..\..\outside\secret.txt`,
	"src/app/main.go\x00.txt", "\x00", "%00", "src/app/\nmain.go", "src/app/main.go\r", "\x7f", "\x1b[2J",
	"\xff\xfe", "src/\xc0\xaf",
	"%2e%2e%2fsecret.txt", "%2E%2E%2Fsecret.txt", "%2e%2e/secret.txt", "..%2fsecret.txt",
	"src%2f..%2f..%2fsecret.txt", "src/app/%2e%2e/%2e%2e/%2e%2e/secret.txt", "..%c0%afsecret.txt",
	"%252e%252e%252fsecret.txt", "%5c..%5csecret.txt",
	"．．／secret.txt", "．．/secret.txt", "src／..／..／secret.txt", "．．＼secret.txt", "‥/secret.txt", "／etc／passwd",
	`C:\Windows\win.ini`, "C:/Windows/win.ini", "c:secret.txt", "~/secret.txt",
	"planted/sym.txt", "planted/abs.txt", "planted/hard.txt", "planted/dirlink/secret.txt", "planted/dirlink",
	"planted/fifo", "planted/inside.txt", "link-out",
	strings.Repeat("a/", 3000) + "b",
}

func TestTraversalsRefused(t *testing.T) {
	if len(traversals) < 40 {
		t.Fatalf("only %d traversal inputs", len(traversals))
	}
	srv, _ := hostileServer(t)
	for _, name := range traversals {
		text, _, err := read(t, srv, ReadFileArgs{Files: []FileRequest{{Path: name}}})
		if strings.Contains(text, secret) || (err != nil && strings.Contains(err.Error(), secret)) {
			t.Fatalf("read %q served outside content", name)
		}
		if err == nil {
			t.Errorf("read %q succeeded:\n%s", name, text)
			continue
		}
		if !errors.Is(err, ErrRefused) && !errors.Is(err, ErrNotFound) {
			t.Errorf("read %q: %v, want refused or not found", name, err)
		}
	}
}

// The inputs that are traversals in spelling are refused by checkName
// itself, before files.json or the disk is consulted.
func TestCheckNameRefusesBeforeDisk(t *testing.T) {
	for _, name := range []string{
		"", "..", "../x", "/etc/passwd", `a\b`, "a\x00b", "a/../b", "a//b", "a/", "\x01",
		"%2e%2e%2fx", "..%2fx", "．．／x", "src／..／x", "C:/x", "‥/x", "\xff",
	} {
		if err := checkName(name); !errors.Is(err, ErrRefused) {
			t.Errorf("checkName(%q) = %v, want refused", name, err)
		}
	}
	for _, name := range []string{"a", "a/b.go", "a b/c d.txt", "..a/b", "a../b", "a/.b", "%41.txt", "中文/文件.md", "ab:c.txt"} {
		if err := checkName(name); err != nil {
			t.Errorf("checkName(%q) = %v, want accepted", name, err)
		}
	}
}

func FuzzResolve(f *testing.F) {
	for _, s := range append([]string{"a/b.go", "src/app/main.go", `a\..\..\b`, "a\x00b"}, traversals...) {
		f.Add(s)
	}
	srv, _ := hostileServer(f)
	f.Fuzz(func(t *testing.T, name string) {
		if err := checkName(name); err == nil {
			if !filepath.IsLocal(name) || strings.ContainsAny(name, "\\\x00") {
				t.Fatalf("checkName accepted %q, which is not a plain local path", name)
			}
		}
		text, res, err := read(t, srv, ReadFileArgs{Files: []FileRequest{{Path: name}}})
		if strings.Contains(text, secret) || (err != nil && strings.Contains(err.Error(), secret)) {
			t.Fatalf("read %q served content from outside the tree", name)
		}
		if err == nil {
			sn, _ := srv.acquire()
			defer srv.release(sn)
			want := normalizePath(name)
			e := sn.byPath[want]
			if e == nil || sn.canonical(e) == "" || res.Files[0].Path != want {
				t.Fatalf("read %q succeeded but files.json does not list it as readable", name)
			}
		}
	})
}

// A path inside the tree flips between a regular file and a symlink to a
// file outside, thousands of times, while reads run: no read may return the
// outside content (a check-then-open server leaks here; os.Root does not).
// Reads must land on both sides of the flip: some served, some refused.
//
// The whole pass makes 3,000 swaps. Under -short (make test's race pass)
// the same 4 readers run through at least 300 swaps, and on until reads
// were both served and refused (at most the whole pass's 3,000). Each
// reader yields after a read (runtime.Gosched): without it the readers
// kept both cores and each swap waited a scheduler slice (10 ms) after its
// system calls, 35 s for the 3,000, with no more reads meeting a swap.
func TestSymlinkSwapRace(t *testing.T) {
	s := baseSnap()
	s.files["race/target.txt"] = "inside content\n"
	srv, out := newTestServer(t, &s, Options{MaxInFlight: 64})
	outsideFile := filepath.Join(filepath.Dir(out), "outside.txt")
	mustDo(t, os.WriteFile(outsideFile, []byte(secret+"\n"), 0o644))
	dir := filepath.Join(out, "tree", "race")
	target := filepath.Join(dir, "target.txt")

	const maxSwaps = 3000
	minSwaps := maxSwaps
	if testing.Short() {
		minSwaps = 300
	}
	var stop atomic.Bool
	var served, refused, leaked atomic.Int64
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for !stop.Load() {
				text, _, err := read(t, srv, ReadFileArgs{Files: []FileRequest{{Path: "race/target.txt"}}})
				switch {
				case strings.Contains(text, secret):
					leaked.Add(1)
				case err == nil:
					served.Add(1)
				default:
					refused.Add(1)
				}
				runtime.Gosched()
			}
		})
	}
	swaps := 0
	for ; swaps < maxSwaps; swaps++ {
		if swaps >= minSwaps && served.Load() > 0 && refused.Load() > 0 {
			break // under -short only: otherwise minSwaps is maxSwaps
		}
		tmp := filepath.Join(dir, ".swap")
		if swaps%2 == 0 {
			mustDo(t, os.Symlink(outsideFile, tmp))
		} else {
			mustDo(t, os.WriteFile(tmp, []byte("inside content\n"), 0o644))
		}
		mustDo(t, os.Rename(tmp, target)) // atomic replace, as an attacker would
	}
	stop.Store(true)
	wg.Wait()
	if leaked.Load() > 0 {
		t.Fatalf("%d reads returned the outside file", leaked.Load())
	}
	t.Logf("%d swaps: %d reads served the inside file, %d refused, 0 leaked", swaps, served.Load(), refused.Load())
	if served.Load() == 0 {
		t.Error("no read succeeded; the race never exercised the open path")
	}
	if refused.Load() == 0 {
		t.Error("no read was refused; no read ever met the symlink")
	}
}

func TestEditDistance(t *testing.T) {
	tests := []struct {
		a, b  string
		limit int
		want  int
	}{
		{"main.go", "main.go", 3, 0},
		{"mian.go", "main.go", 3, 2},
		{"main.go", "main.gox", 3, 1},
		{"abc", "xyz", 5, 3},
		{"abc", "abcdefgh", 2, 3}, // over the limit: limit+1
	}
	for _, tt := range tests {
		if got := editDistance(tt.a, tt.b, tt.limit); got != tt.want {
			t.Errorf("editDistance(%q, %q, %d) = %d, want %d", tt.a, tt.b, tt.limit, got, tt.want)
		}
	}
}

// TestDotSegmentsTidied: a path whose "." and ".." segments stay inside the
// snapshot is read as the path it means; one that climbs out of it is
// refused before the disk is touched, and none reaches outside the tree.
func TestDotSegmentsTidied(t *testing.T) {
	srv, _ := hostileServer(t)
	for name, want := range map[string]string{
		"src/../src/app/main.go":          "src/app/main.go",
		"src/app/../app/./main.go":        "src/app/main.go",
		"./src/app/../../docs/guide.md":   "docs/guide.md",
		"src//app/..//app/util.go":        "src/app/util.go",
		"a b/../a b/spaced name.txt":      "a b/spaced name.txt",
		"docs/x/y/../../guide.md":         "docs/guide.md",
		"src/app/main.go/../main_test.go": "src/app/main_test.go", // lexical, as path.Clean reads it
	} {
		text, res, err := read(t, srv, ReadFileArgs{Files: []FileRequest{{Path: name}}})
		if err != nil {
			t.Errorf("read %q: %v, want %s", name, err, want)
			continue
		}
		if res.Files[0].Path != want || !strings.Contains(text, "[file: "+want+" | ") {
			t.Errorf("read %q: served as %q, want %q:\n%s", name, res.Files[0].Path, want, text)
		}
	}
	for _, name := range []string{
		"src/../../secret.txt", "src/app/../../../secret.txt", "../src/app/main.go", "./../secret.txt",
		"src/..", "src/app/../..", "src/../..", "src/app/../", "src/../src/app/",
	} {
		text, _, err := read(t, srv, ReadFileArgs{Files: []FileRequest{{Path: name}}})
		if err == nil || strings.Contains(text, secret) {
			t.Errorf("read %q served:\n%s", name, text)
		} else if !errors.Is(err, ErrRefused) {
			t.Errorf("read %q: %v, want refused", name, err)
		}
	}
	// ".." is read on the name, never through a link: planted/dirlink/..
	// is planted, whatever dirlink points to, so this names secret.txt at
	// the tree's root, which files.json does not list.
	text, _, err := read(t, srv, ReadFileArgs{Files: []FileRequest{{Path: "planted/dirlink/../../secret.txt"}}})
	if !errors.Is(err, ErrNotFound) || strings.Contains(text, secret) || !strings.Contains(err.Error(), `"secret.txt"`) {
		t.Errorf("read through a linked directory and back: %v\n%s", err, text)
	}
}
