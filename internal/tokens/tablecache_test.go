package tokens

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/repoprep/repoprep/internal/testkit"
)

// writeTablesFile writes this process's tables, keyed by key, to a file in
// dir and returns its path. They go to the file straight from the tables,
// which live off the heap: copied into a growing buffer first, they took
// 60 MB of heap and over half a second under -race.
func writeTablesFile(t testing.TB, dir string, key [32]byte) string {
	t.Helper()
	path := filepath.Join(dir, "o200k-test.tables")
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	err = writeTables(f, theVocab(), key)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// sampleText is text with every kind of piece: Go source from GOROOT and
// the exact-count cases (CJK, emoji, invalid bytes, contractions).
func sampleText(t testing.TB) string {
	t.Helper()
	var sb strings.Builder
	for _, name := range []string{"fmt/print.go", "unicode/utf8/utf8.go"} {
		b, err := os.ReadFile(filepath.Join(testkit.GoSrc(t), name))
		if err != nil {
			t.Skipf("no Go source: %v", err)
		}
		sb.Write(b)
	}
	for _, name := range slices.Sorted(maps.Keys(exactCases)) {
		sb.WriteString(exactCases[name])
	}
	return sb.String()
}

// TestTablesRoundTrip reads back a written tables file: every table equal
// byte for byte to the built one, and every piece of a sample text encoded
// to the same count by both.
func TestTablesRoundTrip(t *testing.T) {
	built := theVocab()
	key := [32]byte{'k', 'e', 'y'}
	got, err := loadTables(writeTablesFile(t, t.TempDir(), key), key)
	if err != nil {
		t.Fatal(err)
	}
	defer got.release()
	names := []string{"nodes", "bitmaps", "depth2", "toks", "tag2", "pairs", "pairBloom"}
	for i, want := range built.sections() {
		if g := got.sections()[i]; !bytes.Equal(g, want) {
			t.Errorf("table %s: %d bytes read back, %d built, or different bytes", names[i], len(g), len(want))
		}
	}
	if got.pairSh != built.pairSh || got.reachable != built.reachable {
		t.Errorf("pairSh %d, reachable %d read back; built %d, %d", got.pairSh, got.reachable, built.pairSh, built.reachable)
	}
	text := string([]rune(sampleText(t))) // invalid bytes as Count hands them on
	tab, e := bmpClasses(), encoders.Get().(*encoder)
	defer encoders.Put(e)
	pieces := 0
	for start, end := nextPiece(tab, text, 0); start < end; start, end = nextPiece(tab, text, end) {
		piece := text[start:end]
		if g, w := got.countBPE(piece, e), built.countBPE(piece, e); g != w {
			t.Fatalf("piece %q: %d tokens with the tables read back, %d with the built ones", piece, g, w)
		}
		pieces++
	}
	t.Logf("%d pieces counted alike", pieces)
}

// TestTablesRejected: a file that is not exactly what this executable
// wrote is refused with an error, never read as tables.
func TestTablesRejected(t *testing.T) {
	key := [32]byte{'k', 'e', 'y'}
	info, err := os.Stat(writeTablesFile(t, t.TempDir(), key))
	if err != nil {
		t.Fatal(err)
	}
	size := info.Size()
	// Each case is the good file, written afresh from the tables (which live
	// off the heap), then changed in place: read into memory and copied per
	// case, the 20 MB file took 850 MB and most of this test's time under
	// -race.
	flip := func(at int64) func(*os.File) error {
		return func(f *os.File) error {
			b := make([]byte, 1)
			if _, err := f.ReadAt(b, at); err != nil {
				return err
			}
			b[0] ^= 0x20
			_, err := f.WriteAt(b, at)
			return err
		}
	}
	resize := func(n int64) func(*os.File) error {
		return func(f *os.File) error { return f.Truncate(n) } // longer: zeros
	}
	tests := []struct {
		name   string
		change func(*os.File) error // nil: the good file as it is
		key    [32]byte
	}{
		{"another executable's key", nil, [32]byte{'o', 't', 'h', 'e', 'r'}},
		{"a byte flipped in the trie", flip(headerSize + 1000), key},
		{"a byte flipped in the pair table", flip(size - 4096), key},
		{"a length changed", flip(80), key},
		{"the checksum changed", flip(size - 8), key},
		{"another format", flip(20), key},
		{"cut short", resize(size - 8), key},
		{"cut in the header", resize(100), key},
		{"eight bytes more", resize(size + 8), key},
		{"empty", resize(0), key},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeTablesFile(t, t.TempDir(), key)
			if tt.change != nil {
				f, err := os.OpenFile(path, os.O_RDWR, 0)
				if err != nil {
					t.Fatal(err)
				}
				err = tt.change(f)
				if cerr := f.Close(); err == nil {
					err = cerr
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			if v, err := loadTables(path, tt.key); err == nil {
				v.release()
				t.Fatal("loaded")
			}
		})
	}
	t.Run("a directory", func(t *testing.T) {
		if _, err := loadTables(t.TempDir(), key); err == nil {
			t.Fatal("loaded")
		}
	})
	t.Run("a FIFO", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "o200k-x.tables")
		testkit.Mkfifo(t, path)
		done := make(chan error, 1)
		go func() {
			_, err := loadTables(path, key)
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil {
				t.Fatal("loaded")
			}
		case <-time.After(10 * time.Second):
			t.Fatal("still waiting on the FIFO after 10 s")
		}
	})
	t.Run("a symlink to a good file", func(t *testing.T) {
		dir := t.TempDir()
		target := writeTablesFile(t, dir, key)
		link := filepath.Join(dir, "o200k-link.tables")
		if err := os.Symlink(target, link); err != nil {
			t.Skipf("no symlinks here: %v", err)
		}
		if v, err := loadTables(link, key); err == nil {
			v.release()
			t.Fatal("followed the symlink")
		}
	})
}

// FuzzParseTables: no bytes make parseTables panic, and tables it accepts
// have the sizes Count relies on. The harness writes the input's own
// checksum and uses its own key, so the fuzzer reaches the table lengths.
func FuzzParseTables(f *testing.F) {
	head := make([]byte, headerSize+8)
	copy(head, tablesMagic)
	f.Add(head)
	long := slices.Clone(head)
	binary.LittleEndian.PutUint64(long[80:], 16)
	f.Add(append(long, make([]byte, 16)...))
	binary.LittleEndian.PutUint64(long[88:], 1<<62)
	f.Add(long)
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < headerSize+8 || len(data)%8 != 0 {
			return
		}
		words := make([]uint64, len(data)/8) // aligned, as a loaded file is
		buf := unsafe.Slice((*byte)(unsafe.Pointer(&words[0])), len(data))
		copy(buf, data)
		sum := crc32.Checksum(buf[:len(buf)-8], crc32.MakeTable(crc32.Castagnoli))
		binary.LittleEndian.PutUint64(buf[len(buf)-8:], uint64(sum))
		v := &vocab{}
		if err := v.parseTables(buf, [32]byte(buf[32:64])); err != nil {
			return
		}
		if len(v.toks) != numTokens || len(v.tag2) != 1<<16 || len(v.depth2) != 1<<16 || len(v.nodes) < 257 {
			t.Fatalf("accepted tables of the wrong sizes: %d tokens", len(v.toks))
		}
	})
}

// TestPruneTables: a directory keeps the newest keepTables table files and
// drops temporary files an interrupted write left over an hour ago.
func TestPruneTables(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	touch := func(name string, age time.Duration) {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(path, now.Add(-age), now.Add(-age)); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 6 {
		touch(fmt.Sprintf("o200k-%d.tables", i), time.Duration(i)*time.Hour)
	}
	touch("o200k-old.tmp", 2*time.Hour)
	touch("o200k-new.tmp", time.Minute)
	touch("notes.txt", 48*time.Hour)
	pruneTables(dir)
	var left []string
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		left = append(left, e.Name())
	}
	want := []string{"notes.txt", "o200k-0.tables", "o200k-1.tables", "o200k-2.tables", "o200k-3.tables", "o200k-new.tmp"}
	if !slices.Equal(left, want) {
		t.Errorf("left %q, want %q", left, want)
	}
}

// TestUseCache runs this test binary as two processes sharing one cache
// directory: the first builds the tables and writes them, the second reads
// them back; both count a sample text as this process does. Then this
// process damages the file, finds it refused, and writes it again.
func TestUseCache(t *testing.T) {
	if os.Getenv("REPOPREP_TABLES_HELPER") != "" {
		UseCache(os.Getenv("REPOPREP_TABLES_HELPER"))
		n := Count(sampleText(t))
		fmt.Printf("count %d loaded %v\n", n, vocabLoaded)
		return
	}
	dir := filepath.Join(t.TempDir(), "tokens")
	want := fmt.Sprintf("count %d loaded %%v\n", Count(sampleText(t)))
	helper := func(loaded bool) {
		t.Helper()
		cmd := exec.Command(os.Args[0], "-test.run", "^TestUseCache$", "-test.count", "1")
		// Under -race a process sleeps a second before it exits
		// (atexit_sleep_ms), to catch races at exit; the helpers only count
		// one text, so they skip it.
		cmd.Env = append(os.Environ(), "REPOPREP_TABLES_HELPER="+dir, "GORACE="+strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("helper: %v\n%s", err, out)
		}
		if first, _, _ := strings.Cut(string(out), "PASS"); first != fmt.Sprintf(want, loaded) {
			t.Fatalf("helper said %q, want %q", first, fmt.Sprintf(want, loaded))
		}
	}
	helper(false)
	files, _ := filepath.Glob(filepath.Join(dir, "o200k-*.tables"))
	if len(files) != 1 {
		t.Fatalf("after the first process: %q, want one tables file", files)
	}
	helper(true)

	// The helpers are this executable, so this process has their key. The
	// byte in the middle of the file is flipped where it lies, without
	// reading the 20 MB in.
	f, err := os.OpenFile(files[0], os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	info, err := f.Stat()
	b := make([]byte, 1)
	if err == nil {
		_, err = f.ReadAt(b, info.Size()/2)
	}
	if err == nil {
		b[0] ^= 1
		_, err = f.WriteAt(b, info.Size()/2)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	if v := cachedVocab(dir); v != nil {
		v.release()
		t.Fatal("a damaged tables file was read")
	}
	if err := saveVocab(dir, theVocab()); err != nil {
		t.Fatal(err)
	}
	v := cachedVocab(dir)
	if v == nil {
		t.Fatal("the tables written again were not read")
	}
	v.release()
}
