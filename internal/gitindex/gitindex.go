// Package gitindex reads which paths a git index (.git/index) tracks,
// without running git: the scan keeps a tracked file that a .gitignore
// pattern matches, as git does, and git itself must never run on an
// untrusted tree (a hostile .git/config can make it execute programs, e.g.
// core.fsmonitor).
//
// It reads index versions 2, 3 and 4 (v4's path prefix compression), with
// SHA-1 or SHA-256 object names, and skips the optional extensions (those
// whose signature starts with 'A'..'Z'). An index whose meaning depends on
// a mandatory extension it does not know, a split index ("link") or a
// sparse one ("sdir"), is refused with ErrUnsupported, as git refuses
// mandatory extensions it does not understand: the caller falls back to
// treating nothing as tracked.
//
// The format is git's Documentation/gitformat-index.txt. A hand reader
// rather than go-git's plumbing/format/index: that decoder allocates a
// struct of about 150 bytes per entry (a hostile 256 MiB index of minimal
// entries would cost gigabytes, where Paths holds the names and 4 bytes
// each) and refuses the all-zero checksum git writes with index.skipHash
// (feature.manyFiles), which large repositories use.
package gitindex

import (
	"bufio"
	"bytes"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"io"
	"sort"
	"strings"
)

// MaxBytes is the largest index Read accepts: git's own index for a
// repository of a few million files. Anything larger is refused before a
// byte is read.
const MaxBytes = 256 << 20

// maxNameBytes bounds one path (git has no limit of its own; Linux's
// PATH_MAX is 4096, and the scan walks deeper trees relative to their
// parents, so allow more). It also bounds v4's prefix compression: a name
// is at most this long however many entries extend the previous one.
const maxNameBytes = 64 << 10

// maxTotalNameBytes bounds the names Paths holds: v4 compresses each path
// against the previous one, so an index can describe more name bytes than
// it holds (a real index of deep paths, a few times; a hostile one, up to
// maxNameBytes per 64-byte entry).
const maxTotalNameBytes = 2 * MaxBytes

var (
	// ErrTooLarge: the index is over MaxBytes, or its paths over
	// maxTotalNameBytes.
	ErrTooLarge = errors.New("git index too large")
	// ErrMalformed: the bytes are not an index (wrong signature, an entry
	// running past the end, paths out of order, a checksum that does not
	// match).
	ErrMalformed = errors.New("malformed git index")
	// ErrUnsupported: a version other than 2, 3 or 4, or a mandatory
	// extension (split index, sparse index) whose meaning Read does not
	// implement.
	ErrUnsupported = errors.New("unsupported git index")
)

// Paths is the set of paths an index tracks, sorted as git sorts them
// (byte order), each once whatever its merge stages. Its memory is the
// names' bytes and 4 bytes a path. Read-only after Read: safe for
// concurrent use.
type Paths struct {
	names []byte
	ends  []uint32 // path i is names[ends[i-1]:ends[i]] (from 0 for i == 0)
}

// Len is the number of tracked paths.
func (p *Paths) Len() int { return len(p.ends) }

// At is the i-th tracked path in byte order.
func (p *Paths) At(i int) string {
	start := uint32(0)
	if i > 0 {
		start = p.ends[i-1]
	}
	return string(p.names[start:p.ends[i]])
}

// at is At without the copy, for comparisons.
func (p *Paths) at(i int) []byte {
	start := uint32(0)
	if i > 0 {
		start = p.ends[i-1]
	}
	return p.names[start:p.ends[i]]
}

// search is the index of the first path >= key.
func (p *Paths) search(key string) int {
	return sort.Search(len(p.ends), func(i int) bool { return string(p.at(i)) >= key })
}

// Has reports whether path ('/'-separated, relative to the work tree, as
// git writes it) is tracked.
func (p *Paths) Has(path string) bool {
	if p == nil {
		return false
	}
	i := p.search(path)
	return i < len(p.ends) && string(p.at(i)) == path
}

// HasUnder reports whether any tracked path lies below the directory dir
// ('/'-separated, no trailing slash). Paths below a directory are
// contiguous in byte order, so it is one binary search.
func (p *Paths) HasUnder(dir string) bool {
	if p == nil {
		return false
	}
	prefix := dir + "/"
	i := p.search(prefix)
	return i < len(p.ends) && strings.HasPrefix(string(p.at(i)), prefix)
}

// Read reads the index of size bytes from r. Its cost is one pass over
// the bytes (two for a SHA-256 repository, whose object names are longer)
// and its memory the names it keeps.
func Read(r io.ReaderAt, size int64) (*Paths, error) {
	if size > MaxBytes {
		return nil, fmt.Errorf("%w: %d bytes, over %d", ErrTooLarge, size, MaxBytes)
	}
	p, err := read(r, size, sha1.Size, sha1.New)
	if err == nil || !errors.Is(err, ErrMalformed) {
		return p, err
	}
	// A SHA-256 repository's entries hold 32-byte object names: the
	// fields after them sit elsewhere, and a SHA-1 reading fails.
	if p2, err2 := read(r, size, sha256.Size, sha256.New); err2 == nil {
		return p2, nil
	}
	return nil, err
}

// reader is the index body (without the trailing checksum) with its hash
// and what is left to read.
type reader struct {
	br   *bufio.Reader
	left int64
}

func (rd *reader) full(buf []byte) error {
	if int64(len(buf)) > rd.left {
		return fmt.Errorf("%w: truncated", ErrMalformed)
	}
	if _, err := io.ReadFull(rd.br, buf); err != nil {
		return ioErr(err)
	}
	rd.left -= int64(len(buf))
	return nil
}

// cstring reads up to and including a NUL, returning what precedes it
// (valid until the next read).
func (rd *reader) cstring() ([]byte, error) {
	b, err := rd.br.ReadSlice(0)
	if err != nil {
		if errors.Is(err, bufio.ErrBufferFull) {
			return nil, fmt.Errorf("%w: a path over %d bytes", ErrMalformed, maxNameBytes)
		}
		return nil, ioErr(err)
	}
	if int64(len(b)) > rd.left {
		return nil, fmt.Errorf("%w: truncated", ErrMalformed)
	}
	rd.left -= int64(len(b))
	return b[:len(b)-1], nil
}

func (rd *reader) byte() (byte, error) {
	if rd.left < 1 {
		return 0, fmt.Errorf("%w: truncated", ErrMalformed)
	}
	c, err := rd.br.ReadByte()
	if err != nil {
		return 0, ioErr(err)
	}
	rd.left--
	return c, nil
}

func (rd *reader) skip(n int64) error {
	if n > rd.left {
		return fmt.Errorf("%w: truncated", ErrMalformed)
	}
	if _, err := rd.br.Discard(int(n)); err != nil {
		return ioErr(err)
	}
	rd.left -= n
	return nil
}

// ioErr reports a short read as a malformed index (the size said more)
// and passes any other error on.
func ioErr(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("%w: truncated", ErrMalformed)
	}
	return err
}

const (
	headerBytes  = 12
	statBytes    = 40 // ctime, mtime (seconds and nanoseconds), dev, ino, mode, uid, gid, size
	flagExtended = 0x4000
	nameMask     = 0x0fff
)

func read(r io.ReaderAt, size int64, hashLen int, newHash func() hash.Hash) (*Paths, error) {
	if size < headerBytes+int64(hashLen) {
		return nil, fmt.Errorf("%w: %d bytes", ErrMalformed, size)
	}
	body := size - int64(hashLen)
	h := newHash()
	rd := &reader{
		br:   bufio.NewReaderSize(io.TeeReader(io.NewSectionReader(r, 0, body), h), maxNameBytes+1),
		left: body,
	}
	var hdr [headerBytes]byte
	if err := rd.full(hdr[:]); err != nil {
		return nil, err
	}
	if string(hdr[:4]) != "DIRC" {
		return nil, fmt.Errorf("%w: signature %q", ErrMalformed, hdr[:4])
	}
	version := binary.BigEndian.Uint32(hdr[4:])
	if version < 2 || version > 4 {
		return nil, fmt.Errorf("%w: version %d", ErrUnsupported, version)
	}
	count := int64(binary.BigEndian.Uint32(hdr[8:]))
	fixed := statBytes + hashLen + 2 // then the flags' second half, then the path
	if count > body/int64(fixed+1) {
		return nil, fmt.Errorf("%w: %d entries in %d bytes", ErrMalformed, count, size)
	}
	p := &Paths{ends: make([]uint32, 0, count)}
	entry := make([]byte, fixed+2)
	var prev []byte    // the previous entry's path (v4 compresses against it)
	var scratch []byte // v2 and v3 paths, before they are kept
	unnamed := false
	for range count {
		if err := rd.full(entry[:fixed]); err != nil {
			return nil, err
		}
		flags := binary.BigEndian.Uint16(entry[fixed-2:])
		onDisk := fixed
		if flags&flagExtended != 0 {
			if version < 3 {
				return nil, fmt.Errorf("%w: extended flags in a version 2 index", ErrMalformed)
			}
			if err := rd.full(entry[fixed : fixed+2]); err != nil {
				return nil, err
			}
			onDisk += 2
		}
		var name []byte
		if version == 4 {
			strip, err := varint(rd)
			if err != nil {
				return nil, err
			}
			if strip > uint64(len(prev)) {
				return nil, fmt.Errorf("%w: strips %d bytes of a %d-byte path", ErrMalformed, strip, len(prev))
			}
			suffix, err := rd.cstring()
			if err != nil {
				return nil, err
			}
			keep := len(prev) - int(strip)
			if keep+len(suffix) > maxNameBytes {
				return nil, fmt.Errorf("%w: a path over %d bytes", ErrMalformed, maxNameBytes)
			}
			name = append(prev[:keep:keep], suffix...)
		} else {
			n := int(flags & nameMask)
			if n < nameMask {
				scratch = append(scratch[:0], make([]byte, n)...)
				name = scratch
				if err := rd.full(name); err != nil {
					return nil, err
				}
				// 1 to 8 NULs pad the entry to a multiple of 8 bytes.
				pad := (onDisk+n+8)&^7 - onDisk - n
				if err := rd.skip(int64(pad)); err != nil {
					return nil, err
				}
			} else { // 0xfff: the length did not fit; the path ends at its NUL
				s, err := rd.cstring()
				if err != nil {
					return nil, err
				}
				scratch = append(scratch[:0], s...)
				name = scratch
				pad := (onDisk+len(name)+8)&^7 - onDisk - len(name) - 1
				if err := rd.skip(int64(pad)); err != nil {
					return nil, err
				}
			}
		}
		if bytes.IndexByte(name, 0) >= 0 {
			return nil, fmt.Errorf("%w: a path holding NUL", ErrMalformed)
		}
		if len(name) == 0 {
			// A split index's entries that replace the shared index's
			// have no name: the "link" extension below refuses it.
			unnamed = true
			continue
		}
		switch c := bytes.Compare(name, prev); {
		case c < 0:
			return nil, fmt.Errorf("%w: %q after %q: paths out of order", ErrMalformed, name, prev)
		case c == 0:
			continue // another merge stage of the same path
		}
		if len(p.names)+len(name) > maxTotalNameBytes {
			return nil, fmt.Errorf("%w: paths over %d bytes", ErrTooLarge, maxTotalNameBytes)
		}
		p.names = append(p.names, name...)
		p.ends = append(p.ends, uint32(len(p.names)))
		prev = p.names[len(p.names)-len(name):]
	}
	// Extensions, up to the checksum: 4-byte signature, 4-byte length.
	for rd.left > 0 {
		var ext [8]byte
		if err := rd.full(ext[:]); err != nil {
			return nil, err
		}
		sig, n := ext[:4], int64(binary.BigEndian.Uint32(ext[4:]))
		if sig[0] < 'A' || sig[0] > 'Z' {
			return nil, fmt.Errorf("%w: mandatory extension %q (split or sparse index)", ErrUnsupported, sig)
		}
		if err := rd.skip(n); err != nil {
			return nil, err
		}
	}
	if unnamed {
		return nil, fmt.Errorf("%w: an entry without a path", ErrMalformed)
	}
	sum := make([]byte, hashLen)
	if _, err := r.ReadAt(sum, body); err != nil {
		return nil, ioErr(err)
	}
	// git writes zeros instead of the checksum under index.skipHash.
	if !bytes.Equal(sum, h.Sum(nil)) && !bytes.Equal(sum, make([]byte, hashLen)) {
		return nil, fmt.Errorf("%w: checksum mismatch", ErrMalformed)
	}
	return p, nil
}

// varint is git's offset encoding (varint.c): seven bits a byte, most
// significant first, each continuation adding one so no value has two
// encodings.
func varint(rd *reader) (uint64, error) {
	c, err := rd.byte()
	if err != nil {
		return 0, err
	}
	v := uint64(c & 0x7f)
	for c&0x80 != 0 {
		if c, err = rd.byte(); err != nil {
			return 0, err
		}
		if v > (1<<56)-2 {
			return 0, fmt.Errorf("%w: varint overflow", ErrMalformed)
		}
		v = (v+1)<<7 | uint64(c&0x7f)
	}
	return v, nil
}
