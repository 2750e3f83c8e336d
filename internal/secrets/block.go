package secrets

import (
	"bytes"
	"fmt"
	"slices"
	"unicode/utf8"

	"github.com/zeebo/blake3"
)

// A block rule (rules.SecretRule.End set) finds a secret of any length: its regex matches
// the opening marker (-----BEGIN ... PRIVATE KEY-----) and End the closing one, and the
// secret is everything from the opening to the end of the first closing marker after it.
// In memory that is one search; a streaming scan whose chunk ends inside a block carries
// an openBlock to the next chunk instead of the block's bytes, so a block of any size is
// found with memory bounded by the chunk.

const (
	// minBlockBody is the fewest bytes between the markers of a block that is a key and
	// not an empty template.
	minBlockBody = 32
	// blockJudgeBytes is how much of a block the rule's allowlists see when the block is
	// longer than a chunk: its head, where a stand-in shows ("...", "your key here").
	blockJudgeBytes = 64 << 10
)

// blocks finds rule ri's blocks in content. A complete block is a candidate; an opening
// marker with no closing marker after it in content is returned as open, for a streaming
// caller. An opening marker followed by another opening marker before any closing one is
// not a block (a marker in a string constant, then a real key): the later one is.
func (s *Scanner) blocks(content []byte, wins []window, ri int) (cands []candidate, open *openBlock) {
	r := &s.rules[ri]
	var begins []span
	for _, w := range wins {
		for _, m := range r.re.FindAllIndex(content[w.start:w.end], -1) {
			begins = append(begins, span{w.start + m[0], w.start + m[1]})
		}
	}
	noEndFrom := len(content) + 1 // past this offset no closing marker exists
	for i, b := range begins {
		if len(cands) > 0 && b.start < cands[len(cands)-1].end {
			continue // inside the block just found
		}
		var e []int
		if b.end < noEndFrom {
			e = r.end.FindIndex(content[b.end:])
		}
		if e == nil {
			// No closing marker from here on: the last opening marker is the one a
			// streaming caller follows (a later one would supersede an earlier).
			noEndFrom = min(noEndFrom, b.end)
			open = &openBlock{rule: ri, start: b.start, markerEnd: b.end}
			continue
		}
		end := b.end + e[1]
		if i+1 < len(begins) && begins[i+1].start < b.end+e[0] {
			continue // another opening marker before this one closes
		}
		if b.end+e[0]-b.end < minBlockBody || !r.isSecret(content[b.start:end]) {
			continue
		}
		cands = append(cands, candidate{span: span{b.start, end}, secret: span{b.start, end}, rule: ri})
	}
	if open != nil && len(cands) > 0 && open.start < cands[len(cands)-1].end {
		open = nil
	}
	return cands, open
}

// openBlock is a block whose closing marker a streaming scan has not reached yet. It
// hashes the block as it streams past, so the fingerprint is the one a whole-content scan
// would give, and keeps the body's lines for the cross-file pass.
type openBlock struct {
	rule      int
	start     int   // offset of the opening marker in the chunk that found it
	markerEnd int   // end of the opening marker, same chunk
	abs       int64 // file offset of the opening marker
	line, col int
	head      []byte         // the first bytes, for the mask
	runes     int            // code points so far
	h         *blake3.Hasher // keyed: rule id, NUL, the block so far
	tail      []byte         // the last bytes fed, so a closing marker split between feeds is seen
	fed       int64          // file offset up to which the block has been fed
	values    [][]byte       // body lines for the cross-file pass
	valueSize int            // their bytes
	rejected  bool           // its head failed the rule's allowlists: followed, not reported
}

// maxTailBytes is how much of the previous feed a marker search looks back into; a
// closing marker is far shorter.
const maxTailBytes = 256

// maxBlockValueBytes caps the body lines one block gives the cross-file pass: 4 MiB, as
// much as a block an in-memory scan sees can hold (ScanBytes scans at most one chunk in
// place), about 65,000 lines of a key body. Past it a copy of a line elsewhere is not
// looked for (a copy of the whole block is still found by the rule itself): the pass's
// memory grows with its values, and each line found is a finding.
const maxBlockValueBytes = chunkBytes

// startBlock begins following ob, found in chunk (whose first byte is file offset base
// and on line line0). The head it can see is judged now: the rule's allowlists run on at
// most blockJudgeBytes of it.
func (s *Scanner) startBlock(ob *openBlock, chunk []byte, base int64, line0 int) {
	r := &s.rules[ob.rule]
	before := chunk[:ob.start]
	ob.abs = base + int64(ob.start)
	ob.line = line0 + bytes.Count(before, nl)
	ob.col = utf8.RuneCount(before[bytes.LastIndexByte(before, '\n')+1:]) + 1
	ob.fed = ob.abs
	ob.h = s.fpKeyed.Clone()
	ob.h.WriteString(r.id)
	ob.h.Write([]byte{0})
	head := chunk[ob.start:min(len(chunk), ob.start+blockJudgeBytes)]
	ob.rejected = len(head)-(ob.markerEnd-ob.start) < minBlockBody || !r.isSecret(head)
	ob.head = bytes.Clone(chunk[ob.start:min(len(chunk), ob.start+16)])
}

// feed gives ob the bytes data, which start at file offset at == ob.fed. It reports the
// file offset just past the closing marker when data holds it, or abandon when another
// opening marker comes first (that one is the block; the caller's own scan finds it).
func (s *Scanner) feed(ob *openBlock, data []byte, at int64) (closeEnd int64, closed, abandon bool) {
	r := &s.rules[ob.rule]
	region := append(slices.Clip(ob.tail), data...)
	off := len(ob.tail) // region[off] is file offset at
	searchFrom := 0
	if at == ob.abs {
		searchFrom = off + ob.markerEnd - ob.start // past our own opening marker
	}
	e := r.end.FindIndex(region[searchFrom:])
	if b := r.re.FindIndex(region[searchFrom:]); b != nil && (e == nil || b[0] < e[0]) && at != ob.abs {
		return 0, false, true
	}
	n := len(data)
	if e != nil {
		n = searchFrom + e[1] - off
	}
	part := data[:n]
	ob.h.Write(part)
	for _, c := range part {
		if c&0xC0 != 0x80 {
			ob.runes++
		}
	}
	if ob.valueSize < maxBlockValueBytes {
		n := len(ob.values)
		ob.values = appendValues(ob.values, part[:min(len(part), lineEnd(part, maxBlockValueBytes-ob.valueSize))])
		for _, v := range ob.values[n:] {
			ob.valueSize += len(v)
		}
	}
	ob.fed = at + int64(n)
	if e != nil {
		return ob.fed, true, false
	}
	ob.tail = bytes.Clone(region[max(0, len(region)-maxTailBytes):])
	return 0, false, false
}

// lineEnd is the end of the last whole line of b within its first n bytes (n itself when
// there is none), so a block's values stop at a line's end.
func lineEnd(b []byte, n int) int {
	if n >= len(b) {
		return len(b)
	}
	if i := bytes.LastIndexByte(b[:n], '\n'); i >= 0 {
		return i + 1
	}
	return n
}

// finish turns a closed block into its hit.
func (s *Scanner) finish(ob *openBlock) hit {
	r := &s.rules[ob.rule]
	var sum [8]byte
	ob.h.Digest().Read(sum[:])
	return hit{Finding: Finding{
		Line: ob.line, Column: ob.col, Rule: r.id, Description: r.desc, Kind: r.kind, Severity: r.severity,
		Match:       maskHead(ob.head, ob.runes),
		Fingerprint: fmt.Sprintf("%s:%x", r.id, sum),
		Start:       ob.abs, End: ob.fed,
	}, values: ob.values}
}
