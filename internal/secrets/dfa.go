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
	maxLen int // the longest pattern's length
	// next again, in an array its uint16 offsets index without a bounds
	// check, when it fits (the default rules' keywords take 61,778
	// entries): the split walk needs it.
	small *[1 << 16]uint32
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
		d.maxLen = max(d.maxLen, len(p))
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
	if len(d.next) <= len(d.small) {
		d.small = new([1 << 16]uint32)
		copy(d.small[:], d.next)
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
// length. The scan itself appends the occurrences (appendReports); walk is
// that, one call per occurrence, for the tests.
func (d *dfa) walk(input []byte, fn func(last, n, pattern int)) {
	var held [3][]dfaReport
	for _, r := range d.appendReports(nil, input, 0, &held) {
		fn(r.last, r.n, r.pattern)
	}
}

// appendReports appends to dst every occurrence of a pattern in input, in
// walk's order, its last byte's index offset by base. held is scratch
// space the caller keeps between calls (the split walk's held reports), so
// a scan of many files does not grow it anew for each.
//
// Each byte's lookup waits for the one before it, so a long input is
// walked as four quarters at once: four chains of lookups the processor
// overlaps (1.6 times the bytes per second of one chain on Go's source).
// A quarter's walk starts maxLen bytes before it, from the root: the state
// after a byte is the longest suffix that is a prefix of a pattern, at
// most maxLen bytes, so from the quarter's start on it is the state one
// walk over the whole input would be in. The later quarters' reports wait
// until the ones before them are made, so the order is one walk's.
func (d *dfa) appendReports(dst []dfaReport, input []byte, base int, held *[3][]dfaReport) []dfaReport {
	if len(input) >= minSplitWalk {
		if out, ok := d.appendQuarters(dst, input, base, held); ok {
			return out
		}
	}
	return d.appendOn(dst, input, base, 0)
}

// quarters is walk in four quarters at once, for the tests; it reports
// false, having walked nothing, where appendQuarters does.
func (d *dfa) quarters(input []byte, fn func(last, n, pattern int)) bool {
	var held [3][]dfaReport
	out, ok := d.appendQuarters(nil, input, 0, &held)
	for _, r := range out {
		fn(r.last, r.n, r.pattern)
	}
	return ok
}

// appendQuarters is appendReports in four quarters at once; it reports
// false, having walked nothing, when the quarters are shorter than a
// pattern or the table does not fit d.small.
func (d *dfa) appendQuarters(dst []dfaReport, input []byte, base int, held *[3][]dfaReport) ([]dfaReport, bool) {
	n, m := len(input), d.maxLen
	q := n / 4
	if q <= m || d.small == nil {
		return dst, false
	}
	steps := q + m // each walk reaches its quarter's end
	s1, s2, s3 := q-m, 2*q-m, 3*q-m
	in0 := input[:steps]
	in1, in2, in3 := input[s1 : s1+steps][:len(in0)], input[s2 : s2+steps][:len(in0)], input[s3 : s3+steps][:len(in0)]
	h0, h1, h2 := held[0][:0], held[1][:0], held[2][:0] // the reports of quarters 1 to 3
	stride := uint32(d.stride)
	var r0, r1, r2, r3 uint16
	for i := 0; i < steps; i++ {
		i, r0, r1, r2, r3 = d.walk4(in0, in1, in2, in3, i, r0, r1, r2, r3)
		if i == steps {
			break
		}
		if i < q {
			for _, o := range d.outs[uint32(r0)/stride] {
				dst = append(dst, dfaReport{base + i, o})
			}
		}
		if p := s1 + i; p >= q && p < 2*q {
			for _, o := range d.outs[uint32(r1)/stride] {
				h0 = append(h0, dfaReport{base + p, o})
			}
		}
		if p := s2 + i; p >= 2*q && p < 3*q {
			for _, o := range d.outs[uint32(r2)/stride] {
				h1 = append(h1, dfaReport{base + p, o})
			}
		}
		if p := s3 + i; p >= 3*q {
			for _, o := range d.outs[uint32(r3)/stride] {
				h2 = append(h2, dfaReport{base + p, o})
			}
		}
	}
	dst = append(append(append(dst, h0...), h1...), h2...)
	held[0], held[1], held[2] = h0, h1, h2
	// The last quarter holds what n/4 left over.
	return d.appendOn(dst, input[s3+steps:], base+s3+steps, uint32(r3)), true
}

// minSplitWalk is the shortest input walk splits in quarters: the
// quarters' overlap (maxLen bytes each, 27 for the default keywords) costs
// little from here on. A variable for the tests.
var minSplitWalk = 1 << 10

// dfaReport is one occurrence of a pattern: the index of its last byte,
// its length and its index.
type dfaReport struct {
	last int
	dfaOut
}

// walk4 walks in0 to in3 at once from i on, from the states at rows r0
// to r3, until one of them reports; it returns that byte's index (or
// len(in0)) and the four states after it. It has no call and no bounds
// check in it, so the states stay in registers.
func (d *dfa) walk4(in0, in1, in2, in3 []byte, i int, r0, r1, r2, r3 uint16) (int, uint16, uint16, uint16, uint16) {
	tab, class := d.small, &d.class
	in1, in2, in3 = in1[:len(in0)], in2[:len(in0)], in3[:len(in0)]
	for ; i < len(in0); i++ {
		t0 := tab[r0+uint16(class[in0[i]])]
		t1 := tab[r1+uint16(class[in1[i]])]
		t2 := tab[r2+uint16(class[in2[i]])]
		t3 := tab[r3+uint16(class[in3[i]])]
		r0, r1, r2, r3 = uint16(t0), uint16(t1), uint16(t2), uint16(t3)
		if (t0|t1|t2|t3)&hasOuts != 0 {
			break
		}
	}
	return i, r0, r1, r2, r3
}

// walkFrom is walk in one chain, reporting positions offset by base.
func (d *dfa) walkFrom(input []byte, base int, fn func(last, n, pattern int)) {
	for _, r := range d.appendOn(nil, input, base, 0) {
		fn(r.last, r.n, r.pattern)
	}
}

// appendOn is appendReports in one chain from the state at row.
func (d *dfa) appendOn(dst []dfaReport, input []byte, base int, row uint32) []dfaReport {
	for i, c := range input {
		t := d.next[row+uint32(d.class[c])]
		row = t &^ hasOuts
		if t&hasOuts != 0 {
			for _, o := range d.outs[row/uint32(d.stride)] {
				dst = append(dst, dfaReport{base + i, o})
			}
		}
	}
	return dst
}
