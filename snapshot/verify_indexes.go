package snapshot

import (
	"encoding/hex"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/repoprep/repoprep/internal/lineindex"
	"github.com/repoprep/repoprep/internal/trigram"
)

// ErrUnbound marks an index file (search.index, lines.json) that is not
// bound to the files.json beside it: built from other contents (copied
// from another snapshot with the same names, left from an older run) or
// edited since. Its reader reads the staged files instead; verify reports
// it; a refresh builds it again.
var ErrUnbound = errors.New("not built from the staged files files.json lists")

// DecodeHash decodes a files.json hash, "blake3:" and 64 hex digits.
func DecodeHash(h string) ([32]byte, error) {
	var sum [32]byte
	rest, ok := strings.CutPrefix(h, "blake3:")
	if !ok || len(rest) != 64 {
		return sum, fmt.Errorf("not a BLAKE3 hash: %q", h)
	}
	if _, err := hex.Decode(sum[:], []byte(rest)); err != nil {
		return sum, fmt.Errorf("not a BLAKE3 hash: %q", h)
	}
	return sum, nil
}

// bounds is what one manifest says the index files of its snapshot must
// be: their content binding and their caps. Read-only once made, but for
// the digest, made once on first use.
type bounds struct {
	m        *Manifest
	staged   []boundEntry // the staged entries, by path: the ids of search.index
	oversize []boundEntry // the staged oversize entries, by path: lines.json's files

	once     sync.Once
	contents [trigram.DigestSize]byte // search.index's content digest (trigram.Digest)
	err      error                    // a staged hash that does not decode: nothing binds
}

// boundEntry is what bounds keeps of a staged entry.
type boundEntry struct {
	path, hash, encoding string
	size                 int64 // bytes in SRC
	lines                int
}

func newBounds(m *Manifest) *bounds {
	b := &bounds{m: m}
	for i := range m.Files {
		e := &m.Files[i]
		if !e.Staged {
			continue
		}
		be := boundEntry{path: e.Path, hash: e.Hash, encoding: e.Encoding, size: e.Size, lines: e.Lines}
		b.staged = append(b.staged, be)
		if e.Oversize {
			b.oversize = append(b.oversize, be)
		}
	}
	// files.json is sorted by path (verify says so when it is not); the
	// indexes are, whatever it says.
	byPath := func(a, b boundEntry) int { return strings.Compare(a.path, b.path) }
	if !slices.IsSortedFunc(b.staged, byPath) {
		slices.SortFunc(b.staged, byPath)
		slices.SortFunc(b.oversize, byPath)
	}
	return b
}

// digest is the content digest a search.index of these staged files
// records.
func (b *bounds) digest() ([trigram.DigestSize]byte, error) {
	b.once.Do(func() {
		d := trigram.NewDigest()
		for _, e := range b.staged {
			sum, err := DecodeHash(e.hash)
			if err != nil {
				b.err = fmt.Errorf("%s: %q: %w", FilesJSON, e.path, err)
				return
			}
			d.Add(e.path, sum)
		}
		b.contents = d.Sum()
	})
	return b.contents, b.err
}

// checkContents checks search.index's content digest, not yet its
// checksum (trigram.Parse does).
func (b *bounds) checkContents(data []byte) error {
	got, err := trigram.Contents(data)
	if err != nil {
		return fmt.Errorf("%s: %w", SearchIndex, err)
	}
	want, err := b.digest()
	if err != nil {
		return fmt.Errorf("%s: %w: %v", SearchIndex, ErrUnbound, err)
	}
	if got != want {
		return fmt.Errorf("%s: %w: its content digest is %x…, the %d staged files give %x… (copied from another snapshot, or left from other contents)",
			SearchIndex, ErrUnbound, got[:6], len(b.staged), want[:6])
	}
	return nil
}

// parseLines parses lines.json (checking each file's sum) and checks it
// lists exactly the staged oversize files, each with the hash and line
// count files.json records.
func (b *bounds) parseLines(data []byte) (*lineindex.Index, error) {
	lx, err := lineindex.Parse(data)
	if err != nil {
		return nil, err
	}
	if problems := b.linesProblems(lx); len(problems) > 0 {
		return nil, fmt.Errorf("%s: %w: %s", LinesJSON, ErrUnbound, problems[0])
	}
	return lx, nil
}

// linesProblems says how lx differs from the staged oversize files.
func (b *bounds) linesProblems(lx *lineindex.Index) []string {
	var out []string
	byPath := make(map[string]*boundEntry, len(b.oversize))
	for i := range b.oversize {
		byPath[b.oversize[i].path] = &b.oversize[i]
	}
	listed := map[string]bool{}
	for i, f := range lx.Files {
		e := byPath[f.Path]
		switch {
		case e == nil:
			out = append(out, fmt.Sprintf("lists %q, which files.json does not mark as staged and oversize", f.Path))
		case listed[f.Path]:
			out = append(out, fmt.Sprintf("lists %q twice", f.Path))
		case f.Hash != e.hash:
			out = append(out, fmt.Sprintf("has the marks of %q for content %s, files.json records %s", f.Path, short(f.Hash), short(e.hash)))
		case f.Lines != e.lines:
			out = append(out, fmt.Sprintf("%q has %d lines, files.json records %d", f.Path, f.Lines, e.lines))
		case i > 0 && f.Path < lx.Files[i-1].Path:
			out = append(out, fmt.Sprintf("not sorted by path at %q", f.Path))
		}
		listed[f.Path] = true
	}
	for _, e := range b.oversize {
		if !listed[e.path] {
			out = append(out, fmt.Sprintf("does not list oversize file %q", e.path))
		}
	}
	return out
}

// short cuts a hash for a message.
func short(h string) string {
	if len(h) > 7+12 {
		return h[:7+12] + "…"
	}
	return fmt.Sprintf("%q", h)
}

// forManifest returns the bounds of m, the ones ReadFile uses when m is
// the manifest it read.
func (s *Snapshot) forManifest(m *Manifest) *bounds {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.bound != nil && s.bound.m == m {
		return s.bound
	}
	return newBounds(m)
}

// SearchIndex reads and parses search.index when it is bound to m's
// staged files (ErrUnbound otherwise), as a refresh that updates it needs:
// its checksum, its layout and its content digest all checked. data is the
// file as read.
func (s *Snapshot) SearchIndex(m *Manifest) (ix *trigram.Index, data []byte, err error) {
	return s.searchIndex(m, trigram.Parse)
}

// SearchIndexFiles is SearchIndex without the trigram table
// (trigram.ParseFiles): for a caller that copies the file whole.
func (s *Snapshot) SearchIndexFiles(m *Manifest) (ix *trigram.Index, data []byte, err error) {
	return s.searchIndex(m, trigram.ParseFiles)
}

func (s *Snapshot) searchIndex(m *Manifest, parse func([]byte) (*trigram.Index, error)) (*trigram.Index, []byte, error) {
	b := s.forManifest(m)
	data, err := s.readCapped(SearchIndex, b)
	if err != nil {
		return nil, nil, err
	}
	// Damage first: a flipped byte is damage, even in the digest.
	ix, err := parse(data)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", SearchIndex, err)
	}
	if err := b.checkContents(data); err != nil {
		return nil, nil, err
	}
	return ix, data, nil
}

// LineIndex reads and parses lines.json when its marks match their sums
// and it lists exactly m's staged oversize files with their hashes
// (ErrUnbound otherwise). data is the file as read.
func (s *Snapshot) LineIndex(m *Manifest) (lx *lineindex.Index, data []byte, err error) {
	b := s.forManifest(m)
	if data, err = s.readCapped(LinesJSON, b); err != nil {
		return nil, nil, err
	}
	if lx, err = b.parseLines(data); err != nil {
		return nil, nil, err
	}
	return lx, data, nil
}

// indexes checks the server's indexes against files.json: search.index
// must be bound to the staged files (its content digest), load (its
// checksum and layout) and list exactly the staged paths, in order, with
// their current sizes; lines.json's marks must match their sums and it
// must list exactly the staged oversize files with their hashes, line
// counts and sizes. The marks themselves are compared with the staged
// text's as tree() reads it (v.lines). linetokens.index must be bound to
// the staged files and carry each one's hash, size, line count and
// summed counts (tokenIndex); tree() compares the counts with the text's. A stale index would make search
// miss matches, and stale marks would label lines wrong.
func (v *verifier) indexes(m *Manifest) {
	if m == nil {
		v.regularIndex(SearchIndex)
		v.regularIndex(LinesJSON)
		v.regularIndex(LineTokens)
		return
	}
	var staged []string
	for i := range m.Files {
		if e := &m.Files[i]; e.Staged {
			staged = append(staged, e.Path)
		}
	}
	slices.Sort(staged)
	size := func(p string) int64 {
		fi, err := v.snap.Lstat(path.Join(TreeDir, p))
		if err != nil || !fi.Mode().IsRegular() {
			return -1 // tree() reports the file itself
		}
		return fi.Size()
	}
	v.tokens = v.tokenIndex(m, size)
	if v.regularIndex(SearchIndex) {
		ix, _, err := v.snap.SearchIndex(m)
		if err != nil {
			v.add(SearchIndex, "%s", problem(SearchIndex, err))
		} else {
			paths := ix.Paths()
			if len(paths) != len(staged) {
				v.add(SearchIndex, "lists %d files, files.json stages %d", len(paths), len(staged))
			}
			for i := 0; i < min(len(paths), len(staged)); i++ {
				if paths[i] != staged[i] {
					v.add(SearchIndex, "file %d is %q, files.json stages %q there", i, paths[i], staged[i])
					break
				}
				if got := size(staged[i]); got >= 0 && got != ix.Size(i) {
					v.add(SearchIndex, "%q indexed at %d bytes, the staged file has %d", staged[i], ix.Size(i), got)
				}
			}
		}
	}
	if !v.regularIndex(LinesJSON) {
		return
	}
	b := v.snap.forManifest(m)
	data, err := v.snap.readCapped(LinesJSON, b)
	if err != nil {
		v.add(LinesJSON, "%s", problem(LinesJSON, err))
		return
	}
	lx, err := lineindex.Parse(data)
	if err != nil {
		v.add(LinesJSON, "%s", problem(LinesJSON, err))
		return
	}
	problems := b.linesProblems(lx)
	for _, p := range problems {
		v.add(LinesJSON, "%s", p)
	}
	for i := range lx.Files {
		f := &lx.Files[i]
		if got := size(f.Path); got >= 0 && got != f.Size {
			v.add(LinesJSON, "%q indexed at %d bytes, the staged file has %d", f.Path, f.Size, got)
		}
		if len(problems) == 0 {
			v.lines[f.Path] = f
		}
	}
}

// problem is err as a drift of the file name: without the name it starts
// with, and the line-index package's spelling of it.
func problem(name string, err error) string {
	msg := strings.TrimPrefix(err.Error(), name+": ")
	return strings.TrimPrefix(msg, LinesJSON+": ")
}

// checkMarks compares lines.json's marks of an oversize file with the
// ones its staged text gives (got, taken while tree() hashed it): equal
// sums prove only that nobody edited the marks without the sum.
func (v *verifier) checkMarks(p string, got lineindex.File) {
	want := v.lines[p]
	if want == nil {
		return
	}
	if got.Size != want.Size || got.Lines != want.Lines || !slices.Equal(got.Marks, want.Marks) {
		i := 0
		for i < min(len(got.Marks), len(want.Marks)) && got.Marks[i] == want.Marks[i] {
			i++
		}
		what := fmt.Sprintf("%d marks, the text gives %d", len(want.Marks), len(got.Marks))
		if i < min(len(got.Marks), len(want.Marks)) {
			what = fmt.Sprintf("mark %d is line %d at byte %d, the text has line %d at byte %d",
				i, want.Marks[i][0], want.Marks[i][1], got.Marks[i][0], got.Marks[i][1])
		}
		v.add(LinesJSON, "the marks of %q are not its staged text's: %s", p, what)
	}
}
