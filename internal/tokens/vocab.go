package tokens

import (
	"fmt"
	"math/bits"
	"sync"
)

// This file builds, once per process, the tables the BPE step (bpe.go) runs
// on. They are derived from the o200k_base ranks tiktoken-go embeds, read
// through the codec's Decode, so there is one copy of the encoding in the
// source tree and no data file to keep in step with it.
//
// The tables, about 20 MB in all (the codec's own map is about 25 MB more):
//
//   - a trie of every token's bytes, for the longest token at a position
//     (6.7 MB; 421,661 nodes, breadth first, plus a 256 KiB table that jumps
//     straight to depth two, and label bitmaps for the 3,082 nodes with
//     more than 8 children);
//   - per token (3.2 MB): its length, first bytes, split (the two tokens
//     whose merge made it: the last merge when BPE encodes the token's own
//     bytes) and the longest shorter token that is a prefix of it;
//   - a pair table mapping (x, y) to the rank of the token spelled x+y, for
//     all 446,189 such pairs: the merges BPE may make across a token
//     boundary (8 MiB, behind a 1 MiB filter), and a 256 KiB table of the
//     two-byte tokens.
//
// Building them takes about 0.2 s of one core, once per process.

// numTokens is the number of ordinary o200k_base tokens, ranks 0..199997.
// The two special tokens are never produced by Count (the codec does not
// match them in text either).
const numTokens = 199998

// maxTokenBytes is the length of the longest o200k_base token.
const maxTokenBytes = 128

// noToken marks a missing token in the per-token tables.
const noToken = ^uint32(0)

// Trie node token flags: a node's tag holds 0 for "no token ends here", else
// the token's rank + 1, with unreachableBit set if BPE can never produce the
// token from smaller pieces (it is still one token when it is a whole piece).
const unreachableBit = 1 << 31

// trieNode is one node of the token trie. The fields a step reads sit
// together: finding a child scans the children's labels, which are
// consecutive nodes, and then reads that child's tag from the same place.
type trieNode struct {
	first  uint32 // the first child; the children are first..first+kids-1, by label
	tag    uint32 // the token spelled by the path to here; see unreachableBit
	bitmap uint32 // with more than maxScanKids children: index in vocab.bitmaps
	kids   uint16
	label  byte // the byte on the edge into this node
}

// maxScanKids is the most children a step scans; above it a node has a
// bitmap of its labels, and a child's index is a popcount.
const maxScanKids = 8

// tokenInfo is what the encoder needs of one token, in one place.
type tokenInfo struct {
	left, right uint32  // its split; for a single byte, the token itself twice
	nextPrefix  uint32  // the longest reachable token that is a proper prefix, or noToken
	len         uint8   // in bytes
	head        [2]byte // its first two bytes (one for a single byte)
}

type vocab struct {
	// The trie, numbered breadth first so that a node's children are
	// consecutive nodes sorted by label. Node 0 is the root; its children
	// are nodes 1 to 256, one per byte value.
	nodes   []trieNode
	bitmaps [][4]uint64 // the labels of each node with many children
	depth2  []uint32    // the node of each two-byte prefix, by s[0]<<8|s[1]; 0 if none

	toks []tokenInfo // by rank
	tag2 []uint32    // the tag of each two-byte token, by s[0]<<8|s[1]

	pairs     []uint64 // ((x<<18|y)+1)<<20 | rank of the token spelled x+y
	pairBloom []uint64 // bit hash(x, y) set for every pair in pairs: most lookups miss, and this is 8x smaller
	pairSh    uint
	reachable int // tokens BPE can make, for the tests

	mapped [][]byte // the memory of the tables above, from offHeap
}

// alloc returns n zeroed Ts from offHeap, noting the mapping in v.
func alloc[T any](v *vocab, n int) []T {
	s, mem := offHeap[T](n)
	if mem != nil {
		v.mapped = append(v.mapped, mem)
	}
	return s
}

// release unmaps v's tables; only the benchmarks that build many use it.
func (v *vocab) release() {
	for _, mem := range v.mapped {
		unmap(mem)
	}
	v.mapped = nil
}

// theVocab is built on first use.
var theVocab = sync.OnceValue(func() *vocab {
	v, err := buildVocab(func(rank int) (string, error) {
		return codec().Decode([]uint{uint(rank)})
	})
	if err != nil {
		// The encoding is embedded; failing here means a broken build.
		panic("tokens: " + err.Error())
	}
	return v
})

func hashKey(k uint64, shift uint) uint64 { return (k * 0x9e3779b97f4a7c15) >> shift }

// child returns the trie node below node along byte b, or 0 if none.
func (v *vocab) child(node uint32, b byte) uint32 {
	n := &v.nodes[node]
	if n.kids <= maxScanKids {
		for i := n.first; i < n.first+uint32(n.kids); i++ {
			if v.nodes[i].label == b {
				return i
			}
		}
		return 0
	}
	bm := &v.bitmaps[n.bitmap]
	w, bit := b/64, uint64(1)<<(b%64)
	if bm[w]&bit == 0 {
		return 0
	}
	i := n.first + uint32(bits.OnesCount64(bm[w]&(bit-1)))
	for j := range w {
		i += uint32(bits.OnesCount64(bm[j]))
	}
	return i
}

// pair returns the rank of the token spelled x+y, if there is one.
func (v *vocab) pair(x, y uint32) (uint32, bool) {
	// Most pairs the encoder asks about are of single bytes and two-byte
	// tokens: answer those from the small tables and the trie's top.
	tx, ty := &v.toks[x], &v.toks[y]
	switch int(tx.len) + int(ty.len) {
	case 2:
		t := v.tag2[int(tx.head[0])<<8|int(ty.head[0])]
		return t - 1, t != 0
	case 3:
		var node uint32
		if tx.len == 1 {
			node = v.depth2[int(tx.head[0])<<8|int(ty.head[0])]
			if node != 0 {
				node = v.child(node, ty.head[1])
			}
		} else {
			node = v.depth2[int(tx.head[0])<<8|int(tx.head[1])]
			if node != 0 {
				node = v.child(node, ty.head[0])
			}
		}
		if node == 0 || v.nodes[node].tag == 0 {
			return 0, false
		}
		return (v.nodes[node].tag - 1) &^ unreachableBit, true
	}
	key := uint64(x)<<18 | uint64(y) + 1
	h := hashKey(key, v.pairSh-pairBloomExtraBits)
	if v.pairBloom[h/64]&(1<<(h%64)) == 0 {
		return 0, false
	}
	mask := uint64(len(v.pairs) - 1)
	for i := h >> pairBloomExtraBits; ; i = (i + 1) & mask {
		e := v.pairs[i]
		if e>>20 == key {
			return uint32(e & (1<<20 - 1)), true
		}
		if e == 0 {
			return 0, false
		}
	}
}

// lookup returns the node tag (see trieNode) of the token spelled s, or 0.
func (v *vocab) lookup(s string) uint32 {
	switch len(s) {
	case 0:
		return 0
	case 1:
		return v.nodes[uint32(s[0])+1].tag
	case 2:
		return v.tag2[int(s[0])<<8|int(s[1])]
	}
	node := v.depth2[int(s[0])<<8|int(s[1])]
	for i := 2; i < len(s) && node != 0; i++ {
		node = v.child(node, s[i])
	}
	if node == 0 {
		return 0
	}
	return v.nodes[node].tag
}

// pairBloomExtraBits sizes the pair filter: 2^3 bits per pair-table slot,
// 8 Mbit (1 MiB) in all, so about 5% of the pairs that are not tokens get
// past it to the table.
const pairBloomExtraBits = 3

// buildVocab builds the tables from the token of each rank.
func buildVocab(tokenOf func(rank int) (string, error)) (*vocab, error) {
	toks := make([]string, numTokens)
	maxNodes := 1 // the root; each byte of a token adds at most one node
	for r := range toks {
		s, err := tokenOf(r)
		if err != nil {
			return nil, fmt.Errorf("o200k_base rank %d: %w", r, err)
		}
		if s == "" || len(s) > maxTokenBytes {
			return nil, fmt.Errorf("o200k_base rank %d: token of %d bytes", r, len(s))
		}
		toks[r] = s
		maxNodes += len(s)
	}
	v := &vocab{}
	v.toks = alloc[tokenInfo](v, numTokens)
	v.tag2 = alloc[uint32](v, 1<<16)

	// The trie, breadth first: a node is the run of tokens that start with
	// its path, and its children split that run by the next byte (a counting
	// sort on that byte, so the runs end up in byte order).
	order := make([]uint32, numTokens)
	for r := range order {
		order[r] = uint32(r)
	}
	scratch := make([]uint32, numTokens)
	type span struct{ lo, hi, depth, parent int32 }
	queue := make([]span, 1, 1<<19) // queue[n] is node n
	queue[0] = span{0, numTokens, 0, -1}
	// near[n] is the token of node n's path or of its nearest ancestor that
	// has one: a token's nextPrefix is near[parent], without a walk.
	near := make([]uint32, 1, 1<<19)
	near[0] = noToken
	v.nodes = alloc[trieNode](v, maxNodes)[:1]
	for n := 0; n < len(queue); n++ {
		sp := queue[n]
		tag := uint32(0)
		run := order[sp.lo:sp.hi]
		for i, r := range run {
			if len(toks[r]) == int(sp.depth) { // the node's own token: move it out
				if tag != 0 {
					return nil, fmt.Errorf("o200k_base: ranks %d and %d spell the same token", tag-1, r)
				}
				tag = r + 1
				v.toks[r].len = uint8(sp.depth)
				run[0], run[i] = run[i], run[0]
			}
		}
		if tag != 0 {
			sp.lo++
			run = run[1:]
		}
		v.nodes[n].tag, v.nodes[n].first = tag, uint32(len(queue))
		if n > 0 {
			near = append(near, near[sp.parent])
			if tag != 0 {
				v.toks[tag-1].nextPrefix = near[sp.parent]
				near[n] = tag - 1
			}
		}
		byteOf := func(r uint32) byte { return toks[r][sp.depth] }
		if len(run) <= 64 {
			// Few tokens (most nodes): an insertion sort beats 256 counters.
			for i := 1; i < len(run); i++ {
				for j := i; j > 0 && byteOf(run[j]) < byteOf(run[j-1]); j-- {
					run[j], run[j-1] = run[j-1], run[j]
				}
			}
		} else {
			var counts [256]int // tokens with byte b at depth, then where b's run goes
			for _, r := range run {
				counts[byteOf(r)]++
			}
			pos := 0
			for b, c := range counts {
				counts[b] = pos
				pos += c
			}
			for _, r := range run {
				b := byteOf(r)
				scratch[counts[b]] = r
				counts[b]++
			}
			copy(run, scratch[:len(run)])
		}
		for i := 0; i < len(run); {
			j := i + 1
			for j < len(run) && byteOf(run[j]) == byteOf(run[i]) {
				j++
			}
			queue = append(queue, span{sp.lo + int32(i), sp.lo + int32(j), sp.depth + 1, int32(n)})
			v.nodes = append(v.nodes, trieNode{label: byteOf(run[i])})
			v.nodes[n].kids++
			i = j
		}
	}
	for n := range v.nodes {
		if nd := &v.nodes[n]; nd.kids > maxScanKids {
			var bm [4]uint64
			for c := nd.first; c < nd.first+uint32(nd.kids); c++ {
				l := v.nodes[c].label
				bm[l/64] |= 1 << (l % 64)
			}
			nd.bitmap = uint32(len(v.bitmaps))
			v.bitmaps = append(v.bitmaps, bm)
		}
	}
	if v.nodes[0].kids != 256 {
		return nil, fmt.Errorf("o200k_base: only %d of the 256 bytes are tokens", v.nodes[0].kids)
	}
	for b := range 256 {
		if v.nodes[1+b].tag == 0 {
			return nil, fmt.Errorf("o200k_base: byte %#x is not a token", b)
		}
	}
	v.depth2 = alloc[uint32](v, 1<<16)
	for b := range uint32(256) {
		n := v.nodes[1+b]
		for c := n.first; c < n.first+uint32(n.kids); c++ {
			v.depth2[b<<8|uint32(v.nodes[c].label)] = c
		}
	}

	// One pass in rank order fills the rest. For each token, its proper
	// prefixes that are tokens (the nextPrefix chain, longest first) and the
	// token spelled by the rest of it give every way to spell it as two
	// tokens: its entries in the pair table, and its split candidates.
	//
	// A token is reachable, and split into (l, r), when BPE run on its bytes
	// with only the lower ranks ends in exactly the two tokens l and r: both
	// reachable, both of lower rank, and no merge across their boundary
	// comes first (compatible below the token's rank). So splits need only
	// the lower ranks' pairs, which the pass has stored by then. Single
	// bytes are the leaves. A token with no such split is never made by a
	// merge, only as a whole piece.
	const pairBits = 20 // 446,189 pairs in o200k_base
	v.pairs, v.pairSh = alloc[uint64](v, 1<<pairBits), 64-pairBits
	v.pairBloom = alloc[uint64](v, 1<<(pairBits+pairBloomExtraBits)/64)
	pairMask := uint64(len(v.pairs) - 1)
	stored := 0
	unreachable := make([]bool, numTokens)
	anyUnreachable := false
	for r, s := range toks {
		if len(s) == 2 {
			v.tag2[int(s[0])<<8|int(s[1])] = uint32(r) + 1
		}
	}
	for r, s := range toks {
		t := &v.toks[r]
		t.left, t.right = uint32(r), uint32(r)
		copy(t.head[:], s)
		var prefixes, rests [maxTokenBytes]uint32 // longest prefix first
		n := 0
		for x := t.nextPrefix; x != noToken; x = v.toks[x].nextPrefix {
			if y := v.lookup(s[v.toks[x].len:]); y != 0 {
				prefixes[n], rests[n] = x, (y-1)&^unreachableBit
				n++
			}
		}
		if len(s) > 1 {
			reachable := false
			for i := 0; i < n && !reachable; i++ { // longest left part first
				x, y := prefixes[i], rests[i]
				if x >= uint32(r) || y >= uint32(r) || unreachable[x] || unreachable[y] {
					continue
				}
				if v.compatible(x, y, uint32(r)) {
					t.left, t.right = x, y
					reachable = true
				}
			}
			if !reachable {
				// Mark it in the trie so the longest match skips it.
				v.nodes[v.findNode(s)].tag |= unreachableBit
				unreachable[r], anyUnreachable = true, true
			}
		}
		for i := range n {
			if stored >= len(v.pairs)/4*3 {
				return nil, fmt.Errorf("o200k_base: pair table full")
			}
			key := uint64(prefixes[i])<<18 | uint64(rests[i]) + 1
			h := hashKey(key, v.pairSh-pairBloomExtraBits)
			v.pairBloom[h/64] |= 1 << (h % 64)
			j := h >> pairBloomExtraBits
			for v.pairs[j] != 0 {
				j = (j + 1) & pairMask
			}
			v.pairs[j] = key<<20 | uint64(r)
			stored++
		}
	}
	for r := range toks {
		if p := v.toks[r].nextPrefix; anyUnreachable && p != noToken {
			// nextPrefix must skip unreachable tokens too; a prefix's own
			// nextPrefix is the next shorter one.
			for p != noToken && unreachable[p] {
				p = v.toks[p].nextPrefix
			}
			v.toks[r].nextPrefix = p
		}
		if !unreachable[r] {
			v.reachable++
		}
	}
	return v, nil
}

// findNode returns the trie node of token s, which must be in the trie.
func (v *vocab) findNode(s string) uint32 {
	node := uint32(s[0]) + 1
	for i := 1; i < len(s); i++ {
		node = v.child(node, s[i])
	}
	return node
}
