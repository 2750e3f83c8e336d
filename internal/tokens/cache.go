package tokens

import (
	"hash/maphash"
	"strings"
	"sync/atomic"
)

// pieceCache memoizes the BPE token count of short pieces. Source code repeats
// the same pieces (" err", "\n\t", " return") endlessly, so most pieces hit.
//
// Both tables are fixed arrays of slots, two per bucket, each one atomic
// word: lookups take no lock, and a store overwrites what the slot held, so
// the cache is bounded by its slot count and needs no eviction pass. A racing
// store just loses one memo, never a count. Safe for concurrent use.
//
//   - Pieces of up to 7 bytes, over 90% of the pieces in Go source, are packed
//     with their count into the slot itself (packShort), so a hit costs one
//     load and no pointer chasing.
//   - Longer pieces, up to maxCachedPieceBytes, point to an immutable entry.
type pieceCache struct {
	short []atomic.Uint64
	seed  maphash.Seed
	long  []atomic.Pointer[cacheEntry]
}

type cacheEntry struct {
	piece  string // cloned, so a cached piece never pins a whole file
	tokens int32
}

// maxShortPieceBytes is the longest piece packShort can pack.
const maxShortPieceBytes = 7

// newPieceCache returns a cache of 2^shortBits packed slots and 2^longBits
// entry slots.
func newPieceCache(shortBits, longBits uint) *pieceCache {
	return &pieceCache{
		short: make([]atomic.Uint64, 1<<shortBits),
		seed:  maphash.MakeSeed(),
		long:  make([]atomic.Pointer[cacheEntry], 1<<longBits),
	}
}

// packShort packs a piece of 1 to 7 bytes as its bytes in bits 0-55 and its
// length in bits 56-58. Bits 59-61 are left for the token count, which is at
// most the length; a zero word is an empty slot.
func packShort(piece string) uint64 {
	var w uint64
	for i := range len(piece) {
		w |= uint64(piece[i]) << (8 * i)
	}
	return w | uint64(len(piece))<<56
}

const countShift = 59

// shortBucket returns the first of key's two adjacent slots, which share a
// cache line.
func (c *pieceCache) shortBucket(key uint64) int {
	h := key * 0x9e3779b97f4a7c15 // Fibonacci hashing
	return int(h>>32) & (len(c.short) - 1) &^ 1
}

func (c *pieceCache) longBucket(piece string) (first, victim int) {
	h := maphash.String(c.seed, piece)
	first = int(h) & (len(c.long) - 1) &^ 1
	return first, first + int(h>>63)
}

func (c *pieceCache) get(piece string) (int, bool) {
	if len(piece) <= maxShortPieceBytes {
		key := packShort(piece)
		i := c.shortBucket(key)
		for _, w := range [2]uint64{c.short[i].Load(), c.short[i+1].Load()} {
			if w&(1<<countShift-1) == key {
				return int(w >> countShift), true
			}
		}
		return 0, false
	}
	i, _ := c.longBucket(piece)
	for j := i; j < i+2; j++ {
		if e := c.long[j].Load(); e != nil && e.piece == piece {
			return int(e.tokens), true
		}
	}
	return 0, false
}

func (c *pieceCache) put(piece string, tokens int) {
	if len(piece) <= maxShortPieceBytes {
		key := packShort(piece)
		i := c.shortBucket(key)
		switch {
		case c.short[i].Load() == 0:
		case c.short[i+1].Load() == 0:
			i++
		default:
			i += int(key>>3) & 1 // a victim that varies with the piece
		}
		c.short[i].Store(key | uint64(tokens)<<countShift)
		return
	}
	i, victim := c.longBucket(piece)
	e := &cacheEntry{piece: strings.Clone(piece), tokens: int32(tokens)}
	switch {
	case c.long[i].Load() == nil:
		c.long[i].Store(e)
	case c.long[i+1].Load() == nil:
		c.long[i+1].Store(e)
	default:
		c.long[victim].Store(e)
	}
}

// reset empties the cache; benchmarks use it to measure a cold start.
func (c *pieceCache) reset() {
	for i := range c.short {
		c.short[i].Store(0)
	}
	for i := range c.long {
		c.long[i].Store(nil)
	}
}
