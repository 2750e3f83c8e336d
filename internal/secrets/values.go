package secrets

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"io"
	"slices"
	"sync"
	"unicode/utf8"

	ahocorasick "github.com/BobuSumisu/aho-corasick"

	"github.com/repoprep/repoprep/internal/dirfd"
	"github.com/repoprep/repoprep/rules"
)

// The cross-file pass. A rule catches a secret where its context gives it away
// (password = "..."); the same value elsewhere (a Bearer header in a test, a TOTP seed in
// a fixture, a key body in a JSON string) has no such context. So every value caught
// anywhere goes into a Values set, and a second pass walks every staged file with one
// Aho-Corasick automaton of those exact values and masks each occurrence.

const (
	// minValueBytes is the shortest value the cross-file pass looks for: shorter ones
	// ("1234", "root") occur everywhere by chance and are masked only where caught.
	minValueBytes = 6
	// shortValueBytes: values shorter than this must stand alone (no letter or digit
	// right before or after), so the address 10.0.0.1 does not mask part of 10.0.0.12.
	shortValueBytes = 20
	// minLineValueBytes is the shortest line of a multi-line secret (a key body) that the
	// pass looks for on its own.
	minLineValueBytes = 32
	// maxValueBytes: a longer single-line value is looked for in pieces of this size.
	maxValueBytes = 1024
)

// Values is the set of secret values caught in one run, for the cross-file pass. It holds
// raw secrets: it never leaves the process, and its String method prints only a count.
// Safe for concurrent use.
type Values struct {
	mu    sync.Mutex
	rules map[string]string // value -> rule id that caught it first
}

// NewValues returns an empty set.
func NewValues() *Values { return &Values{rules: map[string]string{}} }

// String says how many values the set holds, never what they are.
func (v *Values) String() string { return fmt.Sprintf("secrets.Values(%d)", v.Len()) }

// Len is the number of distinct values.
func (v *Values) Len() int {
	v.mu.Lock()
	defer v.mu.Unlock()
	return len(v.rules)
}

// Add puts value, caught by rule ruleID, into the set, split as the pass looks for it
// (lines of a block, pieces of a very long value); too short a value is left out.
func (v *Values) Add(ruleID string, value []byte) {
	v.add(ruleID, appendValues(nil, value))
}

func (v *Values) add(ruleID string, values [][]byte) {
	v.mu.Lock()
	defer v.mu.Unlock()
	for _, val := range values {
		if identRE.Match(val) || camelOrSnakeRE.Match(val) {
			// A value shaped like a name (TestIndex, encodeUserPassword) would mask that
			// name all over the tree: one false finding would become a hundred.
			continue
		}
		if _, ok := v.rules[string(val)]; !ok {
			v.rules[string(val)] = ruleID
		}
	}
}

// appendValues appends to vs what the cross-file pass should look for to find value: the
// value itself, or for a multi-line value (a key block, also with JSON-escaped \n) each
// line of at least minLineValueBytes, and for a very long line its pieces. Each is a copy.
func appendValues(vs [][]byte, value []byte) [][]byte {
	value = bytes.TrimSpace(value)
	if len(value) < minValueBytes {
		return vs
	}
	multi := bytes.IndexByte(value, '\n') >= 0 || bytes.Contains(value, []byte(`\n`))
	if !multi && len(value) <= maxValueBytes {
		return append(vs, bytes.Clone(value))
	}
	lines := [][]byte{value}
	if multi {
		lines = bytes.FieldsFunc(bytes.ReplaceAll(value, []byte(`\n`), []byte{'\n'}), func(r rune) bool {
			return r == '\n' || r == '\r' || r == '"' || r == '\'' || r == ','
		})
	}
	for _, l := range lines {
		l = bytes.TrimSpace(l)
		for len(l) >= minLineValueBytes {
			n := min(len(l), maxValueBytes)
			vs = append(vs, bytes.Clone(l[:n]))
			l = l[n:]
		}
	}
	return vs
}

// Matcher finds the values of a Values set in contents. It is immutable and safe for
// concurrent use.
type Matcher struct {
	trie    *ahocorasick.Trie
	dfa     *dfa // the same automaton as a table, when it is small enough (maxValueDFA)
	values  [][]byte
	ruleIDs []string // value index -> the rule that caught it
	ids     []int    // value index -> that rule's index in the scanner; -1 for none
	fps     []string
	maxLen  int
	heads   *valueHeads // nil when some value is too short for it
	s       *Scanner
	bufs    sync.Pool // find's read buffers: a fresh 1 MiB one per file was most of the pass's cost
}

// Matcher builds the automaton of every value in vals. Values of a rule s does not know
// (the fingerprint key) are reported under their own id as a high-severity credential.
func (s *Scanner) Matcher(vals *Values) *Matcher {
	vals.mu.Lock()
	keys := make([]string, 0, len(vals.rules))
	for k := range vals.rules {
		keys = append(keys, k)
	}
	slices.Sort(keys) // deterministic pattern order, so ties break the same way every run
	m := &Matcher{s: s}
	for _, k := range keys {
		ruleID := vals.rules[k]
		m.values = append(m.values, []byte(k))
		m.ruleIDs = append(m.ruleIDs, ruleID)
		m.ids = append(m.ids, slices.IndexFunc(s.rules, func(r rule) bool { return r.id == ruleID }))
		m.fps = append(m.fps, s.fingerprint(ruleID, []byte(k)))
		m.maxLen = max(m.maxLen, len(k))
	}
	vals.mu.Unlock()
	if len(m.values) > 0 {
		m.trie = ahocorasick.NewTrieBuilder().AddPatterns(m.values).Build()
		if total := sumLen(m.values); total*valueDFAClasses(m.values)*4 <= maxValueDFA {
			patterns := make([]string, len(m.values))
			for i, v := range m.values {
				patterns[i] = string(v)
			}
			m.dfa = newDFA(patterns, false)
		} else {
			m.heads = newValueHeads(m.values)
		}
	}
	return m
}

// maxValueDFA bounds the value automaton's table (states, at most the
// values' bytes, times byte classes, 4 bytes each). Under it the table
// walks every byte at about the cost of valueHeads' pre-filter alone, and
// the pre-filter is dropped; a larger set of values keeps the library's
// trie behind the pre-filter.
const maxValueDFA = 16 << 20

func sumLen(values [][]byte) int {
	n := 1
	for _, v := range values {
		n += len(v)
	}
	return n
}

// valueDFAClasses is the number of byte classes newDFA makes of values:
// one per distinct byte, and one for the rest.
func valueDFAClasses(values [][]byte) int {
	var seen [256]bool
	n := 1
	for _, v := range values {
		for _, c := range v {
			if !seen[c] {
				seen[c] = true
				n++
			}
		}
	}
	return n
}

// valueHeads is the cross-file pass's pre-filter: the first four bytes of
// every value, as a bitmap of their first two bytes and a set of all four.
// Most staged files hold no value at all, and a block in which no position
// starts like one cannot hold one, so the automaton walks only the blocks
// that can: checking a position costs a bit test where the automaton's
// walk costs a table row.
type valueHeads struct {
	pairs [1 << 16 / 64]uint64
	quads map[uint32]struct{}
}

func newValueHeads(values [][]byte) *valueHeads {
	h := &valueHeads{quads: map[uint32]struct{}{}}
	for _, v := range values {
		if len(v) < 4 {
			return nil
		}
		p := uint32(v[0])<<8 | uint32(v[1])
		h.pairs[p/64] |= 1 << (p % 64)
		h.quads[binary.LittleEndian.Uint32(v)] = struct{}{}
	}
	return h
}

// mayHold reports whether some value could start in b.
func (h *valueHeads) mayHold(b []byte) bool {
	for i := 0; i+4 <= len(b); i++ {
		p := uint32(b[i])<<8 | uint32(b[i+1])
		if h.pairs[p/64]&(1<<(p%64)) == 0 {
			continue
		}
		if _, ok := h.quads[binary.LittleEndian.Uint32(b[i:])]; ok {
			return true
		}
	}
	return false
}

// Len is the number of values the matcher looks for.
func (m *Matcher) Len() int { return len(m.values) }

// valueBlockBytes is how much the pass reads at a time.
const valueBlockBytes = 1 << 20

// ScanFile finds every occurrence of the matcher's values in the file name and returns
// them as findings sorted by offset, with line and column. Occurrences that overlap are
// merged (the union is what gets masked). Memory stays near valueBlockBytes plus the
// longest value. name is a regular file of the caller's own (a staged copy): it is
// opened outside the runtime's poller (dirfd.OpenPlain), so a FIFO there would block.
func (m *Matcher) ScanFile(name string) ([]Finding, error) {
	if m.trie == nil {
		return nil, nil
	}
	f, err := dirfd.OpenPlain(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	spans, err := m.find(f, valueBlockBytes)
	if err != nil || len(spans) == 0 {
		return nil, err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	return m.locate(f, spans)
}

// valueSpan is one occurrence of value v at [start, end) of a file.
type valueSpan struct {
	start, end int64
	v          int
}

// find walks r in blocks of block bytes that overlap by the longest value and one byte,
// so every occurrence is seen whole with the bytes around it, and reports each once.
func (m *Matcher) find(r io.Reader, block int) ([]valueSpan, error) {
	block = max(block, 64) // each step must move past the overlap it keeps
	var out []valueSpan
	size := block + m.maxLen + 1
	var buf []byte
	if bp, ok := m.bufs.Get().(*[]byte); ok && cap(*bp) == size {
		buf = (*bp)[:0]
	} else {
		buf = make([]byte, 0, size)
	}
	defer func() { buf = buf[:0]; m.bufs.Put(&buf) }()
	var base, acceptFrom int64 // file offset of buf[0]; ends at or before acceptFrom are done
	eof := false
	for {
		if !eof {
			var err error
			if buf, eof, err = fill(r, buf); err != nil {
				return nil, err
			}
		}
		acceptTo := base + int64(len(buf)) // an end here still needs the byte after it
		if !eof {
			acceptTo--
		}
		// No value starts in buf (the pre-filter), so none ends in it.
		if m.heads == nil || m.heads.mayHold(buf) {
			m.walk(buf, base, acceptFrom, acceptTo, &out)
		}
		if eof {
			break
		}
		acceptFrom = acceptTo
		keepFrom := max(0, int(acceptTo-base)-m.maxLen-1)
		base += int64(keepFrom)
		buf = buf[:copy(buf, buf[keepFrom:])]
	}
	// Longest first among equal starts; then merge overlaps into their union.
	slices.SortFunc(out, func(a, b valueSpan) int {
		return cmp.Or(cmp.Compare(a.start, b.start), cmp.Compare(b.end, a.end))
	})
	merged := out[:0]
	for _, s := range out {
		if n := len(merged); n > 0 && s.start < merged[n-1].end {
			merged[n-1].end = max(merged[n-1].end, s.end)
			continue
		}
		merged = append(merged, s)
	}
	return merged, nil
}

// walk reports the values that end in buf after acceptFrom and up to
// acceptTo (file offsets; buf starts at base).
func (m *Matcher) walk(buf []byte, base, acceptFrom, acceptTo int64, out *[]valueSpan) {
	found := func(last, n int64, pattern int) {
		end := base + last + 1
		if end <= acceptFrom || end > acceptTo {
			return
		}
		start := end - n
		if n < shortValueBytes && !m.standsAlone(buf, int(start-base), int(end-base)) {
			return
		}
		*out = append(*out, valueSpan{start, end, pattern})
	}
	if m.dfa != nil {
		m.dfa.walk(buf, func(last, n, pattern int) { found(int64(last), int64(n), pattern) })
		return
	}
	m.trie.Walk(buf, func(last, n, pattern int64) bool {
		found(last, n, int(pattern))
		return true
	})
}

// standsAlone reports whether buf[start:end] has no letter or digit glued to either end
// (when its own edge is one), so a short value is not matched inside a longer word.
func (m *Matcher) standsAlone(buf []byte, start, end int) bool {
	if isAlnum(buf[start]) && start > 0 && isAlnum(buf[start-1]) {
		return false
	}
	if isAlnum(buf[end-1]) && end < len(buf) && isAlnum(buf[end]) {
		return false
	}
	return true
}

func isAlnum(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// locate reads r again to give each span its line and column, and makes the findings.
func (m *Matcher) locate(r io.Reader, spans []valueSpan) ([]Finding, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	out := make([]Finding, 0, len(spans))
	var pos int64
	line, col := 1, 1
	for _, sp := range spans {
		for pos < sp.start {
			b, err := br.ReadByte()
			if err != nil {
				return nil, fmt.Errorf("value pass: %w", err)
			}
			pos++
			switch {
			case b == '\n':
				line, col = line+1, 1
			case b&0xC0 != 0x80:
				col++
			}
		}
		v := m.values[sp.v]
		id, desc, kind, sev := m.ruleIDs[sp.v], "Value of a secret found elsewhere in the tree", rules.KindCredential, rules.SeverityHigh
		if ri := m.ids[sp.v]; ri >= 0 {
			r := &m.s.rules[ri]
			desc, kind, sev = r.desc, r.kind, r.severity
		}
		out = append(out, Finding{
			Line: line, Column: col, Rule: id, Description: desc, Kind: kind, Severity: sev,
			Match: maskHead(v, utf8.RuneCount(v)), Fingerprint: m.fps[sp.v],
			Start: sp.start, End: sp.end,
		})
	}
	return out, nil
}
