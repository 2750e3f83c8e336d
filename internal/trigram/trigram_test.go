package trigram

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"testing"

	"github.com/zeebo/blake3"
)

func memFiles(contents map[string]string) []File {
	var files []File
	for _, p := range slices.Sorted(func(yield func(string) bool) {
		for k := range contents {
			if !yield(k) {
				return
			}
		}
	}) {
		files = append(files, File{Path: p, Hash: blake3.Sum256([]byte(contents[p])), Open: func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(contents[p])), nil }})
	}
	return files
}

func build(t testing.TB, files []File) *Index {
	t.Helper()
	dir := t.TempDir()
	dst := filepath.Join(dir, "index")
	if err := Build(context.Background(), files, dst, dir); err != nil {
		t.Fatal(err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "trigram-run-*")); len(left) > 0 {
		t.Errorf("run files left behind: %v", left)
	}
	data, err := os.ReadFile(dst)
	if err != nil {
		t.Fatal(err)
	}
	ix, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	return ix
}

func candidates(t testing.TB, ix *Index, pattern string) (map[string]bool, bool) {
	t.Helper()
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		t.Fatal(err)
	}
	ids, all := ix.Candidates(re)
	out := map[string]bool{}
	for _, id := range ids {
		out[ix.Paths()[id]] = true
	}
	return out, all
}

// Every file holding a match of the pattern on some line is a candidate;
// selective patterns leave most files out. The index is the same whether
// every pair fits in memory (one run) or the pairs are flushed to many.
func TestCandidatesNeverMissAMatch(t *testing.T) {
	files, _ := goSrcFiles(t, 150)
	contents := map[string]string{}
	for _, f := range files {
		rc, _ := f.Open()
		b, _ := io.ReadAll(rc)
		rc.Close()
		contents[f.Path] = string(b)
	}
	contents["zz/case.txt"] = "Hello WORLD\nnaïve café 中文\n"
	patterns := []string{
		`func \w+Handler`, `(?i)hello world`, `ErrUnexpectedEOF`, `café|中文`, `^package (main|bytes)$`,
		`[Cc]opyright 20[0-9]{2}`, `x{3,}`, `no such thing anywhere 123`, `\bEOF\b`, `a.b.c`, `\pL+`, `(?i)WoRlD`,
	}
	// The files each pattern matches on some line: the brute-force answer,
	// the same for both builds, so worked out once (matching line by line
	// is most of this test's time under -race). A match on a line is also
	// one of (?m)pattern in the whole file (^ and $ then match at line
	// ends, \b sees a newline as the non-word edge it is in the line; no
	// pattern here has \A or \z), so a file that has none has no line to
	// try: that halves the matching under -race, and the lines still
	// decide.
	matches := map[string]map[string]bool{}
	for _, pattern := range patterns {
		re, whole := regexp.MustCompile(pattern), regexp.MustCompile(`(?m)`+pattern)
		matches[pattern] = map[string]bool{}
		for p, c := range contents {
			if whole.MatchString(c) && slices.ContainsFunc(strings.Split(c, "\n"), re.MatchString) {
				matches[pattern][p] = true
			}
		}
	}
	pairs, _ := pairsIn(t, memFiles(contents))
	// "one run": maxPairs is every pair, so none is flushed. (It was 1<<30:
	// a partition allocates its pair buffer, and its sort buffer, at
	// maxPairs, 8 GiB each. Untouched, they cost little resident without
	// -race, but set the GC's goal at 16 GB for every test after (one plain
	// run of the package peaked at 8.4 GB); under -race this test alone
	// took 8.5 GB and half a minute.) "many runs": a run every 2000 pairs,
	// fewer than many of these files hold alone.
	for name, limit := range map[string]int{"one run": pairs, "many runs": 2000} {
		t.Run(name, func(t *testing.T) {
			if name == "many runs" && pairs < 20*limit {
				t.Fatalf("%d pairs, %d at most in a run: too few runs to test", pairs, limit)
			}
			old := maxPairs
			maxPairs = limit
			defer func() { maxPairs = old }()
			ix := build(t, memFiles(contents))
			if got := len(ix.Paths()); got != len(contents) {
				t.Fatalf("%d paths indexed, want %d", got, len(contents))
			}
			if got := indexPairs(ix); got != pairs {
				t.Fatalf("the index holds %d (trigram, file) pairs, the files %d", got, pairs)
			}
			for _, pattern := range patterns {
				cand, all := candidates(t, ix, pattern)
				for p := range matches[pattern] {
					if !all && !cand[p] {
						t.Errorf("%q matches %s, which is not a candidate", pattern, p)
					}
				}
				if matching := len(matches[pattern]); pattern == "ErrUnexpectedEOF" && (all || len(cand) > 3*matching+5) {
					t.Errorf("%q: %d candidates for %d matching files: the index does not narrow", pattern, len(cand), matching)
				}
			}
		})
	}
}

// pairsIn counts the (trigram, file) pairs of files, what a build holds,
// and those of the file with the most.
func pairsIn(t testing.TB, files []File) (pairs, largest int) {
	t.Helper()
	sp := &splitter{seen: make([]uint64, 1<<24/64), buf: make([]byte, 64<<10)}
	var set []uint32
	for _, f := range files {
		var err error
		if set, _, err = sp.split(f, set[:0]); err != nil {
			t.Fatal(err)
		}
		pairs += len(set)
		largest = max(largest, len(set))
	}
	return pairs, largest
}

// indexPairs counts the (trigram, file) pairs an index lists.
func indexPairs(ix *Index) int {
	n := 0
	for _, e := range ix.table {
		n += int(e.count)
	}
	return n
}

func TestParseRefusesDamage(t *testing.T) {
	files := memFiles(map[string]string{"a.go": "package a\nfunc A() {}\n", "b.go": "package b\n"})
	dir := t.TempDir()
	dst := filepath.Join(dir, "index")
	if err := Build(context.Background(), files, dst, dir); err != nil {
		t.Fatal(err)
	}
	good, _ := os.ReadFile(dst)
	for name, data := range map[string][]byte{
		"empty":     nil,
		"truncated": good[:len(good)-5],
		"flipped":   flip(good, len(magic)+3),
		"appended":  append(slices.Clone(good), 'x'),
		"other":     []byte("csearch index 1\n"),
		"v1":        append([]byte("repoprep trigram index v1\n"), good[len(magic):]...),
	} {
		if _, err := Parse(data); !errors.Is(err, ErrDamaged) {
			t.Errorf("%s: Parse = %v, want ErrDamaged", name, err)
		}
		if _, err := ParseFiles(data); !errors.Is(err, ErrDamaged) {
			t.Errorf("%s: ParseFiles = %v, want ErrDamaged", name, err)
		}
	}
	if _, err := Parse(good); err != nil {
		t.Fatal(err)
	}
	// A byte flipped in the table is the checksum's to catch.
	if _, err := ParseFiles(flip(good, len(good)-footerSize-2)); !errors.Is(err, ErrDamaged) {
		t.Errorf("ParseFiles of a damaged table = %v, want ErrDamaged", err)
	}
}

func flip(b []byte, i int) []byte {
	b = slices.Clone(b)
	b[i] ^= 0x40
	return b
}

// Build writes nothing but its file, and fails cleanly when a file cannot
// be read.
func TestBuildFailsOnUnreadableFile(t *testing.T) {
	dir := t.TempDir()
	files := []File{{Path: "gone.txt", Open: func() (io.ReadCloser, error) { return nil, os.ErrNotExist }}}
	err := Build(context.Background(), files, filepath.Join(dir, "index"), dir)
	if !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), "gone.txt") {
		t.Errorf("Build = %v, want a not-exist error naming gone.txt", err)
	}
}

// FuzzParse: no byte string makes Parse, ParseFiles or a query panic or
// read out of bounds; a damaged index is an error, a parsed one answers
// queries, and ParseFiles reads the same files wherever Parse succeeds.
func FuzzParse(f *testing.F) {
	files := memFiles(map[string]string{"a.go": "package a\nfunc A() {}\n", "b.go": "package b\nvar x = 1\n"})
	dir := f.TempDir()
	dst := filepath.Join(dir, "index")
	if err := Build(context.Background(), files, dst, dir); err != nil {
		f.Fatal(err)
	}
	good, _ := os.ReadFile(dst)
	f.Add(good)
	f.Add(good[:len(good)/2])
	f.Add([]byte(magic + strings.Repeat("\x00", 80) + endMagic))
	re, _ := syntax.Parse(`package \w`, syntax.Perl)
	f.Fuzz(func(t *testing.T, data []byte) {
		ix, err := Parse(data)
		files, ferr := ParseFiles(data)
		sum, cerr := Contents(data)
		if ferr == nil && (cerr != nil || sum != files.Contents()) {
			t.Fatalf("Contents = %x, %v where ParseFiles read %x", sum, cerr, files.Contents())
		}
		if err == nil && (ferr != nil || !slices.Equal(files.Paths(), ix.Paths()) || !slices.Equal(files.sizes, ix.sizes)) {
			t.Fatalf("ParseFiles = %v, %v where Parse read %v", files, ferr, ix.Paths())
		}
		if ferr == nil {
			if ids, all := files.Candidates(re); ids != nil || !all {
				t.Fatalf("a file list without its table answers %v, %t; want every file", ids, all)
			}
		}
		if err != nil {
			if !errors.Is(err, ErrDamaged) {
				t.Fatalf("Parse error %v is not ErrDamaged", err)
			}
			return
		}
		ids, _ := ix.Candidates(re)
		for _, id := range ids {
			if int(id) >= len(ix.Paths()) {
				t.Fatalf("candidate %d out of %d paths", id, len(ix.Paths()))
			}
		}
	})
}

func Example() {
	dir, _ := os.MkdirTemp("", "trigram")
	defer os.RemoveAll(dir)
	files := memFiles(map[string]string{"a.go": "func ServeHTTP()\n", "b.go": "func main()\n"})
	Build(context.Background(), files, filepath.Join(dir, "index"), dir)
	data, _ := os.ReadFile(filepath.Join(dir, "index"))
	ix, _ := Parse(data)
	re, _ := syntax.Parse(`Serve\w+`, syntax.Perl)
	ids, all := ix.Candidates(re)
	for _, id := range ids {
		fmt.Println(ix.Paths()[id])
	}
	fmt.Println(all, bytes.HasPrefix(data, []byte(magic)))
	// Output:
	// a.go
	// false true
}

// addTrigrams finds the same set, with each trigram once, whether it takes
// a buffer in quarters or one byte at a time, from any two bytes before it.
func TestAddTrigramsQuarters(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range 300 {
		buf := make([]byte, rng.IntN(4000))
		alphabet := 2 + rng.IntN(254)
		for j := range buf {
			buf[j] = byte(rng.IntN(alphabet))
		}
		checkAddTrigrams(t, fmt.Sprintf("input %d", i), uint32(rng.IntN(1<<24)), buf)
	}
}

func FuzzAddTrigrams(f *testing.F) {
	f.Add(uint32(0), []byte(strings.Repeat("func main() { return }\n", 40)))
	f.Fuzz(func(t *testing.T, tv uint32, buf []byte) {
		checkAddTrigrams(t, "fuzz", tv&(1<<24-1), buf)
	})
}

// seenScratch is the bitmap checkAddTrigrams lends both ways, emptied
// after each (2 MiB: one per check made the race run allocate gigabytes).
var seenScratch = make([]uint64, 1<<24/64)

func checkAddTrigrams(t *testing.T, name string, tv uint32, buf []byte) {
	t.Helper()
	seen := seenScratch
	quarters := addTrigrams(seen, nil, tv, buf)
	for _, x := range quarters {
		seen[x/64] = 0
	}
	one := addTrigramsFrom(seen, nil, tv, buf)
	for _, x := range one {
		seen[x/64] = 0
	}
	slices.Sort(quarters)
	if !slices.Equal(quarters, sorted(one)) {
		t.Fatalf("%s (%d bytes): %d trigrams in quarters, %d one byte at a time", name, len(buf), len(quarters), len(one))
	}
}

func sorted(s []uint32) []uint32 {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

// TestContentsBindIndex: an index records the digest of its files' paths
// and hashes, which a reader holding the hashes computes alone; the same
// names and sizes with other contents, the same contents under other
// names, or the files in another order, give another digest.
func TestContentsBindIndex(t *testing.T) {
	contents := map[string]string{"a.txt": "alpha one\n", "b.txt": "alpha two\n", "c.txt": "alpha six\n"}
	files := memFiles(contents)
	dir := t.TempDir()
	dst := filepath.Join(dir, "index")
	if err := Build(context.Background(), files, dst, dir); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(dst)
	ix, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	digest := func(files []File) [DigestSize]byte {
		d := NewDigest()
		for _, f := range files {
			d.Add(f.Path, f.Hash)
		}
		return d.Sum()
	}
	if sum, err := Contents(data); err != nil || sum != ix.Contents() || sum != digest(files) {
		t.Fatalf("Contents = %x, %v; the index holds %x, the files digest to %x", sum, err, ix.Contents(), digest(files))
	}
	other := memFiles(map[string]string{"a.txt": "gamma one\n", "b.txt": "gamma two\n", "c.txt": "gamma six\n"})
	renamed := memFiles(map[string]string{"a2.txt": contents["a.txt"], "b.txt": contents["b.txt"], "c.txt": contents["c.txt"]})
	swapped := []File{files[1], files[0], files[2]}
	for name, fs := range map[string][]File{"same names, other contents": other, "a file renamed": renamed, "another order": swapped} {
		if digest(fs) == ix.Contents() {
			t.Errorf("%s: the same digest", name)
		}
	}
	// An update writes the digest of its files, as a build does.
	next := memFiles(map[string]string{"a.txt": contents["a.txt"], "b.txt": "alpha ten\n", "c.txt": contents["c.txt"]})
	up := filepath.Join(dir, "updated")
	if err := Update(context.Background(), ix, next, []int{0, -1, 2}, up); err != nil {
		t.Fatal(err)
	}
	data, _ = os.ReadFile(up)
	if sum, err := Contents(data); err != nil || sum != digest(next) {
		t.Errorf("the updated index records %x, %v; want %x", sum, err, digest(next))
	}
}
