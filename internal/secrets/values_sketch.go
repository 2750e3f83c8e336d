package secrets

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"io"
	"slices"

	"github.com/zeebo/blake3"
)

// A refresh after an edit reads the changed files, not the files whose findings stand:
// it takes their previous findings and redacted copies, which is right only if no
// changed text holds a value the cross-file pass looks for (a value caught in one file is
// masked in every file). The values never leave the process, so a refresh state keeps of
// each its keyed digest (Digests) and a sketch: its length, and sketchBits bits of two
// polynomial hashes under a base derived from a secret key, of its first anchorBytes
// bytes and of the whole value. A SketchFinder rolls the anchor's hash over a text, and
// where it matches one, checks the whole value's hash and then its digest. Twenty bits
// of a hash whose base nobody outside the process knows say nothing about a value (every
// guess fits some base); the digest, keyed too, decides.

// sketchBits is how many bits of each hash a sketch keeps. A sketch's anchor is its
// value's first anchorBytes bytes (every value has as many: minValueBytes).
const sketchBits = 20

// Sketch returns, sorted, one number per value of the set: its length, then the top
// sketchBits bits of its anchor's hash, then those of its own hash, under the base
// key derives (key: 32 secret bytes, as for Digests). A SketchFinder made with the same
// key and the set's Digests finds the values in a text.
func (v *Values) Sketch(key []byte) ([]uint64, error) {
	base, err := sketchBase(key)
	if err != nil {
		return nil, err
	}
	v.mu.Lock()
	out := make([]uint64, 0, len(v.rules))
	for val := range v.rules {
		var x, anchor uint64
		for i := 0; i < len(val); i++ {
			x = sketchStep(x, base, val[i])
			if i == anchorBytes-1 {
				anchor = x
			}
		}
		out = append(out, uint64(len(val))<<(2*sketchBits)|top(anchor)<<sketchBits|top(x))
	}
	v.mu.Unlock()
	slices.Sort(out)
	return out, nil
}

// top is the sketch's bits of a hash.
func top(h uint64) uint64 { return h >> (61 - sketchBits) }

// sketchBase derives a hash base in [2^16, 2^61-1-2^16) from key.
func sketchBase(key []byte) (uint64, error) {
	if len(key) != 32 {
		return 0, errors.New("secrets: a sketch key is 32 bytes")
	}
	var b [8]byte
	blake3.DeriveKey("repoprep value sketch base v1", key, b[:])
	return 1<<16 + binary.LittleEndian.Uint64(b[:])%(mersenne61-1<<17), nil
}

// sketchStep is the hash of a string x hashes, followed by c.
func sketchStep(x, base uint64, c byte) uint64 {
	x = mulMod61(x, base) + uint64(c) + 1
	if x >= mersenne61 {
		x -= mersenne61
	}
	return x
}

// SketchFinder tells whether a text holds any value of a set it knows only by the set's
// Sketch and Digests. Not safe for concurrent use.
type SketchFinder struct {
	base     uint64
	longest  int
	powOf    map[int]uint64 // base^n for each value length n
	anchorPw uint64         // base^anchorBytes
	filter   *[1 << filterBits / 64]uint64
	byAnchor map[uint64][]sketched // by the anchor hash's top bits
	digest   *blake3.Hasher
	digests  map[[16]byte]bool
	prefix   []uint64 // a block's prefix hashes, kept between blocks
	buf      []byte   // Holds's read buffer, kept between calls
	checks   int      // candidates Holds may still check (crowdedChecks)
}

// crowdedChecks bounds the candidates Holds checks, a value whose anchor
// matches at a byte, to this many a byte read plus a base: a tree can
// plant thousands of caught values sharing their first bytes and a text
// repeating them. Past it Holds says yes, which costs a full read (the
// cross-file pass's own index drops such crowds), never a value missed.
const crowdedChecks = 8

// sketched is one value's length and the top bits of its hash.
type sketched struct {
	n   int
	top uint64
}

// filterBits: a finder checks the anchor hash at each byte of a text against a filter of
// 2^filterBits bits, taken from the top of the sketch's, so it stays in the first-level
// cache (8 KiB). With the 216 values of Go's src/, about one byte in 300 passes it.
const filterBits = 16

// ErrSketch: a sketch or digest a SketchFinder cannot use (not what Sketch and Digests
// write).
var ErrSketch = errors.New("secrets: malformed value sketch")

// NewSketchFinder makes a finder for the values whose Sketch (under sketchKey) and
// Digests (under digestKey, hex as Digests writes them) are given.
func NewSketchFinder(sketchKey, digestKey []byte, sketch []uint64, digests []string) (*SketchFinder, error) {
	base, err := sketchBase(sketchKey)
	if err != nil {
		return nil, err
	}
	h, err := blake3.NewKeyed(digestKey)
	if err != nil {
		return nil, err
	}
	f := &SketchFinder{base: base, powOf: map[int]uint64{}, filter: new([1 << filterBits / 64]uint64),
		byAnchor: make(map[uint64][]sketched, len(sketch)), digest: h, digests: make(map[[16]byte]bool, len(digests))}
	for _, d := range digests {
		var sum [16]byte
		if len(d) != hex.EncodedLen(len(sum)) {
			return nil, ErrSketch
		}
		if _, err := hex.Decode(sum[:], []byte(d)); err != nil {
			return nil, ErrSketch
		}
		f.digests[sum] = true
	}
	const mask = 1<<sketchBits - 1
	for _, s := range sketch {
		n, anchor, whole := int(s>>(2*sketchBits)), s>>sketchBits&mask, s&mask
		if n < minValueBytes || n > maxValueBytes {
			return nil, ErrSketch
		}
		f.longest = max(f.longest, n)
		f.powOf[n] = 0
		f.byAnchor[anchor] = append(f.byAnchor[anchor], sketched{n, whole})
		slot := anchor >> (sketchBits - filterBits)
		f.filter[slot/64] |= 1 << (slot % 64)
	}
	pow := uint64(1)
	for n := 1; n <= f.longest; n++ {
		pow = mulMod61(pow, base)
		if _, ok := f.powOf[n]; ok {
			f.powOf[n] = pow
		}
		if n == anchorBytes {
			f.anchorPw = pow
		}
	}
	return f, nil
}

// sketchBlockBytes is how much Holds reads at a time.
const sketchBlockBytes = 256 << 10

// Holds reports whether r holds any of the values: a substring as long as one, whose
// sketch matches and whose keyed digest is one of the set's. Occurrences count
// wherever they are, with no regard to what surrounds them (so it may say yes where the
// cross-file pass, which wants a short value to stand alone, masks nothing; never the
// other way), and so does a text where too many values' anchors match (crowdedChecks).
// It reads r a block at a time, in time linear in its size, and stops with ctx's error
// once ctx is done.
func (f *SketchFinder) Holds(ctx context.Context, r io.Reader) (bool, error) {
	if f.longest == 0 {
		return false, nil
	}
	f.checks = 1 << 16
	if f.buf == nil {
		f.buf = make([]byte, 0, f.longest-1+sketchBlockBytes)
	}
	buf := f.buf[:0]
	for {
		if err := ctx.Err(); err != nil {
			return false, err
		}
		kept := len(buf) // the bytes the last block ended with
		n, err := io.ReadFull(r, buf[kept:kept+sketchBlockBytes])
		buf = buf[:kept+n]
		f.checks += crowdedChecks * n
		if n > 0 && f.block(buf, kept) {
			return true, nil
		}
		switch {
		case err == io.EOF || err == io.ErrUnexpectedEOF:
			return false, nil
		case err != nil:
			return false, err
		}
		// Keep what a value ending in the next block may start in.
		keep := min(len(buf), f.longest-1)
		buf = buf[:copy(buf, buf[len(buf)-keep:])]
	}
}

// HoldsIn is Holds over b, a short text already in memory (a path, a link
// target), with no read buffer: a tree's thousands of names cost no
// block each.
func (f *SketchFinder) HoldsIn(b []byte) bool {
	if f.longest == 0 || len(b) == 0 {
		return false
	}
	f.checks = 1<<16 + crowdedChecks*len(b)
	return f.block(b, 0)
}

// block looks for a value that ends past buf[:fresh] (one that ends earlier was looked
// for in the block before).
func (f *SketchFinder) block(buf []byte, fresh int) bool {
	ps := slices.Grow(f.prefix[:0], len(buf)+1)
	var x uint64
	ps = append(ps, 0)
	for _, c := range buf {
		x = sketchStep(x, f.base, c)
		ps = append(ps, x)
	}
	f.prefix = ps
	sub := func(start, end int, pow uint64) uint64 {
		h := ps[end] + mersenne61 - mulMod61(ps[start], pow)
		if h >= mersenne61 {
			h -= mersenne61
		}
		return h
	}
	for start := 0; start+anchorBytes <= len(buf); start++ {
		anchor := top(sub(start, start+anchorBytes, f.anchorPw))
		slot := anchor >> (sketchBits - filterBits)
		if f.filter[slot/64]&(1<<(slot%64)) == 0 {
			continue
		}
		vs := f.byAnchor[anchor]
		if f.checks -= len(vs); f.checks < 0 {
			return true // crowded: say yes
		}
		for _, v := range vs {
			end := start + v.n
			if end > fresh && end <= len(buf) && top(sub(start, end, f.powOf[v.n])) == v.top && f.known(buf[start:end]) {
				return true
			}
		}
	}
	return false
}

// known reports whether v's keyed digest is one of the set's.
func (f *SketchFinder) known(v []byte) bool {
	d := f.digest.Clone()
	d.Write(v)
	var sum [16]byte
	d.Digest().Read(sum[:])
	return f.digests[sum]
}
