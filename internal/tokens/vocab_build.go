package tokens

import "fmt"

// This file builds the tables of vocab.go from the token of each rank: the
// trie breadth first, then one pass in rank order for the splits, the
// prefix chains and the pair table.

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
