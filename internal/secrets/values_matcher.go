package secrets

import (
	"bytes"
	"cmp"
	"context"
	"encoding/hex"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/zeebo/blake3"

	"github.com/repoprep/repoprep/internal/dirfd"
	"github.com/repoprep/repoprep/rules"
)

// Matcher finds the values of a Values set in contents. It is immutable and safe for
// concurrent use.
type Matcher struct {
	s       *Scanner
	values  []string
	ruleOf  []int32  // value index -> index in ruleIDs (Values.rules' own)
	ruleIDs []string // the rules that caught the values
	ruleAt  []int    // ruleIDs index -> that rule's index in the scanner; -1 for none
	maxLen  int
	index   anchorIndex
	hasher  func() *valueHasher // made the first time a walk needs it
	bufs    sync.Pool           // find's read buffers: a fresh 1 MiB one per file was most of the pass's cost
}

// Matcher is MatcherContext without a way to stop it.
func (s *Scanner) Matcher(vals *Values) *Matcher {
	m, _ := s.MatcherContext(context.Background(), vals)
	return m
}

// MatcherContext indexes every value in vals for the cross-file pass, in time and memory
// linear in the values (a 4 MB key block's 62,500 lines take a few MB). Values of a rule
// s does not know (the fingerprint key) are reported under their own id as a
// high-severity credential. It stops with ctx's error once ctx is done.
func (s *Scanner) MatcherContext(ctx context.Context, vals *Values) (*Matcher, error) {
	vals.mu.Lock()
	m := &Matcher{s: s, values: make([]string, 0, len(vals.rules)), ruleOf: make([]int32, 0, len(vals.rules))}
	for k, r := range vals.rules {
		m.values = append(m.values, k)
		m.ruleOf = append(m.ruleOf, r)
		m.maxLen = max(m.maxLen, len(k))
	}
	m.ruleIDs = slices.Clone(vals.ids)
	vals.mu.Unlock()
	for _, id := range m.ruleIDs {
		m.ruleAt = append(m.ruleAt, slices.IndexFunc(s.rules, func(r rule) bool { return r.id == id }))
	}
	// Indexed in the map's order: a span is one value's, and merged spans keep the
	// first by offset, so the order changes nothing found. (Sorting 62,500 lines of a
	// key block took as long as indexing them.)
	err := m.index.build(ctx, m.values)
	if err == nil && m.index.dropped > 0 {
		// Which values a crowded anchor leaves out depends on the order: the same every run.
		order := make([]int, len(m.values))
		for i := range order {
			order[i] = i
		}
		slices.SortFunc(order, func(a, b int) int { return strings.Compare(m.values[a], m.values[b]) })
		values, ruleOf := make([]string, len(order)), make([]int32, len(order))
		for i, j := range order {
			values[i], ruleOf[i] = m.values[j], m.ruleOf[j]
		}
		m.values, m.ruleOf = values, ruleOf
		err = m.index.build(ctx, m.values)
	}
	if err != nil {
		return nil, err
	}
	m.hasher = sync.OnceValue(func() *valueHasher { return newValueHasher(m.values, m.maxLen) })
	return m, nil
}

// Len is the number of values the matcher looks for.
func (m *Matcher) Len() int { return len(m.values) - m.index.dropped }

// valueBlockBytes is how much the pass reads at a time.
const valueBlockBytes = 1 << 20

// ScanFile is ScanFileContext without a way to stop it, and with nothing masked already.
func (m *Matcher) ScanFile(name string) ([]Finding, error) {
	return m.ScanFileContext(context.Background(), name, nil)
}

// ScanFileContext finds every occurrence of the matcher's values in the file name and
// returns them as findings sorted by offset, with line and column. Occurrences that
// overlap are merged (the union is what gets masked). Memory stays near valueBlockBytes
// plus the longest value. name is a regular file of the caller's own (a staged copy): it
// is opened outside the runtime's poller (dirfd.OpenPlain), so a FIFO there would block.
// It stops with ctx's error once ctx is done, between blocks of valueBlockBytes.
//
// masked are findings the caller masks in this file anyway (the rules' own, from
// Scan.Findings): an occurrence wholly inside one of them changes nothing and is left
// out, and their insides are not walked, so a 4 MB key block's own file costs its
// edges, not 62,500 findings of its lines. nil walks everything.
func (m *Matcher) ScanFileContext(ctx context.Context, name string, masked []Finding) ([]Finding, error) {
	if m.Len() == 0 {
		return nil, nil
	}
	f, err := dirfd.OpenPlain(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return m.ScanOpenContext(ctx, f, masked)
}

// ScanOpenContext is ScanFileContext over a content the caller opened (a
// staged copy opened relative to its directory's descriptor: opening each
// of Go's src/ 9,110 staged texts by its whole path was 28% of the pass's
// CPU in profiles of whole runs). f is read from its start, twice.
func (m *Matcher) ScanOpenContext(ctx context.Context, f io.ReadSeeker, masked []Finding) ([]Finding, error) {
	if m.Len() == 0 {
		return nil, nil
	}
	spans, err := m.findContext(ctx, f, valueBlockBytes, masked)
	if err != nil || len(spans) == 0 {
		return nil, err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	return m.locateContext(ctx, f, spans)
}

// valueSpan is one occurrence of value v at [start, own) of a file, or overlapping
// occurrences merged as they were found: [start, end) is their union and v the one that
// starts first, the longest of those (own is its end).
type valueSpan struct {
	start, end, own int64
	v               int
}

// find is findContext without a way to stop it, nor anything masked.
func (m *Matcher) find(r io.Reader, block int) ([]valueSpan, error) {
	return m.findContext(context.Background(), r, block, nil)
}

// findContext walks r in blocks of block bytes that overlap by the longest value and one
// byte, so every occurrence is seen whole with the bytes around it, and reports each once;
// but none wholly inside a span of masked (see ScanFileContext).
func (m *Matcher) findContext(ctx context.Context, r io.Reader, block int, masked []Finding) ([]valueSpan, error) {
	skips := mergeSpans(masked, -1)
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
	var w walkState
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
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
		w.reset(buf)
		m.walkSkipping(&w, buf, base, acceptFrom, acceptTo, skips, &out)
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
		return cmp.Or(cmp.Compare(a.start, b.start), cmp.Compare(b.own, a.own))
	})
	merged := out[:0]
	for _, s := range out {
		if n := len(merged); n > 0 && s.start < merged[n-1].end {
			merged[n-1].end = max(merged[n-1].end, s.end)
			continue
		}
		merged = append(merged, s)
	}
	if len(skips) == 0 {
		return merged, nil
	}
	kept, k := merged[:0], 0
	for _, s := range merged {
		for k < len(skips) && skips[k].End <= s.start {
			k++
		}
		if k < len(skips) && skips[k].Start <= s.start && s.end <= skips[k].End {
			continue // masked with the finding it lies in
		}
		kept = append(kept, s)
	}
	return kept, nil
}

// walkSkipping is walk over buf but for the anchors that can only be of occurrences
// wholly inside a span of skips (sorted, disjoint): those more than the longest value
// from the span's edges.
func (m *Matcher) walkSkipping(w *walkState, buf []byte, base, acceptFrom, acceptTo int64, skips []Finding, out *[]valueSpan) {
	from := 0
	for _, sk := range skips {
		lo, hi := sk.Start+int64(m.maxLen)-base, sk.End-int64(m.maxLen)-base // anchors in [lo, hi) are inside
		if hi <= 0 || hi <= lo {
			continue
		}
		if lo >= int64(len(buf)) {
			break
		}
		if lo > int64(from) {
			m.walk(w, buf, from, int(lo), base, acceptFrom, acceptTo, out)
		}
		from = max(from, int(hi))
	}
	if from < len(buf) {
		m.walk(w, buf, from, len(buf), base, acceptFrom, acceptTo, out)
	}
}

// walkState is what a walk over one buffer keeps: how many bytes it may still compare,
// and then the buffer's prefix hashes.
type walkState struct {
	budget int
	hashed bool
	hashes []uint64
}

func (w *walkState) reset(buf []byte) {
	w.budget = valueCompareBudget*len(buf) + 4096
	w.hashed = false
}

// walk reports the values anchored in buf[from:to] that end in buf after acceptFrom and
// up to acceptTo (file offsets; buf starts at base). Every value holds its anchor at a
// known offset, so an anchor at i is a value starting at i minus that offset, if the
// bytes agree.
//
// Occurrences are merged into the last one reported as they are found when they overlap
// it from inside or after, and one that adds nothing to it is not checked: a long run
// of one character that many values match reports one span, not one per value and
// byte. Bytes are compared up to w's budget (valueCompareBudget per byte of buf), then
// hashes.
func (m *Matcher) walk(w *walkState, buf []byte, from, to int, base, acceptFrom, acceptTo int64, out *[]valueSpan) {
	m.index.walk(buf, from, to, func(i int, e *anchorEntry) {
		v := m.values[e.value]
		start := i - int(e.off)
		end := start + len(v)
		if start < 0 || end > len(buf) {
			return
		}
		abs, absStart := base+int64(end), base+int64(start)
		if abs <= acceptFrom || abs > acceptTo {
			return
		}
		var last *valueSpan
		if n := len(*out); n > 0 {
			last = &(*out)[n-1]
			if absStart > last.start && abs <= last.end || absStart == last.start && abs <= last.own {
				return // inside what is already masked, and not the first to start there
			}
		}
		if w.budget > 0 {
			w.budget -= len(v)
			if string(buf[start:end]) != v {
				return
			}
		} else {
			h := m.hasher()
			if !w.hashed {
				w.hashes, w.hashed = h.prefixes(w.hashes, buf), true
			}
			if h.substring(w.hashes, start, end) != h.values[e.value] {
				return
			}
		}
		if len(v) < shortValueBytes && !standsAlone(buf, start, end) {
			return
		}
		if last != nil && absStart >= last.start && absStart < last.end {
			last.end = max(last.end, abs)
			if absStart == last.start && abs > last.own {
				last.own, last.v = abs, int(e.value)
			}
			return
		}
		*out = append(*out, valueSpan{absStart, abs, abs, int(e.value)})
	})
}

// valueCompareBudget is how many bytes a walk compares per byte of its buffer before it
// compares hashes instead. A variable for the tests.
var valueCompareBudget = 4

// standsAlone reports whether buf[start:end] has no letter or digit glued to either end
// (when its own edge is one), so a short value is not matched inside a longer word.
func standsAlone(buf []byte, start, end int) bool {
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

// locate is locateContext without a way to stop it.
func (m *Matcher) locate(r io.Reader, spans []valueSpan) ([]Finding, error) {
	return m.locateContext(context.Background(), r, spans)
}

// locateContext reads r again to give each span its line and column (in code points,
// counted as the bytes that do not continue a UTF-8 sequence), and makes the findings.
// It stops with ctx's error once ctx is done, between reads.
func (m *Matcher) locateContext(ctx context.Context, r io.Reader, spans []valueSpan) ([]Finding, error) {
	out := make([]Finding, 0, len(spans))
	fp := m.s.newFingerprinter()
	buf := make([]byte, 64<<10)
	var bufStart, pos int64 // buf[:n] is r's bytes from bufStart; pos is where counting is
	n := 0
	line, col := 1, 1
	for _, sp := range spans {
		for pos < sp.start {
			if pos == bufStart+int64(n) {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
				bufStart = pos
				k, err := io.ReadFull(r, buf)
				if k == 0 {
					if err == nil || err == io.ErrUnexpectedEOF {
						err = io.EOF
					}
					return nil, fmt.Errorf("value pass: %w", err)
				}
				n = k
			}
			seg := buf[pos-bufStart : min(int64(n), sp.start-bufStart)]
			if i := bytes.LastIndexByte(seg, '\n'); i >= 0 {
				line += bytes.Count(seg[:i+1], nl)
				col = 1 + leadBytes(seg[i+1:])
			} else {
				col += leadBytes(seg)
			}
			pos += int64(len(seg))
		}
		v := m.values[sp.v]
		ri := m.ruleOf[sp.v]
		id, desc, kind, sev := m.ruleIDs[ri], "Value of a secret found elsewhere in the tree", rules.KindCredential, rules.SeverityHigh
		if at := m.ruleAt[ri]; at >= 0 {
			r := &m.s.rules[at]
			desc, kind, sev = r.desc, r.kind, r.severity
		}
		out = append(out, Finding{
			Line: line, Column: col, Rule: id, Description: desc, Kind: kind, Severity: sev,
			Match: maskHead([]byte(v[:min(len(v), 4)]), utf8.RuneCountInString(v)), Fingerprint: fp.of(id, v),
			Start: sp.start, End: sp.end,
		})
	}
	return out, nil
}

// fingerprinter gives the fingerprints Scanner.fingerprint gives, resetting one hasher
// for each instead of cloning the keyed one: a clone copies the hasher's 8 KiB buffer,
// and for the 62,500 lines of a key block found in its own file that was a sixth of the
// pass. Not safe for concurrent use.
type fingerprinter struct{ h *blake3.Hasher }

func (s *Scanner) newFingerprinter() fingerprinter { return fingerprinter{s.fpKeyed.Clone()} }

func (f fingerprinter) of(ruleID, secret string) string {
	f.h.Reset()
	f.h.WriteString(ruleID)
	f.h.Write([]byte{0})
	f.h.WriteString(secret)
	var sum [8]byte
	f.h.Digest().Read(sum[:])
	return ruleID + ":" + hex.EncodeToString(sum[:])
}

// leadBytes counts the bytes of b that start a UTF-8 sequence (or are not part of one):
// b's code points, for valid UTF-8.
func leadBytes(b []byte) int {
	n := len(b)
	for _, c := range b {
		if c&0xC0 == 0x80 {
			n--
		}
	}
	return n
}
