package serve

import "sync"

// A read of 500 lines made about 50 KB of garbage of its own: the batch
// being counted, each segment's text and costs. Garbage is paid for twice,
// zeroing it and collecting it (the server's live heap, mostly the o200k
// tables, is scanned on every cycle), so these buffers are kept for the
// next read instead. They hold lines of the snapshot and never leave the
// read that took them: readFile gives the segments back once the answer
// is rendered into its own string.

// readBatch is readOne's batch of numbered lines being counted.
type readBatch struct {
	text  []byte
	ends  []int // offset in text after each line
	costs []int // each line's cost, while known
}

var readBatches = sync.Pool{New: func() any {
	return &readBatch{text: make([]byte, 0, 8<<10), ends: make([]int, 0, batchLines), costs: make([]int, 0, batchLines)}
}}

// segBufs holds segment texts, segCosts segment costs, for reuse.
var (
	segBufs  sync.Pool // *[]byte
	segCosts sync.Pool // *[]int
)

// maxPooledSegBytes bounds a segment text kept for reuse (maxSegmentCap
// is the most room a segment is given up front).
const maxPooledSegBytes = maxSegmentCap

// getSegText returns an empty buffer of at least size bytes' capacity.
func getSegText(size int) []byte {
	if bp, ok := segBufs.Get().(*[]byte); ok {
		if cap(*bp) >= size {
			return (*bp)[:0]
		}
		segBufs.Put(bp) // too small for this one; another read may fit it
	}
	return make([]byte, 0, size)
}

// cloneCosts is slices.Clone on a pooled slice; nil stays nil.
func cloneCosts(costs []int) []int {
	if costs == nil {
		return nil
	}
	if cp, ok := segCosts.Get().(*[]int); ok && cap(*cp) >= len(costs) {
		return append((*cp)[:0], costs...)
	}
	return append(make([]int, 0, max(len(costs), 512)), costs...)
}

// releaseSegments gives the segments' buffers back for reuse; the reads
// keep their segments' starts and counts (shown and next need them) but no
// text or costs.
func releaseSegments(reads []*fileRead) {
	for _, fr := range reads {
		for i := range fr.segs {
			sg := &fr.segs[i]
			if c := cap(sg.text); c > 0 && c <= maxPooledSegBytes {
				b := sg.text[:0]
				segBufs.Put(&b)
			}
			if cap(sg.costs) > 0 {
				c := sg.costs[:0]
				segCosts.Put(&c)
			}
			sg.text, sg.costs = nil, nil
		}
	}
}
