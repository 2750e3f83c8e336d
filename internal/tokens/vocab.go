package tokens

import (
	"math/bits"
	"sync"
)

// This file holds the tables the BPE step (bpe.go) runs on, built once per
// process (vocab_build.go) from the o200k_base ranks tiktoken-go embeds,
// read through the codec's Decode, so there is one copy of the encoding in
// the source tree and no data file to keep in step with it.
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
// Building them takes 0.4-0.5 s of one core, once per process, unless an
// earlier process of the same executable kept them (tablecache.go).

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

// vocabLoaded says whether theVocab read its tables from a file, for the
// tests; it is set before theVocab returns.
var vocabLoaded bool

// theVocab is built on first use, or read from the table file an earlier
// process of this executable wrote (UseCache).
var theVocab = sync.OnceValue(func() *vocab {
	dir := cacheDir()
	var v *vocab
	if dir != "" {
		v = cachedVocab(dir)
	}
	vocabLoaded = v != nil
	if v == nil {
		var err error
		v, err = buildVocab(func(rank int) (string, error) {
			return codec().Decode([]uint{uint(rank)})
		})
		if err != nil {
			// The encoding is embedded; failing here means a broken build.
			panic("tokens: " + err.Error())
		}
		if dir != "" {
			_ = saveVocab(dir, v) // no file: the next process builds them again
		}
	}
	bmpClasses()
	ready.Store(true)
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
