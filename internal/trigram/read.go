package trigram

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"regexp/syntax"
	"slices"

	"github.com/google/codesearch/index"
)

// ErrDamaged means the index file is not one Build wrote, or was changed
// since: the caller searches without it.
var ErrDamaged = errors.New("search index damaged")

// Index is a loaded search index. It is read-only and safe for concurrent
// use; queries never fail, they fall back to "every file".
type Index struct {
	contents  [DigestSize]byte // the content digest (Digest)
	paths     []string
	sizes     []int64
	table     []entry // ascending by trigram
	post      []byte
	filesOnly bool // ParseFiles: no table, every query answers "every file"
	// The table and postings sections as the file holds them, checked by
	// the checksum only (ParseFiles) or entry by entry too (Parse): an
	// update walks them as it merges (tableCursor), without the table.
	rawTable, rawPost []byte
	ntri              uint64 // the footer's trigram count
	nfiles            uint64
}

type entry struct {
	tri   uint32
	count uint32
	off   uint32 // into post
	n     uint32 // bytes
}

// Parse checks data (a whole index file: its checksum, then every offset)
// and loads it. Any inconsistency is ErrDamaged, never a panic.
func Parse(data []byte) (ix *Index, err error) {
	return parse(data, true)
}

// ParseFiles is Parse without the trigram table: the checksum, the section
// offsets and the file list are checked, and the Index it returns answers
// Paths and Size only, and serves as UpdateWith's previous index (which
// checks each table entry as it reads it). A refresh that copies the
// previous index whole needs no more (the checksum covers the rest), and
// one that updates it need not decode a table it mostly copies.
func ParseFiles(data []byte) (*Index, error) {
	return parse(data, false)
}

func damaged(what string) error { return fmt.Errorf("%w: %s", ErrDamaged, what) }

func parse(data []byte, table bool) (ix *Index, err error) {
	if !framed(data) {
		return nil, damaged("not a repoprep trigram index v2")
	}
	foot := data[len(data)-footerSize:]
	u := func(i int) uint64 { return binary.BigEndian.Uint64(foot[8*i:]) }
	body := data[:len(data)-footerSize+32]
	if uint64(crc32.ChecksumIEEE(body)) != u(4) {
		return nil, damaged("checksum mismatch")
	}
	end := uint64(len(data) - footerSize)
	filesOff, postOff, tableOff, ntri := u(0), u(1), u(2), u(3)
	if !(uint64(headerSize) == filesOff && filesOff <= postOff && postOff <= tableOff && tableOff <= end) || end >= 1<<32 {
		return nil, damaged("bad section offsets")
	}
	ix = &Index{post: data[postOff:tableOff], rawPost: data[postOff:tableOff], rawTable: data[tableOff:end], ntri: ntri}
	copy(ix.contents[:], data[len(magic):headerSize])

	r := reader{b: data[filesOff:postOff]}
	nfiles := r.uvarint()
	if nfiles > uint64(len(r.b)) {
		return nil, damaged("bad file count")
	}
	for range nfiles {
		n := r.uvarint()
		p := r.bytes(n)
		size := r.uvarint()
		if r.bad {
			return nil, damaged("file list")
		}
		ix.paths = append(ix.paths, string(p))
		ix.sizes = append(ix.sizes, int64(size))
	}
	if r.bad || len(r.b) != 0 {
		return nil, damaged("file list")
	}
	ix.nfiles = nfiles
	if !table {
		ix.post, ix.filesOnly = nil, true
		return ix, nil
	}

	r = reader{b: data[tableOff:end]}
	if ntri > uint64(len(r.b)) {
		return nil, damaged("bad trigram count")
	}
	ix.table = make([]entry, 0, ntri)
	off := uint64(0)
	for i := range ntri {
		t := r.bytes(3)
		count, n := r.uvarint(), r.uvarint()
		if r.bad || count == 0 || count > nfiles || n < count || off+n > uint64(len(ix.post)) {
			return nil, damaged("trigram table")
		}
		tri := uint32(t[0])<<16 | uint32(t[1])<<8 | uint32(t[2])
		if i > 0 && tri <= ix.table[i-1].tri {
			return nil, damaged("trigram table out of order")
		}
		ix.table = append(ix.table, entry{tri: tri, count: uint32(count), off: uint32(off), n: uint32(n)})
		off += n
	}
	if r.bad || len(r.b) != 0 || off != uint64(len(ix.post)) {
		return nil, damaged("trigram table")
	}
	return ix, nil
}

type reader struct {
	b   []byte
	bad bool
}

func (r *reader) uvarint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.bad = true
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) bytes(n uint64) []byte {
	if r.bad || n > uint64(len(r.b)) {
		r.bad = true
		return nil
	}
	p := r.b[:n]
	r.b = r.b[n:]
	return p
}

// Paths lists the indexed files by id.
func (ix *Index) Paths() []string { return ix.paths }

// Size is file id's size in bytes when it was indexed.
func (ix *Index) Size(id int) int64 { return ix.sizes[id] }

// Candidates returns the ids, ascending, of the files that can hold a match
// of re (parsed with syntax.Perl, as regexp.Compile does), or all=true when
// the index cannot narrow it down (a pattern with no required trigram, such
// as `\pL+`, or a posting list that does not decode).
func (ix *Index) Candidates(re *syntax.Regexp) (ids []uint32, all bool) {
	defer func() {
		if recover() != nil { // the planner is third-party code: a bug there costs speed, not the answer
			ids, all = nil, true
		}
	}()
	if ix.filesOnly {
		return nil, true
	}
	q := index.RegexpQuery(re)
	ids, all, ok := ix.eval(q)
	if !ok {
		return nil, true
	}
	return ids, all
}

// eval runs a codesearch query over the posting lists. A nil ids with
// all=false is "no file".
func (ix *Index) eval(q *index.Query) (ids []uint32, all, ok bool) {
	switch q.Op {
	case index.QAll:
		return nil, true, true
	case index.QNone:
		return nil, false, true
	case index.QAnd:
		all = true
		for _, t := range q.Trigram {
			l, ok := ix.list(t)
			if !ok {
				return nil, false, false
			}
			ids, all = and(ids, all, l), false
			if len(ids) == 0 {
				return nil, false, true
			}
		}
		for _, sub := range q.Sub {
			s, sAll, ok := ix.eval(sub)
			if !ok {
				return nil, false, false
			}
			if sAll {
				continue
			}
			ids, all = and(ids, all, s), false
			if len(ids) == 0 {
				return nil, false, true
			}
		}
		return ids, all, true
	case index.QOr:
		for _, t := range q.Trigram {
			l, ok := ix.list(t)
			if !ok {
				return nil, false, false
			}
			ids = or(ids, l)
		}
		for _, sub := range q.Sub {
			s, sAll, ok := ix.eval(sub)
			if !ok {
				return nil, false, false
			}
			if sAll {
				return nil, true, true
			}
			ids = or(ids, s)
		}
		return ids, false, true
	}
	return nil, false, false
}

// list decodes one trigram's posting list; a trigram not in the index has
// an empty one.
func (ix *Index) list(t string) ([]uint32, bool) {
	if len(t) != 3 {
		return nil, false
	}
	tri := uint32(t[0])<<16 | uint32(t[1])<<8 | uint32(t[2])
	i, found := slices.BinarySearchFunc(ix.table, tri, func(e entry, t uint32) int { return int(e.tri) - int(t) })
	if !found {
		return nil, true
	}
	e := ix.table[i]
	data := ix.post[e.off : e.off+e.n]
	out := make([]uint32, 0, e.count)
	id := int64(-1)
	for len(data) > 0 {
		d, n := binary.Uvarint(data)
		if n <= 0 || d == 0 {
			return nil, false
		}
		data = data[n:]
		id += int64(d)
		if id >= int64(len(ix.paths)) {
			return nil, false
		}
		out = append(out, uint32(id))
	}
	return out, true
}

// and intersects two ascending lists; all=true means a is "every file".
func and(a []uint32, all bool, b []uint32) []uint32 {
	if all {
		return b
	}
	out := a[:0:0]
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			out = append(out, a[i])
			i++
			j++
		}
	}
	return out
}

// or merges two ascending lists.
func or(a, b []uint32) []uint32 {
	out := make([]uint32, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] < b[j]:
			out = append(out, a[i])
			i++
		case a[i] > b[j]:
			out = append(out, b[j])
			j++
		default:
			out = append(out, a[i])
			i++
			j++
		}
	}
	out = append(out, a[i:]...)
	return append(out, b[j:]...)
}
