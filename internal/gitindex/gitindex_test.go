package gitindex

import (
	"bufio"
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// git runs the git binary in dir with no user or system configuration,
// for tests that make their own repositories (never on a tree under test).
func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "HOME="+dir,
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func needGit(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git binary")
	}
}

// lsFiles is `git ls-files -z`, once per path: the reference.
func lsFiles(t *testing.T, dir string) []string {
	var paths []string
	for p := range strings.SplitSeq(git(t, dir, "ls-files", "-z"), "\x00") {
		if p != "" {
			paths = append(paths, p)
		}
	}
	slices.Sort(paths)
	return slices.Compact(paths)
}

func readIndex(t *testing.T, dir string) (*Paths, error) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
	if err != nil {
		t.Fatal(err)
	}
	return Read(bytes.NewReader(data), int64(len(data)))
}

func all(p *Paths) []string {
	var out []string
	for i := range p.Len() {
		out = append(out, p.At(i))
	}
	return out
}

// makeRepo writes files (with directories) and adds them all.
func makeRepo(t *testing.T, initArgs ...string) string {
	dir := t.TempDir()
	git(t, dir, append([]string{"init", "-q"}, initArgs...)...)
	for _, name := range []string{
		"README.md", "a-b", "a/b", "a/b.c", "a0", "deep/er/and/deeper/x.go", "sp ace/é.txt",
		"pkg/__init__.py", "z/" + strings.Repeat(strings.Repeat("long", 50)+"/", 8) + "x.txt",
	} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(name+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git(t, dir, "add", "-A")
	return dir
}

func TestReadMatchesLsFiles(t *testing.T) {
	needGit(t)
	for _, tc := range []struct {
		name  string
		init  []string
		setup func(t *testing.T, dir string)
	}{
		{name: "v2", setup: func(t *testing.T, dir string) { git(t, dir, "update-index", "--index-version", "2") }},
		{name: "v3 with intent-to-add", setup: func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, "later.txt"), []byte("x"), 0o644)
			git(t, dir, "add", "-N", "later.txt") // an extended flag: git writes version 3
		}},
		{name: "v4", setup: func(t *testing.T, dir string) { git(t, dir, "update-index", "--index-version", "4") }},
		{name: "with a cache tree", setup: func(t *testing.T, dir string) {
			git(t, dir, "commit", "-q", "-m", "one") // writes the TREE extension
		}},
		{name: "sha256", init: []string{"--object-format=sha256"}},
		{name: "merge conflict", setup: func(t *testing.T, dir string) {
			git(t, dir, "commit", "-q", "-m", "base")
			git(t, dir, "checkout", "-q", "-b", "other")
			os.WriteFile(filepath.Join(dir, "README.md"), []byte("theirs\n"), 0o644)
			git(t, dir, "commit", "-q", "-am", "theirs")
			git(t, dir, "checkout", "-q", "-")
			os.WriteFile(filepath.Join(dir, "README.md"), []byte("ours\n"), 0o644)
			git(t, dir, "commit", "-q", "-am", "ours")
			cmd := exec.Command("git", "merge", "-q", "other")
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "HOME="+dir)
			cmd.Run() // fails with the conflict: README.md at stages 1, 2 and 3
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := makeRepo(t, tc.init...)
			if tc.setup != nil {
				tc.setup(t, dir)
			}
			p, err := readIndex(t, dir)
			if err != nil {
				t.Fatal(err)
			}
			want := lsFiles(t, dir)
			if got := all(p); !slices.Equal(got, want) {
				t.Fatalf("paths\n got %q\nwant %q", got, want)
			}
			for _, w := range want {
				if !p.Has(w) {
					t.Errorf("Has(%q) = false", w)
				}
			}
			for _, tc := range []struct {
				path         string
				has, isUnder bool
			}{
				{"a", false, true}, {"a/b", true, false}, {"a/", false, false}, {"deep/er", false, true},
				{"deep/e", false, false}, {"de", false, false}, {"pkg", false, true}, {"nothing", false, false},
			} {
				if got := p.Has(tc.path); got != tc.has {
					t.Errorf("Has(%q) = %v", tc.path, got)
				}
				if got := p.HasUnder(tc.path); got != tc.isUnder {
					t.Errorf("HasUnder(%q) = %v", tc.path, got)
				}
			}
		})
	}
}

func TestReadRefuses(t *testing.T) {
	needGit(t)
	dir := makeRepo(t)
	good, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
	if err != nil {
		t.Fatal(err)
	}
	splitDir := makeRepo(t)
	git(t, splitDir, "update-index", "--split-index")
	split, _ := os.ReadFile(filepath.Join(splitDir, ".git", "index"))

	flip := bytes.Clone(good)
	flip[len(flip)/2] ^= 0x20
	zeroSum := bytes.Clone(good)
	copy(zeroSum[len(zeroSum)-20:], make([]byte, 20))
	for _, tc := range []struct {
		name string
		data []byte
		size int64 // 0: len(data)
		want error
	}{
		{"a flipped byte", flip, 0, ErrMalformed},
		{"truncated", good[:len(good)-30], 0, ErrMalformed},
		{"empty", nil, 0, ErrMalformed},
		{"not an index", []byte(strings.Repeat("gitdir: ../x\n", 10)), 0, ErrMalformed},
		{"over MaxBytes", good, MaxBytes + 1, ErrTooLarge},
		{"split index", split, 0, ErrUnsupported},
		{"version 5", withVersion(good, 5), 0, ErrUnsupported},
		{"skipHash's zero checksum", zeroSum, 0, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			size := tc.size
			if size == 0 {
				size = int64(len(tc.data))
			}
			_, err := Read(bytes.NewReader(tc.data), size)
			if !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
		})
	}
}

func withVersion(b []byte, v uint32) []byte {
	b = bytes.Clone(b)
	binary.BigEndian.PutUint32(b[4:], v)
	return b
}

// encode writes an index of names (sorted by the caller), for what git
// cannot be made to write: paths of 0xfff bytes and more, hostile v4
// compression.
func encode(version uint32, names []string) []byte {
	var b bytes.Buffer
	b.WriteString("DIRC")
	binary.Write(&b, binary.BigEndian, version)
	binary.Write(&b, binary.BigEndian, uint32(len(names)))
	prev := ""
	for _, n := range names {
		var e bytes.Buffer
		e.Write(make([]byte, 24))
		binary.Write(&e, binary.BigEndian, uint32(0o100644))
		e.Write(make([]byte, 12+20))
		binary.Write(&e, binary.BigEndian, uint16(min(len(n), nameMask)))
		if version == 4 {
			common := 0
			for common < len(prev) && common < len(n) && prev[common] == n[common] {
				common++
			}
			e.Write(putVarint(uint64(len(prev) - common)))
			e.WriteString(n[common:])
			e.WriteByte(0)
		} else {
			e.WriteString(n)
			for e.Len()%8 != 0 || e.Bytes()[e.Len()-1] != 0 {
				e.WriteByte(0)
			}
		}
		b.Write(e.Bytes())
		prev = n
	}
	sum := sha1.Sum(b.Bytes())
	b.Write(sum[:])
	return b.Bytes()
}

// putVarint is git's encode_varint.
func putVarint(v uint64) []byte {
	var buf [16]byte
	pos := len(buf) - 1
	buf[pos] = byte(v & 0x7f)
	for v >>= 7; v != 0; v >>= 7 {
		v--
		pos--
		buf[pos] = 0x80 | byte(v&0x7f)
	}
	return buf[pos:]
}

func TestReadEncoded(t *testing.T) {
	long := "d/" + strings.Repeat("x", 5000) // over 0xfff: the length field saturates
	names := []string{"a", "a/b", long, "e"}
	for _, v := range []uint32{2, 3, 4} {
		data := encode(v, names)
		p, err := Read(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatalf("v%d: %v", v, err)
		}
		if got := all(p); !slices.Equal(got, names) {
			t.Fatalf("v%d: got %d paths, want %q", v, len(got), names)
		}
	}
	for _, tc := range []struct {
		name  string
		names []string
	}{
		{"out of order", []string{"b", "a"}},
		{"empty path", []string{""}},
	} {
		data := encode(2, tc.names)
		if _, err := Read(bytes.NewReader(data), int64(len(data))); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: err = %v, want ErrMalformed", tc.name, err)
		}
	}
}

func TestVarint(t *testing.T) {
	for _, v := range []uint64{0, 1, 127, 128, 129, 16383, 16384, 1 << 40} {
		enc := putVarint(v)
		rd := &reader{br: bufioOf(enc), left: int64(len(enc))}
		got, err := varint(rd)
		if err != nil || got != v {
			t.Errorf("varint(%x) = %d, %v; want %d", enc, got, err, v)
		}
	}
}

// FuzzRead: any bytes are refused or read into sorted, distinct, non-empty
// paths that Has finds, within the name bound.
func FuzzRead(f *testing.F) {
	f.Add(encode(2, []string{"a", "b/c"}))
	f.Add(encode(3, []string{"x"}))
	f.Add(encode(4, []string{"a/b/c", "a/b/d", "a/e"}))
	f.Add([]byte("DIRC\x00\x00\x00\x04\x00\x00\x00\x01"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Read(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			return
		}
		if len(p.names) > maxTotalNameBytes {
			t.Fatalf("%d name bytes", len(p.names))
		}
		prev := ""
		for i := range p.Len() {
			s := p.At(i)
			if s == "" || (i > 0 && s <= prev) || len(s) > maxNameBytes {
				t.Fatalf("path %d %q after %q", i, s, prev)
			}
			if !p.Has(s) {
				t.Fatalf("Has(%q) = false", s)
			}
			prev = s
		}
	})
}

func bufioOf(b []byte) *bufio.Reader { return bufio.NewReader(bytes.NewReader(b)) }
