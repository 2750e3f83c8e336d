package snapshot

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/repoprep/repoprep/internal/lineindex"
	"github.com/repoprep/repoprep/internal/trigram"
)

// numberedLines is "line 1\n" to "line n\n", with word for "line".
func numberedLines(word string, n int) []byte {
	var b bytes.Buffer
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "%s %d\n", word, i)
	}
	return b.Bytes()
}

// boundFixture publishes a snapshot of a.txt, b.txt and big.txt (oversize,
// 12,000 lines: two marks), each line of each starting with word.
func boundFixture(t *testing.T, word string) (string, *Manifest) {
	t.Helper()
	dir := t.TempDir()
	tree := fstest.MapFS{
		"a.txt":   {Data: []byte(word + " one\n")},
		"b.txt":   {Data: []byte(word + " two\n")},
		"big.txt": {Data: numberedLines(word, 12000)},
	}
	m := writeSnapshot(t, dir, tree, nil)
	m.Files[entryIndex(m, "big.txt")].Oversize = true
	editManifest(t, dir, func(mm *Manifest) { *mm = *m })
	rewriteOversize(t, dir, m, tree)
	return dir, m
}

// wantOneDrift fails unless verify finds exactly one drift of dir's
// index files, on name, saying want; secrets.json's finding for a
// secret.env the fixture does not hold is the other drift expected.
func wantOneDrift(t *testing.T, dir, name, want string) {
	t.Helper()
	drifts, err := Verify(context.Background(), dir)
	noErr(t, err)
	var got []Drift
	for _, d := range drifts {
		if d.Path != SecretsJSON {
			got = append(got, d)
		}
	}
	if len(got) != 1 || got[0].Path != name || !strings.Contains(got[0].Problem, want) {
		t.Errorf("verify: %q; want one drift of %s saying %q", got, name, want)
	}
}

// TestIndexesBoundToStagedFiles: an index of other texts, or with edited
// marks, is refused by ReadFile (so serve reads the files) and by the
// typed readers (so a refresh builds it again), and verify names it; an
// edit that also makes the sum again passes the readers but not verify,
// which takes the marks from the staged text.
func TestIndexesBoundToStagedFiles(t *testing.T) {
	open := func(t *testing.T, dir string) (*Snapshot, *Manifest) {
		s, err := Open(dir)
		noErr(t, err)
		t.Cleanup(func() { s.Close() })
		m, _, err := s.Manifest()
		noErr(t, err)
		return s, m
	}
	t.Run("clean", func(t *testing.T) {
		dir, _ := boundFixture(t, "alpha")
		s, m := open(t, dir)
		for _, name := range []string{SearchIndex, LinesJSON, OversizeJSON} {
			if _, err := s.ReadFile(name); err != nil {
				t.Errorf("ReadFile(%s): %v", name, err)
			}
		}
		if _, _, err := s.SearchIndex(m); err != nil {
			t.Error(err)
		}
		if _, _, err := s.LineIndex(m); err != nil {
			t.Error(err)
		}
	})
	// Same names, same sizes ("gamma" for "alpha"), other texts.
	other, _ := boundFixture(t, "gamma")
	t.Run("search.index of another snapshot", func(t *testing.T) {
		dir, _ := boundFixture(t, "alpha")
		copyFile(t, filepath.Join(other, SearchIndex), filepath.Join(dir, SearchIndex))
		s, m := open(t, dir)
		if _, err := s.ReadFile(SearchIndex); !errors.Is(err, ErrUnbound) {
			t.Errorf("ReadFile = %v, want ErrUnbound", err)
		}
		if _, _, err := s.SearchIndex(m); !errors.Is(err, ErrUnbound) {
			t.Errorf("SearchIndex = %v, want ErrUnbound", err)
		}
		wantOneDrift(t, dir, SearchIndex, "not built from the staged files files.json lists")
	})
	t.Run("lines.json of another snapshot", func(t *testing.T) {
		dir, _ := boundFixture(t, "alpha")
		copyFile(t, filepath.Join(other, LinesJSON), filepath.Join(dir, LinesJSON))
		s, m := open(t, dir)
		if _, err := s.ReadFile(LinesJSON); !errors.Is(err, ErrUnbound) {
			t.Errorf("ReadFile = %v, want ErrUnbound", err)
		}
		if _, _, err := s.LineIndex(m); !errors.Is(err, ErrUnbound) {
			t.Errorf("LineIndex = %v, want ErrUnbound", err)
		}
		wantOneDrift(t, dir, LinesJSON, `has the marks of "big.txt" for content blake3:`)
	})
	shift := func(lx *lineindex.Index) {
		for i := 1; i < len(lx.Files[0].Marks); i++ {
			lx.Files[0].Marks[i][0] += 10
		}
	}
	t.Run("marks shifted by ten lines", func(t *testing.T) {
		dir, _ := boundFixture(t, "alpha")
		name := filepath.Join(dir, LinesJSON)
		data, err := os.ReadFile(name)
		noErr(t, err)
		lx, err := lineindex.Parse(data)
		noErr(t, err)
		shift(lx)
		shifted, err := json.Marshal(lx) // the sums as they were
		noErr(t, err)
		noErr(t, os.WriteFile(name, append(shifted, '\n'), 0o644))
		s, m := open(t, dir)
		if _, err := s.ReadFile(LinesJSON); !errors.Is(err, lineindex.ErrSum) {
			t.Errorf("ReadFile = %v, want ErrSum", err)
		}
		if _, _, err := s.LineIndex(m); !errors.Is(err, lineindex.ErrSum) {
			t.Errorf("LineIndex = %v, want ErrSum", err)
		}
		wantOneDrift(t, dir, LinesJSON, `"big.txt": marks do not match their sum`)
	})
	t.Run("marks shifted, sums made again", func(t *testing.T) {
		dir, _ := boundFixture(t, "alpha")
		editLines(t, dir, shift)
		wantOneDrift(t, dir, LinesJSON, `the marks of "big.txt" are not its staged text's: mark 1 is line 6070 at byte 65542, the text has line 6060 at byte 65542`)
	})
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	noErr(t, err)
	noErr(t, os.Remove(to))
	noErr(t, os.WriteFile(to, data, 0o644))
}

// TestReadCapsRefuseSparseFiles: a file planted far larger than its cap
// (a sparse 64 GiB, which costs no disk) is refused from its size alone:
// reading it would take minutes and 64 GB of memory, and each refusal
// takes milliseconds.
func TestReadCapsRefuseSparseFiles(t *testing.T) {
	for _, name := range []string{SearchIndex, LinesJSON, OversizeJSON, FilesJSON, RepoMapMD} {
		t.Run(name, func(t *testing.T) {
			dir, _ := boundFixture(t, "alpha")
			noErr(t, os.Truncate(filepath.Join(dir, name), 64<<30))
			start := time.Now()
			s, err := Open(dir)
			noErr(t, err)
			defer s.Close()
			_, err = s.ReadFile(name)
			if !errors.Is(err, ErrTooLarge) {
				t.Errorf("ReadFile = %v, want ErrTooLarge", err)
			}
			if name == FilesJSON {
				if _, _, err := s.Manifest(); !errors.Is(err, ErrTooLarge) {
					t.Errorf("Manifest = %v, want ErrTooLarge", err)
				}
			}
			drifts, err := Verify(context.Background(), dir)
			noErr(t, err)
			found := false
			for _, d := range drifts {
				found = found || d.Path == name && strings.Contains(d.Problem, "larger than it can be in this snapshot")
			}
			if !found {
				t.Errorf("verify: %q; want %s larger than it can be", drifts, name)
			}
			if took := time.Since(start); took > 20*time.Second {
				t.Errorf("refusing a sparse file took %v", took)
			}
		})
	}
}

// TestCapsHoldWorstCase: the caps are bounds, not guesses: files made to
// be as large as their format allows (random bytes, so every trigram is
// new; a text of newlines, a mark every Every bytes; previews of control
// characters, escaped six bytes each, and of long lines, cut and marked)
// stay within them.
func TestCapsHoldWorstCase(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	random := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rng.IntN(256))
		}
		return b
	}
	tree := fstest.MapFS{
		"newlines.txt": {Data: bytes.Repeat([]byte("\n"), 3*lineindex.Every+5)},
		"control.txt":  {Data: bytes.Repeat([]byte("\x01\x02\n"), 3000)},
		"long.txt":     {Data: bytes.Repeat(append(bytes.Repeat([]byte("\x1f"), 2500), '\n'), 40)},
		"\x01odd.txt":  {Data: random(100 << 10)},
	}
	for i := range 200 { // past 127 files, a posting takes two bytes
		tree[fmt.Sprintf("r/%03d.bin", i)] = &fstest.MapFile{Data: random(1 + rng.IntN(2000))}
	}
	// Entries as stagedEntries makes them, but for the token counts: slow
	// on random bytes, and no cap takes them.
	var entries []Entry
	for p, f := range tree {
		lines := bytes.Count(f.Data, []byte("\n"))
		if len(f.Data) > 0 && f.Data[len(f.Data)-1] != '\n' {
			lines++
		}
		entries = append(entries, Entry{Path: p, Size: int64(len(f.Data)), Encoding: "utf-8", Lines: lines, Staged: true,
			Oversize: !strings.HasPrefix(p, "r/"), Hash: "blake3:" + hashHex(f.Data)})
	}
	m := newManifest(entries, nil)
	var staged, oversize []boundEntry
	var files []trigram.File
	var lx lineindex.Index
	for _, e := range m.Files {
		sum, err := DecodeHash(e.Hash)
		noErr(t, err)
		be := boundEntry{path: e.Path, hash: e.Hash, encoding: e.Encoding, size: e.Size, lines: e.Lines}
		staged = append(staged, be)
		files = append(files, trigram.File{Path: e.Path, Hash: sum, Open: func() (io.ReadCloser, error) { return tree.Open(e.Path) }})
		if e.Oversize {
			oversize = append(oversize, be)
			lf, err := lineindex.Scan(context.Background(), bytes.NewReader(tree[e.Path].Data))
			noErr(t, err)
			lf.Path, lf.Hash = e.Path, e.Hash
			lx.Files = append(lx.Files, lf)
		}
	}
	size := func(e *boundEntry) int64 { return int64(len(tree[e.path].Data)) }
	dir := t.TempDir()
	noErr(t, trigram.Build(context.Background(), files, filepath.Join(dir, SearchIndex), dir))
	var lines, over bytes.Buffer
	noErr(t, lx.Encode(&lines))
	noErr(t, WriteOversize(&over, m, tree, 1000))
	fi, err := os.Stat(filepath.Join(dir, SearchIndex))
	noErr(t, err)
	for _, c := range []struct {
		name      string
		got, most int64
	}{
		{SearchIndex, fi.Size(), searchIndexCap(staged, size)},
		{LinesJSON, int64(lines.Len()), linesCap(oversize, size)},
		{OversizeJSON, int64(over.Len()), oversizeCap(oversize, size)},
	} {
		if c.got > c.most {
			t.Errorf("%s: %d bytes, over its cap of %d", c.name, c.got, c.most)
		}
		t.Logf("%s: %d bytes, cap %d (%.1fx)", c.name, c.got, c.most, float64(c.most)/float64(c.got))
	}
}

// TestExactCapForLongerText: a staged text longer than its source (decoded
// from UTF-16, masked) can make an index larger than the first, cheap cap
// (from files.json's source sizes); ReadFile then takes the staged sizes
// and reads it.
func TestExactCapForLongerText(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	tree := fstest.MapFS{}
	for i := range 20 {
		b := make([]byte, 20<<10)
		for j := range b {
			b[j] = byte(rng.IntN(256))
		}
		tree[fmt.Sprintf("f%02d.txt", i)] = &fstest.MapFile{Data: b}
	}
	dir := t.TempDir()
	writeSnapshot(t, dir, tree, nil)
	editManifest(t, dir, func(m *Manifest) {
		for i := range m.Files {
			m.Files[i].Size = 1 // in SRC: one byte each, say
		}
	})
	s, err := Open(dir)
	noErr(t, err)
	defer s.Close()
	m, _, err := s.Manifest()
	noErr(t, err)
	b := s.forManifest(m)
	fi, err := os.Stat(filepath.Join(dir, SearchIndex))
	noErr(t, err)
	if quick := s.maxBytes(SearchIndex, b, false); fi.Size() <= quick {
		t.Fatalf("the index (%d bytes) fits the first cap (%d): nothing tested", fi.Size(), quick)
	}
	if _, err := s.ReadFile(SearchIndex); err != nil {
		t.Error(err)
	}
}

// BenchmarkOpenBinding: what the binding checks add to loading a
// snapshot's indexes as serve does (Open, files.json, search.index and
// lines.json parsed), over 4,096 staged files: "unchecked" reads the two
// files within their caps and parses them, "bound" is ReadFile (the
// content digest, lines.json's hashes and sums), and "digest" is the
// content digest alone, in bytes of its input (paths and hashes).
func BenchmarkOpenBinding(b *testing.B) {
	dir := b.TempDir()
	tree := fstest.MapFS{}
	for i := range 4096 {
		tree[fmt.Sprintf("pkg%02d/sub/file%04d.go", i%64, i)] = &fstest.MapFile{Data: fmt.Appendf(nil, "package p\n\nconst N%d = %d\n", i, i)}
	}
	tree["big.txt"] = &fstest.MapFile{Data: numberedLines("line", 30000)}
	m := writeSnapshot(b, dir, tree, nil)
	m.Files[entryIndex(m, "big.txt")].Oversize = true
	var buf bytes.Buffer
	noErr(b, EncodeJSON(&buf, m))
	noErr(b, os.WriteFile(filepath.Join(dir, FilesJSON), buf.Bytes(), 0o644))
	rewriteIndexes(b, dir, m)
	load := func(b *testing.B, read func(s *Snapshot, name string) ([]byte, error)) {
		s, err := Open(dir)
		noErr(b, err)
		defer s.Close()
		_, _, err = s.Manifest()
		noErr(b, err)
		data, err := read(s, SearchIndex)
		noErr(b, err)
		_, err = trigram.Parse(data)
		noErr(b, err)
		data, err = read(s, LinesJSON)
		noErr(b, err)
		_, err = lineindex.Parse(data)
		noErr(b, err)
	}
	b.Run("unchecked", func(b *testing.B) {
		for b.Loop() {
			load(b, func(s *Snapshot, name string) ([]byte, error) { return s.readCapped(name, s.bound) })
		}
	})
	b.Run("bound", func(b *testing.B) {
		for b.Loop() {
			load(b, (*Snapshot).ReadFile)
		}
	})
	b.Run("digest", func(b *testing.B) {
		var n int64
		for _, e := range m.Files {
			n += int64(len(e.Path)) + 1 + 32
		}
		b.SetBytes(n)
		for b.Loop() {
			if _, err := newBounds(m).digest(); err != nil {
				b.Fatal(err)
			}
		}
	})
}
