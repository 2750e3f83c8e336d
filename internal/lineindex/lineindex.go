// Package lineindex owns OUT/lines.json: for every oversize staged file, the
// byte offset of a line start at least every Every bytes, so a server can
// read lines 500000-500010 of a 30 MB file by seeking, not by scanning from
// the top, and knows the file's line count without counting.
package lineindex

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
)

// Schema names the format of lines.json.
const Schema = "repoprep.lines/v1"

// Every is the spacing of marks in bytes: a read seeks to the last mark at
// or before its first line and skips at most this much (plus one line).
const Every = 64 << 10

// Index is lines.json.
type Index struct {
	Schema string `json:"schema"`
	Every  int64  `json:"every"`
	Files  []File `json:"files"`
}

// File is one oversize file's marks.
type File struct {
	Path  string `json:"path"`
	Size  int64  `json:"size"`  // staged bytes; a different size means the file changed
	Lines int    `json:"lines"` // as files.json counts them
	// Marks are [line, offset] pairs, ascending: line (1-based) starts at
	// byte offset. The first is [1, 0].
	Marks [][2]int64 `json:"marks"`
}

// Scan reads a staged file once and returns its marks, size and line count
// (newlines, plus a last line without one).
func Scan(ctx context.Context, r io.Reader) (File, error) {
	f := File{Marks: [][2]int64{}}
	buf := make([]byte, 256<<10)
	var (
		off      int64 // offset of buf[0]
		lastMark = int64(-Every)
		last     = byte('\n')
	)
	for {
		if err := ctx.Err(); err != nil {
			return File{}, err
		}
		n, err := r.Read(buf)
		chunk := buf[:n]
		// A line starts at offset 0 and after every '\n' that is not the
		// last byte of the file.
		start := 0
		if last == '\n' && n > 0 && off >= lastMark+Every {
			f.Marks = append(f.Marks, [2]int64{int64(f.Lines) + 1, off})
			lastMark = off
		}
		for {
			i := bytes.IndexByte(chunk[start:], '\n')
			if i < 0 {
				break
			}
			f.Lines++
			start += i + 1
			// Mark the next line's start once Every bytes have passed.
			if next := off + int64(start); next >= lastMark+Every && start < n {
				f.Marks = append(f.Marks, [2]int64{int64(f.Lines) + 1, next})
				lastMark = next
			}
		}
		if n > 0 {
			last = chunk[n-1]
		}
		off += int64(n)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return File{}, err
		}
	}
	if off > 0 && last != '\n' {
		f.Lines++
	}
	f.Size = off
	return f, nil
}

// Encode writes ix as lines.json.
func (ix *Index) Encode(w io.Writer) error {
	ix.Schema, ix.Every = Schema, Every
	if ix.Files == nil {
		ix.Files = []File{}
	}
	enc := json.NewEncoder(w)
	return enc.Encode(ix)
}

// Parse reads lines.json and checks that every file's marks are usable: a
// damaged index must cost speed, never a wrong line.
func Parse(data []byte) (*Index, error) {
	var ix Index
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&ix); err != nil {
		return nil, fmt.Errorf("lines.json: %w", err)
	}
	if ix.Schema != Schema {
		return nil, fmt.Errorf("lines.json: schema %q, want %q", ix.Schema, Schema)
	}
	for _, f := range ix.Files {
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
