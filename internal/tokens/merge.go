package tokens

// mergeCount returns the number of tokens BPE encodes s into by tiktoken's
// own procedure, run on token ranks: every adjacent pair of parts that
// spells a token is a candidate, and the lowest rank, then the leftmost,
// merges first. It is O(n log n) in every case, where the backtracking
// encoder is linear but can retry each position many times: a long run of
// '=' or '-' (tokens of many lengths, most of which don't fit) costs it
// about 15 retries a byte. encode hands such inputs over here.
func (v *vocab) mergeCount(s string, e *encoder) int {
	n := len(s)
	m := &e.merge
	m.reset(n)
	for i := range n {
		m.tok[i] = v.nodes[uint32(s[i])+1].tag - 1 // every byte is a token
		m.next[i], m.prev[i], m.rank[i] = int32(i+1), int32(i-1), noToken
	}
	m.next[n-1] = -1
	for i := 0; i+1 < n; i++ {
		if c, ok := v.pair(m.tok[i], m.tok[i+1]); ok {
			m.rank[i] = c
			m.heap = append(m.heap, uint64(c)<<32|uint64(i))
		}
	}
	m.heap.init()
	count := n
	for len(m.heap) > 0 {
		top := m.heap.pop()
		c, i := uint32(top>>32), int32(uint32(top))
		if m.tok[i] == noToken || m.rank[i] != c {
			continue // stale: the part merged away or its neighbour changed
		}
		j := m.next[i]
		k := m.next[j]
		m.tok[i], m.tok[j], m.rank[j] = c, noToken, noToken
		m.next[i] = k
		if k >= 0 {
			m.prev[k] = i
		}
		count--
		m.rank[i] = noToken
		if k >= 0 {
			if r, ok := v.pair(m.tok[i], m.tok[k]); ok {
				m.rank[i] = r
				m.heap.push(uint64(r)<<32 | uint64(i))
			}
		}
		if p := m.prev[i]; p >= 0 {
			m.rank[p] = noToken
			if r, ok := v.pair(m.tok[p], m.tok[i]); ok {
				m.rank[p] = r
				m.heap.push(uint64(r)<<32 | uint64(p))
			}
		}
	}
	return count
}

// merger is mergeCount's scratch space, indexed by the byte where a part
// starts.
type merger struct {
	tok, rank  []uint32 // the part's token; the rank of it merged with the next
	next, prev []int32  // neighbouring parts, -1 for none
	heap       rankHeap // (rank<<32 | start) of candidate merges, possibly stale
}

func (m *merger) reset(n int) {
	if cap(m.tok) < n {
		m.tok, m.rank = make([]uint32, n), make([]uint32, n)
		m.next, m.prev = make([]int32, n), make([]int32, n)
	}
	m.tok, m.rank, m.next, m.prev = m.tok[:n], m.rank[:n], m.next[:n], m.prev[:n]
	m.heap = m.heap[:0]
}

// rankHeap is a min-heap of rank<<32|start: lowest rank first, then
// leftmost, as tiktoken merges. Typed, so a push does not allocate.
type rankHeap []uint64

func (h rankHeap) init() {
	for i := len(h)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

func (h *rankHeap) push(x uint64) {
	*h = append(*h, x)
	for i := len(*h) - 1; i > 0; {
		parent := (i - 1) / 2
		if (*h)[parent] <= (*h)[i] {
			break
		}
		(*h)[parent], (*h)[i] = (*h)[i], (*h)[parent]
		i = parent
	}
}

func (h *rankHeap) pop() uint64 {
	old := *h
	top := old[0]
	old[0] = old[len(old)-1]
	*h = old[:len(old)-1]
	h.down(0)
	return top
}

func (h rankHeap) down(i int) {
	for {
		least := i
		if l := 2*i + 1; l < len(h) && h[l] < h[least] {
			least = l
		}
		if r := 2*i + 2; r < len(h) && h[r] < h[least] {
			least = r
		}
		if least == i {
			return
		}
		h[i], h[least] = h[least], h[i]
		i = least
	}
}
