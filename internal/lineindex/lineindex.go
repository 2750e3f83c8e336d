// Package lineindex owns OUT/lines.json: for every oversize staged file, the
// byte offset of a line start at least every Every bytes, so a server can
// read lines 500000-500010 of a 30 MB file by seeking, not by scanning from
// the top, and knows the file's line count without counting. It also owns
// OUT/linetokens.index (tokens.go): every staged line's length and o200k
// count as read_file shows it, so a server applies a token budget by
// lookup.
//
// Each file's marks are bound to the text they were taken from: the file
// records that text's hash (files.json's) and a sum over its path, hash,
// size, line count and marks. A reader compares the hash with files.json
// and Parse checks the sum, so marks left from other contents, or edited
// since (a line number shifted, an offset moved), are refused, never used
// to label the wrong line.
package lineindex

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/zeebo/blake3"
)

// Schema names the format of lines.json. v1 had no hash and no sum.
const Schema = "repoprep.lines/v2"

// Every is the spacing of marks in bytes: a read seeks to the last mark at
// or before its first line and skips at most this much (plus one line).
const Every = 64 << 10

// sumPrefix starts a File's Sum, as files.json's hashes start.
const sumPrefix = "blake3:"

// Index is lines.json.
type Index struct {
	Schema string `json:"schema"`
	Every  int64  `json:"every"`
	Files  []File `json:"files"`
}

// File is one oversize file's marks.
type File struct {
	Path string `json:"path"`
	// Hash is the hash of the staged text the marks were taken from, as
	// files.json records it: another hash there means other contents.
	Hash  string `json:"hash"`
	Size  int64  `json:"size"`  // staged bytes; a different size means the file changed
	Lines int    `json:"lines"` // as files.json counts them
	// Marks are [line, offset] pairs, ascending: line (1-based) starts at
	// byte offset. The first is [1, 0].
	Marks [][2]int64 `json:"marks"`
	// Sum is "blake3:" and the hex BLAKE3 of the fields above (see sum),
	// written by Encode and checked by Parse.
	Sum string `json:"sum"`
}

// sum is the hex BLAKE3 of f's path, hash, size, line count and marks,
// each an unsigned varint (a string as its length, then its bytes) after
// the schema name: what Sum records.
func (f *File) sum() string {
	b := make([]byte, 0, 64+len(f.Path)+len(f.Hash)+20*len(f.Marks))
	b = append(b, Schema...)
	b = append(b, 0)
	b = binary.AppendUvarint(b, uint64(len(f.Path)))
	b = append(b, f.Path...)
	b = binary.AppendUvarint(b, uint64(len(f.Hash)))
	b = append(b, f.Hash...)
	b = binary.AppendUvarint(b, uint64(f.Size))
	b = binary.AppendUvarint(b, uint64(f.Lines))
	b = binary.AppendUvarint(b, uint64(len(f.Marks)))
	for _, m := range f.Marks {
		b = binary.AppendUvarint(b, uint64(m[0]))
		b = binary.AppendUvarint(b, uint64(m[1]))
	}
	sum := blake3.Sum256(b)
	return sumPrefix + hex.EncodeToString(sum[:])
}

// Scan reads a staged file once and returns its marks, size and line count
// (newlines, plus a last line without one). Path and Hash are the
// caller's to fill.
func Scan(ctx context.Context, r io.Reader) (File, error) {
	var mk Marker
	buf := make([]byte, 256<<10)
	for {
		if err := ctx.Err(); err != nil {
			return File{}, err
		}
		n, err := r.Read(buf)
		mk.Write(buf[:n])
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return File{}, err
		}
	}
	return mk.File(), nil
}

// Marker takes a file's marks, size and line count from its bytes as they
// come, in pieces of any size: Scan's one pass, for a reader that reads
// the file for more than its marks (verify hashes it too). The zero value
// is ready; not safe for concurrent use.
type Marker struct {
	f        File
	off      int64 // bytes written so far
	lastMark int64 // offset of the last mark, Every before 0 at first
	last     byte  // the last byte written
	started  bool
}

// Write takes the next bytes of the file; it never fails.
func (mk *Marker) Write(p []byte) (int, error) {
	if !mk.started {
		mk.f.Marks, mk.lastMark, mk.last, mk.started = [][2]int64{}, -Every, '\n', true
	}
	n := len(p)
	if n == 0 {
		return 0, nil
	}
	// A line starts at offset 0 and after every '\n' that is not the last
	// byte of the file: here, at p[0] after a '\n' that ended the last
	// piece, and after each '\n' in p but a last one.
	if mk.last == '\n' && mk.off >= mk.lastMark+Every {
		mk.mark(mk.off)
	}
	for start := 0; ; {
		i := bytes.IndexByte(p[start:], '\n')
		if i < 0 {
			break
		}
		mk.f.Lines++
		start += i + 1
		// Mark the next line's start once Every bytes have passed.
		if next := mk.off + int64(start); start < n && next >= mk.lastMark+Every {
			mk.mark(next)
		}
	}
	mk.last = p[n-1]
	mk.off += int64(n)
	return n, nil
}

// mark records that line f.Lines+1 starts at off.
func (mk *Marker) mark(off int64) {
	mk.f.Marks = append(mk.f.Marks, [2]int64{int64(mk.f.Lines) + 1, off})
	mk.lastMark = off
}

// File returns the marks, size and line count of the bytes written (a
// last line without '\n' counts); call it once, at the end.
func (mk *Marker) File() File {
	if !mk.started {
		mk.Write(nil)
	}
	f := mk.f
	if mk.off > 0 && mk.last != '\n' {
		f.Lines++
	}
	f.Size = mk.off
	return f
}

// Encode writes ix as lines.json, with each file's sum.
func (ix *Index) Encode(w io.Writer) error {
	ix.Schema, ix.Every = Schema, Every
	if ix.Files == nil {
		ix.Files = []File{}
	}
	for i := range ix.Files {
		ix.Files[i].Sum = ix.Files[i].sum()
	}
	enc := json.NewEncoder(w)
	return enc.Encode(ix)
}

// ErrSum means a file's marks do not match their sum: damaged, or edited
// without it. The caller reads without the index.
var ErrSum = errors.New("marks do not match their sum (damaged or edited)")

// Parse reads lines.json and checks that every file's marks are usable and
// match their sum: a damaged or edited index must cost speed, never a
// wrong line. Whether each file's hash is the one files.json records is
// the caller's to check (it holds files.json).
func Parse(data []byte) (*Index, error) {
	var ix Index
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&ix); err != nil {
		return nil, fmt.Errorf("lines.json: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("lines.json: trailing data after the JSON document (at byte %d)", dec.InputOffset())
	}
	if ix.Schema != Schema {
		return nil, fmt.Errorf("lines.json: schema %q, want %q", ix.Schema, Schema)
	}
	if ix.Every != Every {
		return nil, fmt.Errorf("lines.json: marks every %d bytes, want %d", ix.Every, Every)
	}
	for _, f := range ix.Files {
		if f.Size < 0 || f.Lines < 0 {
			return nil, fmt.Errorf("lines.json: %q: a negative size or line count", f.Path)
		}
		if len(f.Marks) == 0 && f.Size > 0 {
			return nil, fmt.Errorf("lines.json: %q has no marks", f.Path)
		}
		for i, m := range f.Marks {
			bad := m[0] < 1 || m[1] < 0 || m[1] >= max(f.Size, 1) || m[0] > int64(f.Lines)
			if i == 0 {
				bad = bad || m != [2]int64{1, 0}
			} else {
				prev := f.Marks[i-1]
				bad = bad || m[0] <= prev[0] || m[1] <= prev[1] || m[1]-prev[1] < m[0]-prev[0]
			}
			if bad {
				return nil, fmt.Errorf("lines.json: %q: mark %d is out of order or out of range", f.Path, i)
			}
		}
		if f.Sum != f.sum() {
			return nil, fmt.Errorf("lines.json: %q: %w", f.Path, ErrSum)
		}
	}
	return &ix, nil
}

// Seek returns the last mark at or before line: where to start reading so
// that the next line read is mark[0].
func (f *File) Seek(line int) (markLine int, offset int64) {
	i, found := slices.BinarySearchFunc(f.Marks, int64(line), func(m [2]int64, l int64) int {
		switch {
		case m[0] < l:
			return -1
		case m[0] > l:
			return 1
		}
		return 0
	})
	if !found {
		i--
	}
	if i < 0 {
		return 1, 0
	}
	return int(f.Marks[i][0]), f.Marks[i][1]
}
