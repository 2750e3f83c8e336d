package snapshot

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/repoprep/repoprep/internal/lineindex"
)

// TokenIndex is linetokens.index opened for reading one file's counts at
// a time: bound to the staged files of the manifest it was opened with.
// Safe for concurrent use (reads are ReadAt); Close it when done.
type TokenIndex struct {
	*lineindex.TokenIndex
	f      *os.File // nil when opened over data
	data   []byte   // the whole file, when opened by LineTokensData
	staged []string // the staged paths, sorted: file i of the index is staged[i]
	hashes []string // their files.json hashes
}

// Close closes the index file.
func (t *TokenIndex) Close() error {
	if t.f == nil {
		return nil
	}
	return t.f.Close()
}

// Find returns the index of the staged path p in the token index, or -1.
func (t *TokenIndex) Find(p string) int {
	lo, hi := 0, len(t.staged)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if t.staged[mid] < p {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo < len(t.staged) && t.staged[lo] == p {
		return lo
	}
	return -1
}

// Counts reads the line lengths and counts of the staged file p, whose
// staged copy has size bytes and lines lines (files.json's), into buf:
// its record must carry files.json's hash for p, that size and line count,
// and its data must match its sum. Any other answer is an error, and the
// caller counts instead.
func (t *TokenIndex) Counts(p string, size int64, lines int, buf []byte) ([]byte, error) {
	i := t.Find(p)
	if i < 0 {
		return buf, fmt.Errorf("%s: %q is not a staged file", LineTokens, p)
	}
	r, err := t.Record(i)
	if err != nil {
		return buf, err
	}
	want, err := DecodeHash(t.hashes[i])
	if err != nil || r.Hash != want {
		return buf, fmt.Errorf("%s: %w: the counts of %q are of other contents", LineTokens, ErrUnbound, p)
	}
	if r.Size != size || r.Lines != int64(lines) {
		return buf, fmt.Errorf("%s: %q has %d lines of %d bytes, its counts are of %d lines of %d bytes", LineTokens, p, lines, size, r.Lines, r.Size)
	}
	return t.Data(p, r, buf)
}

// LineTokens opens linetokens.index when it is bound to m's staged files
// (its content digest; ErrUnbound otherwise) and its size is within its
// cap. The counts themselves are read, and checked against their sums,
// one file at a time (TokenIndex.Counts).
func (s *Snapshot) LineTokens(m *Manifest) (*TokenIndex, error) {
	b := s.forManifest(m)
	f, err := s.OpenFile(LineTokens)
	if err != nil {
		return nil, err
	}
	ix, err := s.openTokens(f, b)
	if err != nil {
		f.Close()
		return nil, err
	}
	return ix, nil
}

// LineTokensData reads linetokens.index whole, within its cap, and opens
// it over those bytes when it is bound to m's staged files, for a caller
// that takes every file's counts (a refresh carrying them forward, which
// checks the bytes against the refresh state). TokenIndex.Raw gives a
// file's record and data from them.
func (s *Snapshot) LineTokensData(m *Manifest) (*TokenIndex, []byte, error) {
	b := s.forManifest(m)
	f, err := s.OpenFile(LineTokens)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if err := s.checkTokensCap(fi.Size(), b); err != nil {
		return nil, nil, err
	}
	data := make([]byte, fi.Size())
	if _, err := io.ReadFull(f, data); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", LineTokens, err)
	}
	if n, _ := f.Read(make([]byte, 1)); n != 0 {
		return nil, nil, fmt.Errorf("%s: grew while it was read", LineTokens)
	}
	t, err := s.openTokensAt(bytes.NewReader(data), int64(len(data)), b)
	if err != nil {
		return nil, nil, err
	}
	t.data = data
	return t, data, nil
}

// Raw returns file i's record and its data as written, from an index
// opened by LineTokensData, checking only that the record points inside
// the data: the caller vouches for the bytes (their sums are not checked).
func (t *TokenIndex) Raw(i int) (lineindex.TokenRecord, []byte, error) {
	r, err := t.Record(i)
	if err != nil {
		return r, nil, err
	}
	if t.data == nil || r.Off+r.N > int64(len(t.data)) {
		return r, nil, fmt.Errorf("%s: record %d is not in the bytes read", LineTokens, i)
	}
	return r, t.data[r.Off : r.Off+r.N : r.Off+r.N], nil
}

// Hash is the files.json hash of file i of the index.
func (t *TokenIndex) Hash(i int) string { return t.hashes[i] }

func (s *Snapshot) checkTokensCap(size int64, b *bounds) error {
	if limit := s.maxBytes(LineTokens, b, false); size > limit {
		if limit = max(limit, s.maxBytes(LineTokens, b, true)); size > limit {
			return &TooLargeError{Name: LineTokens, Size: size, Max: limit}
		}
	}
	return nil
}

func (s *Snapshot) openTokens(f *os.File, b *bounds) (*TokenIndex, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if err := s.checkTokensCap(fi.Size(), b); err != nil {
		return nil, err
	}
	t, err := s.openTokensAt(f, fi.Size(), b)
	if err != nil {
		return nil, err
	}
	t.f = f
	return t, nil
}

func (s *Snapshot) openTokensAt(r io.ReaderAt, size int64, b *bounds) (*TokenIndex, error) {
	lx, err := lineindex.OpenTokens(r, size)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", LineTokens, err)
	}
	want, err := b.digest()
	if err != nil {
		return nil, fmt.Errorf("%s: %w: %v", LineTokens, ErrUnbound, err)
	}
	if got := lx.Contents(); got != want || lx.Files() != len(b.staged) {
		return nil, fmt.Errorf("%s: %w: it lists %d files with content digest %x…, the %d staged files give %x… (copied from another snapshot, or left from other contents)",
			LineTokens, ErrUnbound, lx.Files(), got[:6], len(b.staged), want[:6])
	}
	t := &TokenIndex{TokenIndex: lx, staged: make([]string, len(b.staged)), hashes: make([]string, len(b.staged))}
	for i, e := range b.staged {
		t.staged[i], t.hashes[i] = e.path, e.hash
	}
	return t, nil
}

// lineTokensCap bounds linetokens.index from its files' line counts: the
// magic and the footer, and per file a record and per line (one more for
// safety) two varints of at most ten bytes.
func lineTokensCap(staged []boundEntry) int64 {
	n := int64(1 << 10)
	for i := range staged {
		n = capAdd(n, lineindex.TokenRecordSize)
		n = capAdd(n, capMul(int64(max(staged[i].lines, 0))+1, 20))
	}
	return n
}

// tokenIndex checks the token index against files.json and the staged
// files' sizes (size: -1 when the staged file is unusable, which tree()
// reports): every record must carry its file's hash, line count and size,
// and data that matches its sum. It returns the index for tree() to
// compare each file's counts with its text, or nil.
func (v *verifier) tokenIndex(m *Manifest, size func(string) int64) *TokenIndex {
	if !v.regularIndex(LineTokens) {
		return nil
	}
	ix, err := v.snap.LineTokens(m)
	var tooLarge *TooLargeError
	switch {
	case errors.As(err, &tooLarge):
		v.add(LineTokens, "%v", err)
		return nil
	case err != nil:
		v.add(LineTokens, "%s", problem(LineTokens, err))
		return nil
	}
	b := v.snap.forManifest(m)
	var buf []byte
	bad := 0
	for i, p := range ix.staged {
		r, err := ix.Record(i)
		if err == nil {
			want, _ := DecodeHash(ix.hashes[i])
			switch e := b.byPath(p); {
			case r.Hash != want:
				err = fmt.Errorf("%w: the counts of %q are of content %x…, files.json records %s", ErrUnbound, p, r.Hash[:6], short(ix.hashes[i]))
			case e != nil && r.Lines != int64(e.lines):
				err = fmt.Errorf("the counts of %q are of %d lines, files.json records %d", p, r.Lines, e.lines)
			case size(p) >= 0 && r.Size != size(p):
				err = fmt.Errorf("the counts of %q are of %d bytes, the staged file has %d", p, r.Size, size(p))
			default:
				buf, err = ix.Data(p, r, buf)
			}
		}
		if err != nil {
			v.add(LineTokens, "%s", problem(LineTokens, err))
			if bad++; bad == maxTokenDrifts {
				v.add(LineTokens, "more files' counts are wrong; stopped at %d", bad)
				break
			}
		}
	}
	if bad > 0 {
		ix.Close()
		return nil
	}
	return ix
}

// maxTokenDrifts bounds the drifts one damaged token index adds.
const maxTokenDrifts = 20

// checkTokens compares the token index's counts of the staged file p with
// the ones its text gives (got, counted while tree() hashed it): equal
// sums prove only that nobody edited the counts without the sum.
func (v *verifier) checkTokens(p string, got *lineindex.LineCounter) {
	i := v.tokens.Find(p)
	if i < 0 {
		return
	}
	r, err := v.tokens.Record(i)
	if err != nil {
		return // reported by tokenIndex
	}
	want, err := v.tokens.Data(p, r, nil)
	if err != nil {
		return
	}
	data, lines, _ := got.Finish()
	if lines != r.Lines {
		return // tree() reports the line count
	}
	have, text := lineindex.NewCounts(want), lineindex.NewCounts(data)
	for line := 1; ; line++ {
		wl, wc, ok1 := have.Next()
		tl, tc, ok2 := text.Next()
		if !ok1 || !ok2 {
			return
		}
		if wl != tl || wc != tc {
			v.add(LineTokens, "the counts of %q are not its staged text's: line %d is %d bytes and %d tokens, the text gives %d bytes and %d tokens",
				p, line, wl, wc, tl, tc)
			return
		}
	}
}

// byPath returns the bound entry of a staged path, or nil.
func (b *bounds) byPath(p string) *boundEntry {
	if b == nil {
		return nil
	}
	lo, hi := 0, len(b.staged)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if b.staged[mid].path < p {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo < len(b.staged) && b.staged[lo].path == p {
		return &b.staged[lo]
	}
	return nil
}
