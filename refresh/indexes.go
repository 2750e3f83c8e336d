package refresh

import (
	"bufio"
	"context"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/zeebo/blake3"

	"github.com/repoprep/repoprep/internal/lineindex"
	"github.com/repoprep/repoprep/internal/trigram"
	"github.com/repoprep/repoprep/snapshot"
	"github.com/repoprep/repoprep/stages"
)

// CopyIndexes copies the previous snapshot's search.index and lines.json
// into out when staged (sorted by path) are exactly the previous staged
// files: the same paths, each with the hash and oversize flag files.json
// recorded (hashes of the final, redacted text). Both indexes are a
// function of those files and their order alone. The previous files must
// be bound to the previous files.json (snapshot.SearchIndexFiles,
// snapshot.LineIndex: the index's content digest, the marks' hashes and
// sums), parse (the trigram index checks its CRC) and list those paths
// with those sizes; otherwise ok is false and the caller builds them.
func (p *Prior) CopyIndexes(staged []stages.StagedText, out *snapshot.Pending) (ok bool, err error) {
	var prev []*snapshot.Entry
	for _, en := range p.entries {
		if en.Staged {
			prev = append(prev, en)
		}
	}
	if len(prev) != len(staged) {
		return false, nil
	}
	slices.SortFunc(prev, func(a, b *snapshot.Entry) int { return strings.Compare(a.Path, b.Path) })
	var oversize []stages.StagedText
	for i, rec := range staged {
		if en := prev[i]; en.Path != rec.Path || en.Hash != rec.Hash || en.Oversize != rec.Oversize {
			return false, nil
		}
		if rec.Oversize {
			oversize = append(oversize, rec)
		}
	}
	defer refuseFault(&ok, &err, out.Path(snapshot.SearchIndex), out.Path(snapshot.LinesJSON))()
	ix, tri, release, err := p.snap.SearchIndexFilesMapped(p.manifest) // copied whole: its checksum covers the table
	if err != nil {
		return false, nil
	}
	defer release()
	if !p.described(snapshot.SearchIndex, tri) || len(ix.Paths()) != len(staged) {
		return false, nil
	}
	for i, rec := range staged {
		if ix.Paths()[i] != rec.Path || ix.Size(i) != rec.OutSize {
			return false, nil
		}
	}
	lx, lines, err := p.snap.LineIndex(p.manifest)
	if err != nil || !p.described(snapshot.LinesJSON, lines) || len(lx.Files) != len(oversize) {
		return false, nil
	}
	for i, rec := range oversize {
		if f := lx.Files[i]; f.Path != rec.Path || f.Size != rec.OutSize || f.Lines != rec.Lines {
			return false, nil
		}
	}
	for name, data := range map[string][]byte{snapshot.SearchIndex: tri, snapshot.LinesJSON: lines} {
		if err := out.WriteFile(name, func(w *bufio.Writer) error { _, err := w.Write(data); return err }); err != nil {
			return false, err
		}
	}
	return true, nil
}

// unchanged reports whether rec's final staged text is the previous
// snapshot's at the same path: its entry was staged with the same hash.
func (p *Prior) unchanged(rec stages.StagedText) bool {
	en := p.entries[rec.Path]
	return en != nil && en.Staged && en.Hash == rec.Hash
}

// UpdateIndex writes dst from the previous search.index, reading only the
// staged files whose text changed (trigram.Update); ok is false when the
// previous index cannot serve (missing, damaged, not bound to the previous
// files.json, or most files changed) and the caller builds one. The
// result is the index a build writes.
func (p *Prior) UpdateIndex(ctx context.Context, staged []stages.StagedText, files []trigram.File, dst string) (ok bool, err error) {
	defer refuseFault(&ok, &err, dst)()
	// Its table is not decoded first (trigram.ParseFiles): UpdateWith
	// checks each entry as it merges, and copies nearly all of them.
	ix, data, release, err := p.snap.SearchIndexFilesMapped(p.manifest)
	if err != nil {
		return false, nil
	}
	defer release()
	if !p.described(snapshot.SearchIndex, data) {
		return false, nil
	}
	ids := make(map[string]int, len(ix.Paths()))
	for id, path := range ix.Paths() {
		ids[path] = id
	}
	from := make([]int, len(staged))
	read := 0
	for i, rec := range staged {
		from[i] = -1
		if id, ok := ids[rec.Path]; ok && p.unchanged(rec) && ix.Size(id) == rec.OutSize {
			from[i] = id
		} else {
			read++
		}
	}
	if read > len(staged)/2 {
		return false, nil // a build reads as much and sorts faster
	}
	// What the previous index holds under a dropped id: the previous
	// tree's copy, which must hash as files.json says (else the update
	// stops and a build is made).
	old := func(id int) (trigram.File, bool) {
		path := ix.Paths()[id]
		en := p.entries[path]
		if en == nil || !en.Staged {
			return trigram.File{}, false
		}
		want, err := hexSum(en.Hash)
		if err != nil {
			return trigram.File{}, false
		}
		return trigram.File{Path: path, Open: func() (io.ReadCloser, error) {
			f, err := p.copies.Open(path)
			if err != nil {
				return nil, err
			}
			return &checkedReader{f: f, h: blake3.New(), want: want}, nil
		}}, true
	}
	err = trigram.UpdateWith(ctx, ix, files, from, old, dst)
	if errors.Is(err, trigram.ErrTooManyChanges) || errors.Is(err, trigram.ErrDamaged) || errors.Is(err, errPreviousCopy) {
		os.Remove(dst)
		return false, nil
	}
	return err == nil, err
}

// refuseFault reads the previous search.index through a mapping
// (snapshot.SearchIndexMapped) safely: until the returned func runs, on
// the calling goroutine, a memory fault (the file shrank while mapped)
// panics instead of killing the process, and that panic becomes a refused
// previous index (*ok false, *err nil: the caller builds one; what it
// had begun writing, remove, is removed). Any other panic goes on. Defer
// the returned func before the mapping is made, so the mapping is
// released first.
func refuseFault(ok *bool, err *error, remove ...string) func() {
	prev := debug.SetPanicOnFault(true)
	return func() {
		debug.SetPanicOnFault(prev)
		if r := recover(); r != nil {
			if !snapshot.Faulted(r) {
				panic(r)
			}
			for _, name := range remove {
				os.Remove(name)
			}
			*ok, *err = false, nil
		}
	}
}

// errPreviousCopy: a previous tree's copy does not hash as files.json says.
var errPreviousCopy = errors.New("the previous copy is not what files.json says")

// checkedReader reads a previous copy and, at its end, errs unless it
// hashed to want.
type checkedReader struct {
	f    *os.File
	h    *blake3.Hasher
	want [32]byte
}

func (c *checkedReader) Read(b []byte) (int, error) {
	n, err := c.f.Read(b)
	c.h.Write(b[:n])
	if err == io.EOF && [32]byte(c.h.Sum(nil)) != c.want {
		return n, errPreviousCopy
	}
	return n, err
}

func (c *checkedReader) Close() error { return c.f.Close() }

// LineMarks returns the previous lines.json's marks of the oversize staged
// files whose text is unchanged, by path; none when the previous lines.json
// is not bound to the previous files.json (snapshot.LineIndex).
func (p *Prior) LineMarks(staged []stages.StagedText) map[string]lineindex.File {
	lx, data, err := p.snap.LineIndex(p.manifest)
	if err != nil || !p.described(snapshot.LinesJSON, data) {
		return nil
	}
	byPath := make(map[string]lineindex.File, len(lx.Files))
	for _, f := range lx.Files {
		byPath[f.Path] = f
	}
	out := map[string]lineindex.File{}
	for _, rec := range staged {
		if f, ok := byPath[rec.Path]; ok && rec.Oversize && p.unchanged(rec) && f.Size == rec.OutSize && f.Lines == rec.Lines {
			out[rec.Path] = f
		}
	}
	return out
}

// CopyFilesJSON copies the previous files.json into out when m is the
// manifest it holds (nothing changed): this build encodes one manifest to
// one sequence of bytes, and the copy must hash to what the state
// recorded, else ok is false and the caller encodes m. sum is the copy's
// BLAKE3 (hex).
func (p *Prior) CopyFilesJSON(m *snapshot.Manifest, out *snapshot.Pending) (sum string, ok bool, err error) {
	if p == nil || !sameManifest(p.manifest, m) {
		return "", false, nil
	}
	ok, err = p.copyOwn(snapshot.FilesJSON, out.Path(snapshot.FilesJSON), p.filesJSON)
	return p.filesJSON, ok, err
}

func sameManifest(a, b *snapshot.Manifest) bool {
	return a != nil && b != nil && a.Schema == b.Schema && slices.Equal(a.Files, b.Files) && slices.Equal(a.Pruned, b.Pruned)
}

// described reports whether data, the previous snapshot's index name, is
// the one the MAC'd state recorded: an index whose unkeyed sums were
// recomputed after an edit is bound to files.json but not described, and
// is built again.
func (p *Prior) described(name string, data []byte) bool {
	sum := blake3.Sum256(data)
	want, ok := p.indexes[name]
	return ok && want == hex.EncodeToString(sum[:])
}
