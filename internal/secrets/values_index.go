package secrets

import (
	"context"
	"encoding/binary"
	"math/bits"
	"math/rand/v2"
	"slices"
)

// anchorIndex is how the cross-file pass finds its values: each value is indexed by one
// 8-byte window of its own (its anchor, at a known offset), and the walk reads the 8
// bytes at every position of a content as one word, tests a bitmap of the anchors'
// hashes, and only where that answers yes looks the word up in an open-addressing table
// and checks the values anchored there against the bytes around. Its memory is a few
// words per value (against 2 KiB per byte of every value for the trie it replaced, which
// took 16.9 s and 1.0 GB for a 400 KB key block), and a walk costs at most a bounded
// number of checks per byte whatever the values are:
//
//   - A value's anchor is a window no other value uses, where it has one: up to
//     maxAnchorTries windows spread over it are tried first, then all of them. So the
//     JWTs of a tree (which share their first 36 bytes) or the RSA keys (which share the
//     head of their first line) are each anchored on bytes of their own, and among
//     windows of its own a value takes the most varied ("AAAAAAAA" is common in key
//     bodies).
//   - At most maxAnchorChain values share an anchor. A value all of whose windows are
//     taken that often is made of a few repeated 8-byte words (a run of one character
//     of many lengths); it is masked where caught and not looked for elsewhere.
//   - A check compares bytes until a walk has compared four times its buffer's length,
//     then compares hashes (valueHasher) in constant time: a run of one character that
//     a long value matches at every position costs no more than any other text.
type anchorIndex struct {
	filter  []uint64 // bit hash>>fshift is set for every anchor
	fshift  uint
	slots   []anchorSlot // open addressing, at hash>>tshift and on
	tshift  uint
	entries []anchorEntry
	dropped int // values not indexed (maxAnchorChain)
}

// anchorBytes is the anchor's length: one little-endian word.
const anchorBytes = 8

const (
	// maxAnchorTries is how many windows spread over a value are tried as its anchor
	// before all of them are.
	maxAnchorTries = 8
	// maxAnchorChain is the most values that share one anchor.
	maxAnchorChain = 8
)

// anchorMul is the multiplier of the anchor hash (2^64 / the golden ratio): the high
// bits of the product depend on every byte of the word.
const anchorMul = 0x9E3779B97F4A7C15

type anchorSlot struct {
	key  uint64 // the anchor's 8 bytes
	head int32  // its first entry + 1; 0 for an empty slot
	n    int32  // its entries
}

// anchorEntry is one value anchored at an anchor: the value's index, the anchor's
// offset in it, and the next entry with the same anchor (+ 1; 0 ends the chain).
type anchorEntry struct {
	value, off, next int32
}

// build indexes values (each at least anchorBytes long), in their order; a value left
// out (maxAnchorChain; counted in dropped) is one that shares its windows with values
// before it, so a caller that wants the same index every run gives the values in the
// same order. It checks ctx every few thousand values.
func (ix *anchorIndex) build(ctx context.Context, values []string) error {
	*ix = anchorIndex{}
	// The table: at most half full, whatever anchors the values get.
	tbits := max(4, bits.Len(uint(2*len(values))))
	ix.slots = make([]anchorSlot, 1<<tbits)
	ix.tshift = uint(64 - tbits)
	ix.entries = make([]anchorEntry, 0, len(values))
	anchors := 0
	for i, v := range values {
		if i%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if len(v) < anchorBytes {
			ix.dropped++ // never added (minValueBytes); nothing to anchor
			continue
		}
		s, off := ix.pick(v)
		if s.n >= maxAnchorChain {
			ix.dropped++
			continue
		}
		if s.head == 0 {
			anchors++
			s.key = binary.LittleEndian.Uint64([]byte(v[off : off+anchorBytes]))
		}
		ix.entries = append(ix.entries, anchorEntry{value: int32(i), off: int32(off), next: s.head})
		s.head = int32(len(ix.entries))
		s.n++
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	// The bitmap: 32 bits an anchor (a position that is no anchor passes it once in 32
	// or less), at least 8 Kbit, at most 64 Mbit (8 MB, for two million anchors).
	fbits := max(13, min(26, bits.Len(uint(32*anchors))))
	ix.filter = make([]uint64, 1<<fbits/64)
	ix.fshift = uint(64 - fbits)
	for i := range ix.slots {
		if s := &ix.slots[i]; s.head != 0 {
			f := s.key * anchorMul >> ix.fshift
			ix.filter[f/64] |= 1 << (f % 64)
		}
	}
	return nil
}

// pick chooses v's anchor: the slot of its window with the fewest values anchored there,
// the most varied on a tie, and the window's offset. The spread windows are tried first;
// a value none of them is free for tries every window.
func (ix *anchorIndex) pick(v string) (*anchorSlot, int) {
	var best *anchorSlot
	bestOff, bestDistinct := 0, 0
	try := func(off int) bool {
		key := binary.LittleEndian.Uint64([]byte(v[off : off+anchorBytes]))
		s := ix.slot(key, key*anchorMul)
		d := distinctBytes(key)
		if best == nil || s.n < best.n || s.n == best.n && d > bestDistinct {
			best, bestOff, bestDistinct = s, off, d
		}
		return s.n == 0 && d >= 6 // its own, and varied enough: a random line's first window
	}
	last := len(v) - anchorBytes
	tries := min(last+1, maxAnchorTries)
	for k := range tries {
		off := 0
		if tries > 1 {
			off = k * last / (tries - 1)
		}
		if try(off) {
			return best, bestOff
		}
	}
	if best.n > 0 && last+1 > tries {
		for off := 0; off <= last && best.n > 0; off++ {
			try(off)
		}
	}
	return best, bestOff
}

// slot returns key's slot, whose hash is h: where it is, or the empty one where it
// would go (whose key the caller sets when it fills it).
func (ix *anchorIndex) slot(key, h uint64) *anchorSlot {
	mask := len(ix.slots) - 1
	for i := int(h >> ix.tshift); ; i = (i + 1) & mask {
		if s := &ix.slots[i]; s.head == 0 || s.key == key {
			return s
		}
	}
}

// distinctBytes counts the distinct bytes of an anchor.
func distinctBytes(key uint64) int {
	var seen [4]uint64
	n := 0
	for range anchorBytes {
		c := byte(key)
		if seen[c/64]&(1<<(c%64)) == 0 {
			seen[c/64] |= 1 << (c % 64)
			n++
		}
		key >>= 8
	}
	return n
}

// walk calls fn for every entry anchored at each position i of buf from from to to
// whose 8 bytes are its anchor.
func (ix *anchorIndex) walk(buf []byte, from, to int, fn func(i int, e *anchorEntry)) {
	if len(ix.entries) == 0 {
		return
	}
	filter, fshift := ix.filter, ix.fshift
	to = min(to, len(buf)-anchorBytes+1)
	for i := from; i < to; i++ {
		key := binary.LittleEndian.Uint64(buf[i : i+anchorBytes])
		h := key * anchorMul
		if f := h >> fshift; filter[f/64]&(1<<(f%64)) == 0 {
			continue
		}
		for e := ix.slot(key, h).head; e != 0; e = ix.entries[e-1].next {
			fn(i, &ix.entries[e-1])
		}
	}
}

// valueHasher is a polynomial hash modulo the prime 2^61-1 with a base chosen at random
// for each matcher: the hash of any substring of a buffer is one multiplication from the
// buffer's prefix hashes, so a walk that has compared too many bytes checks each
// candidate in constant time. Two different strings of n bytes have the same hash with
// probability under n/2^61 (the base is random and never leaves the process), and then
// the difference is that some bytes are masked that need not be.
type valueHasher struct {
	base   uint64
	pow    []uint64 // base^k, k up to the longest value
	values []uint64 // each value's hash
}

const mersenne61 = 1<<61 - 1

func newValueHasher(values []string, maxLen int) *valueHasher {
	h := &valueHasher{base: 1<<16 + rand.Uint64N(mersenne61-1<<17), pow: make([]uint64, maxLen+1)}
	h.pow[0] = 1
	for k := 1; k <= maxLen; k++ {
		h.pow[k] = mulMod61(h.pow[k-1], h.base)
	}
	h.values = make([]uint64, len(values))
	for i, v := range values {
		var x uint64
		for j := 0; j < len(v); j++ {
			x = h.step(x, v[j])
		}
		h.values[i] = x
	}
	return h
}

// step is the hash of a string x hashes, followed by c.
func (h *valueHasher) step(x uint64, c byte) uint64 {
	x = mulMod61(x, h.base) + uint64(c) + 1
	if x >= mersenne61 {
		x -= mersenne61
	}
	return x
}

// prefixes appends to ps (reset) the hash of every prefix of buf.
func (h *valueHasher) prefixes(ps []uint64, buf []byte) []uint64 {
	ps = slices.Grow(ps[:0], len(buf)+1)
	var x uint64
	ps = append(ps, 0)
	for _, c := range buf {
		x = h.step(x, c)
		ps = append(ps, x)
	}
	return ps
}

// substring is the hash of buf[start:end], from buf's prefixes ps.
func (h *valueHasher) substring(ps []uint64, start, end int) uint64 {
	x := ps[end] + mersenne61 - mulMod61(ps[start], h.pow[end-start])
	if x >= mersenne61 {
		x -= mersenne61
	}
	return x
}

// mulMod61 is a*b mod 2^61-1, for a, b under 2^61.
func mulMod61(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	x := lo&mersenne61 + (lo>>61 | hi<<3)
	if x >= mersenne61 {
		x -= mersenne61
	}
	return x
}
