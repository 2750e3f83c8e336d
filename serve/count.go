package serve

import (
	"hash/maphash"
	"sync"

	"github.com/repoprep/repoprep/internal/tokens"
)

// maxCachedCounts bounds the token-count memo: ~16k batches of 64 lines
// cover about a million lines of recently read text in well under 1 MB.
const maxCachedCounts = 1 << 14

// counter memoizes tokens.Count on batch texts. Counting o200k is the
// whole cost of a read (about 5 ms for 500 lines of code, where opening and
// reading the file costs microseconds), and agents re-read the same files,
// so a batch counted once is not counted again. Keys are content hashes:
// entries stay valid across snapshot swaps. A 64-bit hash plus the length
// makes a wrong count (two batches colliding) a 2^-64 event. Safe for
// concurrent use.
type counter struct {
	seed  maphash.Seed
	mu    sync.Mutex
	count map[countKey]int
}

type countKey struct {
	sum uint64
	n   int
}

func newCounter() *counter {
	return &counter{seed: maphash.MakeSeed(), count: make(map[countKey]int)}
}

// Count returns tokens.Count(s), from the memo when it can.
func (c *counter) Count(s string) int {
	if c == nil || len(s) < 256 { // short strings cost less to count than to hash and lock
		return tokens.Count(s)
	}
	k := countKey{maphash.String(c.seed, s), len(s)}
	c.mu.Lock()
	n, ok := c.count[k]
	c.mu.Unlock()
	if ok {
		return n
	}
	n = tokens.Count(s)
	c.mu.Lock()
	if len(c.count) >= maxCachedCounts {
		clear(c.count) // crude, but a full memo is rare and refills in one pass
	}
	c.count[k] = n
	c.mu.Unlock()
	return n
}
