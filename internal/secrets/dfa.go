package secrets

// dfa is an Aho-Corasick automaton compiled into a full transition table
// over byte classes, for the keyword pre-filter. The library trie it
// replaces follows failure links byte by byte through 1 KiB rows, one per
// state; here each byte costs one lookup in a table of states × classes
// (the keywords' 45 distinct bytes: about 350 KiB for the default rules),
// and ASCII case folds in the class table, so the content need not be
// lower-cased first. It reports what the trie reported, in the same order:
// at each byte, the pattern ending there whose state it is, then those of
// the shorter suffixes.
type dfa struct {
	class  [256]uint8
	stride int      // classes per state
	next   []uint32 // state*stride + class -> next state*stride, | hasOuts if it reports
	outs   [][]dfaOut
}

// hasOuts marks an entry of dfa.next whose state reports patterns, so the
// walk looks at outs only there.
const hasOuts = 1 << 31

// dfaOut is a pattern that ends where the automaton reports it.
type dfaOut struct {
	n       int // its length
	pattern int // its index in the patterns given
}

// newDFA compiles patterns; with fold, A-Z match a-z (patterns must then
// be lower-case).
func newDFA(patterns []string, fold bool) *dfa {
	d := &dfa{}
	var classOf [256]int
	for i := range classOf {
		classOf[i] = -1
	}
	n := 1 // class 0: every byte no pattern holds
	for _, p := range patterns {
		for i := 0; i < len(p); i++ {
			if classOf[p[i]] < 0 {
				classOf[p[i]] = n
				n++
			}
		}
	}
	for c := range 256 {
		k := classOf[c]
		if fold && 'A' <= c && c <= 'Z' {
			k = classOf[c+'a'-'A']
		}
		d.class[c] = uint8(max(k, 0))
	}
	d.stride = n

	// The trie, with -1 for a missing edge.
	trie := [][]int32{newRow(n)}
	d.outs = [][]dfaOut{nil}
	for pi, p := range patterns {
		s := 0
		for i := 0; i < len(p); i++ {
			c := d.class[p[i]]
			if trie[s][c] < 0 {
				trie[s][c] = int32(len(trie))
				trie = append(trie, newRow(n))
				d.outs = append(d.outs, nil)
			}
			s = int(trie[s][c])
		}
		if len(d.outs[s]) == 0 { // a pattern given twice keeps its first index
			d.outs[s] = []dfaOut{{n: len(p), pattern: pi}}
		}
	}

	// Breadth first: each state's failure link is already final when its
	// children are reached, so missing edges copy the link's row and a
	// state's outputs are its own, then its link's.
	d.next = make([]uint32, len(trie)*n)
	fail := make([]int, len(trie))
	queue := []int{0}
	for c := range n {
		if t := trie[0][c]; t >= 0 {
			d.next[c] = uint32(t)
			queue = append(queue, int(t))
		}
	}
	queue = queue[1:]
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		if f := fail[s]; len(d.outs[f]) > 0 {
			d.outs[s] = append(d.outs[s][:len(d.outs[s]):len(d.outs[s])], d.outs[f]...)
		}
		for c := range n {
			t := trie[s][c]
			if t < 0 {
				d.next[s*n+c] = d.next[fail[s]*n+c]
				continue
			}
			d.next[s*n+c] = uint32(t)
			if s != 0 {
				fail[t] = int(d.next[fail[s]*n+c])
			}
			queue = append(queue, int(t))
		}
	}
	// From state numbers to row offsets, marked where the state reports.
	for i, t := range d.next {
		d.next[i] = t * uint32(n)
		if len(d.outs[t]) > 0 {
			d.next[i] |= hasOuts
		}
	}
	return d
}

func newRow(n int) []int32 {
	row := make([]int32, n)
	for i := range row {
		row[i] = -1
	}
	return row
}

// walk calls fn for every occurrence of a pattern in input, as the
// library trie's Walk does: last is the index of its last byte, n its
// length.
func (d *dfa) walk(input []byte, fn func(last, n, pattern int)) {
	row := uint32(0) // the state's offset in next
	for i, c := range input {
		t := d.next[row+uint32(d.class[c])]
		row = t &^ hasOuts
		if t&hasOuts != 0 {
			for _, o := range d.outs[row/uint32(d.stride)] {
				fn(i, o.n, o.pattern)
			}
		}
	}
}
