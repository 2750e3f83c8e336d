package tokens

import "unicode/utf8"

const (
	// counterBatchBytes is how much text a Counter gathers before it counts
	// up to the last cut.
	counterBatchBytes = 64 << 10
	// counterMaxPendingBytes bounds a batch with no cut at all (a minified
	// file): it is then counted up to its last newline, or else a rune
	// boundary, which may differ from the whole count by a token.
	counterMaxPendingBytes = 1 << 20
)

// Counter counts a text handed over in parts, in batches that end at cuts
// (see Cut), so its total is exactly Count of the whole text unless more
// than a mebibyte of it passes without a cut; memory stays near one batch
// whatever the text's size. The zero value is ready. Not safe for
// concurrent use.
type Counter struct {
	pending []byte
	n       int
}

// Write adds p to the text; it never fails.
func (c *Counter) Write(p []byte) (int, error) {
	c.pending = append(c.pending, p...)
	for len(c.pending) >= counterBatchBytes {
		cut := BatchEnd(c.pending, counterMaxPendingBytes)
		if cut == 0 {
			break // wait for a cut or for the cap
		}
		c.n += CountBytes(c.pending[:cut])
		c.pending = append(c.pending[:0], c.pending[cut:]...)
	}
	return len(p), nil
}

// Total counts what is pending and returns the count of everything
// written.
func (c *Counter) Total() int {
	c.n += CountBytes(c.pending)
	c.pending = c.pending[:0]
	return c.n
}

// BatchEnd is where a batch of streamed text ends: the last cut of b (the
// counts of the parts then add up exactly); without one, once b has grown
// past limit, its last newline or else a rune boundary (those counts may
// differ from the whole text's by a token per batch); otherwise 0: wait
// for more.
func BatchEnd(b []byte, limit int) int {
	if cut := Cut(b); cut > 0 {
		return cut
	}
	if len(b) < limit {
		return 0
	}
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] == '\n' {
			return i + 1
		}
	}
	cut := len(b)
	for cut > 0 && !utf8.RuneStart(b[cut-1]) {
		cut--
	}
	if cut > 0 {
		cut-- // drop the (possibly incomplete) last rune; it stays pending
	}
	if cut == 0 {
		return len(b)
	}
	return cut
}
