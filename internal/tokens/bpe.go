package tokens

import "sync"

// This file counts the tokens of one piece with byte-pair encoding as
// tiktoken runs it: start from single bytes and keep merging the adjacent
// pair whose concatenation is the lowest-ranked token, the leftmost one on a
// tie, until no pair is a token. tiktoken-go does that with map[string]int
// lookups, O(n^2) or O(n log n) per piece. This is the backtracking encoder
// of GitHub's rust-gems `bpe` crate, reworked for tiktoken's rule (any two
// adjacent parts that spell a token may merge, not only the pair that made
// it), in time linear in the piece; the rare piece that makes it retry too
// much is handed to a heap merge on ranks (merge.go), O(n log n).
//
// Two facts carry it (docs/tokens.md has the argument):
//
//  1. A sequence of tokens is the BPE encoding of its text exactly when each
//     token encodes to itself and each adjacent pair is compatible: BPE run
//     on the two tokens' bytes alone returns those two tokens. So the
//     encoding can be built left to right, checking only the last pair.
//  2. Whether two tokens a, b are compatible is decided by their merge trees
//     alone, without re-running BPE: while BPE works on a+b, the part next to
//     the boundary on the left walks up a's right spine and the one on the
//     right walks up b's left spine, each in rank order. A merge crosses the
//     boundary exactly when some pair of parts (x, y) that are alive at the
//     same time spells a token ranked below both of their next merges.
//     compatible walks those pairs from the top down, a handful of lookups.
//
// The encoder takes the longest token at the current position; if it is not
// compatible with the previous token it tries the next shorter prefix token,
// and when none is left it drops the previous token and retries its shorter
// prefixes. A bitset remembers the positions from which no encoding exists,
// so none is explored twice.

// compatible reports whether BPE run on the bytes of x then y returns the
// two tokens x, y, counting only merges of rank below limit (noToken for
// the whole vocabulary). x and y must be reachable.
//
// The parts beside the boundary are walked from the last merge back to the
// bytes. dx and dy are the ranks of the merges that end the current parts:
// the boundary pair (x, y), if it spells a token of rank c, merges first iff
// c < dx (x's merge is to the left, so it wins a tie) and c <= dy.
func (v *vocab) compatible(x, y, limit uint32) bool {
	dx, dy := limit, limit
	for {
		if c, ok := v.pair(x, y); ok && c < dx && c <= dy {
			return false
		}
		// Undo the later of the two parts' births. A single byte is there
		// from the start; equal ranks mean the same token on both sides,
		// and the right one was made after the left one.
		tx, ty := &v.toks[x], &v.toks[y]
		xLeaf, yLeaf := tx.len == 1, ty.len == 1
		switch {
		case xLeaf && yLeaf:
			return true
		case yLeaf || !xLeaf && x > y:
			dx, x = x, tx.right
		default:
			dy, y = y, ty.left
		}
	}
}

// longest returns the longest reachable token that s[p:] starts with, and
// the tag of s[p:] itself if the whole rest is a token (else 0).
func (v *vocab) longest(s string, p int) (tok, whole uint32) {
	tag := v.nodes[uint32(s[p])+1].tag
	best := tag - 1 // every byte is a reachable token
	if p+1 == len(s) {
		return best, tag
	}
	node := v.depth2[int(s[p])<<8|int(s[p+1])]
	end := min(len(s), p+maxTokenBytes)
	for i := p + 2; node != 0; i++ {
		tag = v.nodes[node].tag
		if tag != 0 && tag&unreachableBit == 0 {
			best = tag - 1
		}
		if i == end {
			if i == len(s) {
				return best, tag
			}
			break
		}
		node = v.child(node, s[i])
	}
	return best, 0
}

// encoder is the scratch space of one count; pooled, as Count is called
// from many goroutines.
type encoder struct {
	merge merger          // mergeCount's scratch space
	toks  []uint32        // the encoding so far
	dead  []uint64        // bit i: no encoding of s[i:] continues the current one
	memo  [1 << 12]uint64 // recent compatible answers: (x<<18|y)+1 << 1 | answer
	line  []byte          // CountLines' copy of a line
}

// compatible is vocab.compatible(x, y, noToken), memoized: the same pairs of
// short tokens recur, and each answer costs a few memory-bound lookups.
func (e *encoder) compatible(v *vocab, x, y uint32) bool {
	key := uint64(x)<<18 | uint64(y) + 1
	slot := &e.memo[hashKey(key, 64-12)]
	if *slot>>1 == key {
		return *slot&1 != 0
	}
	ok := v.compatible(x, y, noToken)
	*slot = key << 1
	if ok {
		*slot |= 1
	}
	return ok
}

var encoders = sync.Pool{New: func() any { return new(encoder) }}

// countBPE returns the number of tokens BPE encodes piece into, as
// tiktoken-go's Count does for a lone piece: a piece that is itself a token
// is one token even if merges could never make it.
func (v *vocab) countBPE(piece string, e *encoder) int {
	switch len(piece) {
	case 0, 1:
		return len(piece)
	case 2:
		if v.tag2[int(piece[0])<<8|int(piece[1])] != 0 {
			return 1
		}
		return 2
	case 3:
		// Not a token: at most one of the two pairs merges, and the result
		// can't merge with the third byte, or the piece would be a token.
		if v.lookup(piece) != 0 {
			return 1
		}
		if v.tag2[int(piece[0])<<8|int(piece[1])] != 0 || v.tag2[int(piece[1])<<8|int(piece[2])] != 0 {
			return 2
		}
		return 3
	}
	first, whole := v.longest(piece, 0)
	if whole != 0 {
		return 1
	}
	toks, ok := v.encode(piece, first, e)
	if !ok {
		return v.mergeCount(piece, e)
	}
	return len(toks)
}

// maxRetriesPerByte bounds the backtracking before encode gives up on an
// input and leaves it to mergeCount. Text retries well under one candidate
// per byte (0.13 on Chinese, 0.36 on base64); a run of '=' retries about 15.
const maxRetriesPerByte = 4

// encode returns the BPE encoding of s, in e.toks; first is the longest
// reachable token s starts with. It returns false, the encoding unknown, as
// soon as it has retried more than maxRetriesPerByte candidates for each
// byte it got through (plus a little slack for the first bytes).
func (v *vocab) encode(s string, first uint32, e *encoder) ([]uint32, bool) {
	words := len(s)/64 + 1
	if cap(e.dead) < words {
		e.dead = make([]uint64, words)
	}
	dead := e.dead[:words]
	clear(dead)
	toks := e.toks[:0]
	pos := 0
	next := first
	retries, reached := 0, 0 // reached: the furthest pos so far
	for pos < len(s) {
		tok := next
		for {
			end := pos + int(v.toks[tok].len)
			if dead[end/64]&(1<<(end%64)) == 0 &&
				(len(toks) == 0 || e.compatible(v, toks[len(toks)-1], tok)) {
				toks = append(toks, tok)
				pos = end
				reached = max(reached, pos)
				if pos < len(s) {
					next, _ = v.longest(s, pos)
				}
				break
			}
			if retries++; retries > maxRetriesPerByte*reached+256 {
				e.toks = toks // give up early, before the retries add up
				return nil, false
			}
			if shorter := v.toks[tok].nextPrefix; shorter != noToken {
				tok = shorter
				continue
			}
			// Nothing fits from pos after the current last token: pos is
			// a dead end; retry that token's shorter prefixes.
			dead[pos/64] |= 1 << (pos % 64)
			last := toks[len(toks)-1] // a single byte always fits at 0
			toks = toks[:len(toks)-1]
			pos -= int(v.toks[last].len)
			next = last
			break
		}
	}
	e.toks = toks
	return toks, true
}
