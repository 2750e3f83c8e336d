package stages

import (
	"bufio"
	"cmp"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/repoprep/repoprep/internal/lineindex"
	"github.com/repoprep/repoprep/internal/tokens"
	"github.com/repoprep/repoprep/snapshot"
)

// The per-line token data of linetokens.index (lineindex.LineCounter) is
// made in the per-file loop, from the text normalize holds or streams,
// by the worker that counts the text's tokens: so the loop spreads it
// over the workers, and nothing reads tree/ again for it. It is not held
// until the index is written (a byte or two per line, every line of the
// tree): each file's data is appended to a spill file in OUT's staging
// directory as it is made, and the index's writer copies it in path
// order (LineTokens.Read). Each entry carries the BLAKE3 of the text it
// was counted from, so a staged copy that changed after the loop
// (redaction, a refresh's replay) is told apart and counted again from
// its copy.

// spillHeaderBytes is an entry's header in the spill: the counted text's
// BLAKE3-256, its size and its line count.
const spillHeaderBytes = 32 + 8 + 8

// spillBufferBytes is the spill's write buffer: entries are small (a
// Go file's data is a few hundred bytes), so most go out in batches.
const spillBufferBytes = 256 << 10

// LineTokens is the spill of the line-token data the loop made, for the
// index stage to copy (pipeline's writeLineTokens). It holds one spilled
// entry's place per staged text (spilled: 24 bytes a file) and a write
// buffer, whatever the texts' sizes. Safe for concurrent use by the
// loop's workers; Read is for after the loop.
type LineTokens struct {
	name string

	mu  sync.Mutex
	f   *os.File
	w   *bufio.Writer
	off int64     // the spill's length, buffered bytes included
	at  []spilled // in the order spilled; sorted by path when first read
	err error     // the first write error: Read reports it

	sortOnce sync.Once
}

// spilled is where one text's entry is in the spill, by the text's path
// (its record's Path: the string, not the record, so that the records can
// go once the manifest holds their entries).
type spilled struct {
	path string
	off  int64 // the entry's header
	n    int64 // the data's length, after the header
}

// NewLineTokens creates the spill under dir (OUT's staging directory),
// with room for about files entries' places. Close removes it.
func NewLineTokens(dir string, files int) (*LineTokens, error) {
	f, err := os.CreateTemp(dir, snapshot.LineTokensSpill)
	if err != nil {
		return nil, err
	}
	return &LineTokens{name: f.Name(), f: f, w: bufio.NewWriterSize(f, spillBufferBytes), at: make([]spilled, 0, files)}, nil
}

// add spills rec's data, counted from the text whose BLAKE3-256 is sum.
func (s *LineTokens) add(rec *Record, sum [32]byte, data []byte, lines, size int64) error {
	var h [spillHeaderBytes]byte
	copy(h[:32], sum[:])
	binary.LittleEndian.PutUint64(h[32:], uint64(size))
	binary.LittleEndian.PutUint64(h[40:], uint64(lines))
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return s.err
	}
	if _, err := s.w.Write(h[:]); err != nil {
		s.err = err
		return err
	}
	if _, err := s.w.Write(data); err != nil {
		s.err = err
		return err
	}
	s.at = append(s.at, spilled{path: rec.Path, off: s.off, n: int64(len(data))})
	s.off += spillHeaderBytes + int64(len(data))
	return nil
}

// index flushes the spill and sorts the entries' places by path, the
// latest entry of a path last (a text the loop read twice, decided
// again under a repository's charset, was spilled twice).
func (s *LineTokens) index() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err == nil {
		s.err = s.w.Flush()
	}
	slices.SortFunc(s.at, func(a, b spilled) int {
		return cmp.Or(strings.Compare(a.path, b.path), cmp.Compare(a.off, b.off))
	})
}

// Read returns the data the loop spilled for en, a staged text,
// read into *buf (grown as needed), when it was counted from the text
// files.json records for en: of BLAKE3-256 sum (its Hash, decoded),
// en.OutSize bytes and en.Lines lines. ok is false otherwise (not counted in the
// loop, or the staged copy changed since: redacted, replayed), and the
// caller counts the staged copy. err is a failure to write or read the
// spill. Call it once the loop is over, from one goroutine.
func (s *LineTokens) Read(en StagedText, sum [32]byte, buf *[]byte) (data []byte, ok bool, err error) {
	if s == nil {
		return nil, false, nil
	}
	s.sortOnce.Do(s.index)
	if s.err != nil {
		return nil, false, fmt.Errorf("line tokens spill: %w", s.err)
	}
	// The last entry of en's path: the text as the loop last made it.
	i, _ := slices.BinarySearchFunc(s.at, en.Path, func(e spilled, path string) int {
		return cmp.Or(strings.Compare(e.path, path), -1) // past every entry of path
	})
	if i == 0 || s.at[i-1].path != en.Path {
		return nil, false, nil
	}
	e := s.at[i-1]
	need := int(spillHeaderBytes + e.n)
	if cap(*buf) < need {
		*buf = make([]byte, need)
	}
	b := (*buf)[:need]
	if _, err := s.f.ReadAt(b, e.off); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, false, fmt.Errorf("line tokens spill: %w", err)
	}
	if [32]byte(b[:32]) != sum || int64(binary.LittleEndian.Uint64(b[32:])) != en.OutSize ||
		int64(binary.LittleEndian.Uint64(b[40:])) != int64(en.Lines) {
		return nil, false, nil
	}
	return b[spillHeaderBytes:], true, nil
}

// Close closes and removes the spill.
func (s *LineTokens) Close() error {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	// The places hold every staged text's path: let them go with the
	// spill.
	s.at = nil
	if s.f == nil {
		return nil
	}
	err := s.f.Close()
	s.f = nil
	if rmErr := os.Remove(s.name); err == nil {
		err = rmErr
	}
	return err
}

// countLines starts rec's line-token data in w's LineCounter, for Process
// to spill once the text is hashed; the text comes in its token batches
// (textenc.Options.Batches).
func (e *Env) countLines(rec *Record, w *Worker) {
	w.lines.Reset()
	w.linesOf = rec
}

// countText returns the token count of rec's text, held whole, and makes
// its line-token data in w's LineCounter beside it, in the same scan
// (lineindex.LineCounter.CountText), when the loop makes them.
func (e *Env) countText(rec *Record, w *Worker, text []byte) int {
	if e.LineTokens == nil || w == nil {
		return tokens.CountBytes(text)
	}
	e.countLines(rec, w)
	return w.lines.CountText(text)
}

// spillLines spills the data w counted for rec, if it did and the text
// is staged and hashed. Called at the end of Process.
func (e *Env) spillLines(rec *Record, w *Worker) error {
	if w.linesOf != rec {
		return nil
	}
	w.linesOf = nil
	if !rec.Staged || !rec.hashed {
		return nil
	}
	data, lines, size := w.lines.Finish()
	err := e.LineTokens.add(rec, rec.sum, data, lines, size)
	if cap(data) > maxKeptLineDataBytes {
		w.lines = lineindex.LineCounter{} // a rare text of a million lines: not kept for the rest of the loop
	}
	if err != nil {
		return fmt.Errorf("normalize %s: line tokens: %w", rec.Path, err)
	}
	return nil
}

// maxKeptLineDataBytes is the largest LineCounter buffer a worker keeps
// from one text to the next.
const maxKeptLineDataBytes = 1 << 20
