package refresh

import (
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zeebo/blake3"
)

// TestBuildDigestKept: the build's digest is hashed once per executable
// and read back by the next process from the cache directory, keyed by the
// executable's identity: a file that says another digest for the same
// identity is believed (so the test can tell a read from a hash), one for
// another identity, a damaged one or a symlink is not, and a rewritten
// executable is hashed again. Without a directory nothing is kept.
func TestBuildDigestKept(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cache")
	exe := filepath.Join(t.TempDir(), "exe")
	body := []byte(strings.Repeat("a program's bytes ", 1000))
	if err := os.WriteFile(exe, body, 0o755); err != nil {
		t.Fatal(err)
	}
	sum := blake3.Sum256(body)
	want := hex.EncodeToString(sum[:])
	digest := func() string {
		t.Helper()
		f, err := os.Open(exe)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		d, err := digestOf(f, dir)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	kept := func() string { // the one digest file in dir
		t.Helper()
		names, _ := filepath.Glob(filepath.Join(dir, "build-*"))
		if len(names) != 1 {
			t.Fatalf("digest files %v, want one", names)
		}
		return names[0]
	}
	if d := digest(); d != want {
		t.Fatalf("first digest %s, want %s", d, want)
	}
	name := kept()
	b, _ := os.ReadFile(name)
	planted := strings.Repeat("ab", 32)
	if err := os.WriteFile(name, []byte(strings.Replace(string(b), want, planted, 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	if d := digest(); d != planted {
		t.Fatalf("second digest %s: the kept one (%s) was not read", d, planted)
	}
	for _, tc := range []struct {
		name  string
		plant func()
	}{
		{"another identity's", func() {
			lines := strings.Split(strings.Replace(string(b), want, planted, 1), "\n")
			lines[1] = "1/2/3/4.5/6.7"
			os.WriteFile(name, []byte(strings.Join(lines, "\n")), 0o600)
		}},
		{"one with more after it", func() {
			os.WriteFile(name, []byte(strings.Replace(string(b), want, planted, 1)+"x"), 0o600)
		}},
		{"damaged", func() { os.WriteFile(name, []byte(buildMagic+"\n"), 0o600) }},
		{"not hex", func() {
			os.WriteFile(name, []byte(strings.Replace(string(b), want, strings.Repeat("zz", 32), 1)), 0o600)
		}},
		{"a symlink", func() {
			other := filepath.Join(t.TempDir(), "planted")
			os.WriteFile(other, []byte(strings.Replace(string(b), want, planted, 1)), 0o600)
			os.Remove(name)
			os.Symlink(other, name)
		}},
	} {
		tc.plant()
		if d := digest(); d != want {
			t.Errorf("%s file: digest %s, want it hashed again (%s)", tc.name, d, want)
		}
	}
	// A rebuilt executable (same size, new bytes, its times moved) is
	// hashed again, whatever the old file says.
	os.WriteFile(name, []byte(strings.Replace(string(b), want, planted, 1)), 0o600)
	body[0] = 'A'
	time.Sleep(10 * time.Millisecond)
	if err := os.WriteFile(exe, body, 0o755); err != nil {
		t.Fatal(err)
	}
	sum = blake3.Sum256(body)
	if d := digest(); d != hex.EncodeToString(sum[:]) {
		t.Errorf("rebuilt executable: digest %s, want its own", d)
	}
	// No directory: hashed, nothing written.
	dir = filepath.Join(t.TempDir(), "none")
	f, _ := os.Open(exe)
	defer f.Close()
	if d, err := digestOf(f, ""); err != nil || d != hex.EncodeToString(sum[:]) {
		t.Errorf("no cache: %s, %v", d, err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("no cache, yet %s exists", dir)
	}
}

// TestBuildDigestsPruned: a directory keeps the newest keepBuilds digest
// files, whatever else it holds.
func TestBuildDigestsPruned(t *testing.T) {
	dir := t.TempDir()
	for i := range keepBuilds + 3 {
		name := filepath.Join(dir, "build-"+strings.Repeat(string(rune('a'+i)), 16))
		os.WriteFile(name, []byte("x"), 0o600)
		old := time.Now().Add(time.Duration(i-20) * time.Minute)
		os.Chtimes(name, old, old)
	}
	os.WriteFile(filepath.Join(dir, "o200k-tables"), []byte("y"), 0o600)
	pruneBuilds(dir)
	names, _ := filepath.Glob(filepath.Join(dir, "build-*"))
	if len(names) != keepBuilds {
		t.Fatalf("%d digest files left, want %d", len(names), keepBuilds)
	}
	for _, gone := range []string{"aaaa", "bbbb", "cccc"} {
		if _, err := os.Stat(filepath.Join(dir, "build-"+strings.Repeat(gone[:1], 16))); err == nil {
			t.Errorf("the oldest, build-%s..., was kept", gone[:1])
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "o200k-tables")); err != nil {
		t.Error("another cache's file was removed")
	}
}
