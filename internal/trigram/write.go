// Package trigram owns OUT/search.index: for every staged file, the set of
// three-byte sequences it contains, so that a search can open only the files
// that can match (google/codesearch's design: Russ Cox, "Regular Expression
// Matching with a Trigram Index").
//
// The query side is codesearch's own planner (index.RegexpQuery), which
// turns a regular expression into the trigrams any match must contain. The
// file is written and read here: codesearch's writer and reader end the
// process with log.Fatal on a write error or a damaged index, share global
// sort buffers between writers, and put their temporary files in $TMPDIR,
// none of which a pipeline that must fail cleanly or a long-running server
// can accept.
//
// File layout (integers are unsigned varints unless said otherwise):
//
//	"repoprep trigram index v2\n"
//	contents: 32 bytes, the content digest of the indexed files (Digest)
//	files:    count, then per file: path length, path, staged size in bytes
//	postings: per trigram, ascending: file-id deltas (first is id+1)
//	table:    per trigram, ascending: 3 trigram bytes, file count, posting bytes
//	footer:   5 × uint64 big-endian: files, postings, table offsets, trigram
//	          count, CRC-32 (IEEE) of every byte before it
//	"\nrepoprep trigram end\n"
//
// The content digest binds the index to what it indexes: a reader that
// holds each file's hash (files.json's) computes the same digest and
// refuses an index built from anything else (copied from another snapshot
// with the same names, left from an older run), which the checksum, a
// guard against damage only, would take. v1 had no digest.
package trigram

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
)

const (
	magic      = "repoprep trigram index v2\n"
	endMagic   = "\nrepoprep trigram end\n"
	footerSize = 5*8 + len(endMagic)
	headerSize = len(magic) + DigestSize // the magic and the content digest
)

// maxPairs bounds the (trigram, file) pairs held in memory while building
// (8 bytes each, twice while sorting: 32 MiB): past it they are flushed to
// a run file and merged at the end, so memory does not grow with the tree.
// Go's src/ makes about 9 million. A variable so tests can force many runs.
var maxPairs = 2 << 20

// File is one file to index: its name in the index and how to read it.
type File struct {
	Path string
	// Hash is the BLAKE3 of what Open gives (files.json's hash of the
	// staged text): the index records the digest of every file's path and
	// hash, not the hash of what it read, so the caller vouches for it.
	Hash [32]byte
	// Open reads the file; nil when the build is given an Opener
	// (BuildOpen), which a long list shares instead of a closure a file.
	Open func() (io.ReadCloser, error)
	Size int64 // its size if known, else 0: what it weighs in the split window
}

// Opener reads the file at a File's Path: one for every file of a build
// (BuildOpen), where a closure in each File would cost 32 bytes a file
// for as long as the list is held.
type Opener func(path string) (io.ReadCloser, error)

// Build indexes files, in the given order (their ids), and writes the index
// to dst. Temporary run files go in tmpDir and are removed before it
// returns. A file that cannot be read fails the build: the index must list
// exactly the staged files.
func Build(ctx context.Context, files []File, dst, tmpDir string) error {
	return BuildWorkers(ctx, files, dst, tmpDir, 1)
}

// BuildWorkers is Build with the work spread over workers goroutines: the
// files are read and split into trigrams a few files ahead of the one being
// added, and the pairs are sorted and merged by as many partitions, each
// owning one range of trigrams (cut where the trigrams of files sampled over
// the list split evenly). Each partition still takes the pairs in id
// order, and the index lists the partitions' trigrams in ascending order,
// so the index is the same byte for byte whatever the number of workers.
func BuildWorkers(ctx context.Context, files []File, dst, tmpDir string, workers int) error {
	return BuildOpen(ctx, files, nil, dst, tmpDir, workers)
}

// BuildOpen is BuildWorkers reading each file whose Open is nil with
// open.
func BuildOpen(ctx context.Context, files []File, open Opener, dst, tmpDir string, workers int) (err error) {
	workers = max(workers, 1)
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := out.Close(); err == nil {
			err = cerr
		}
	}()
	w := &countingWriter{w: bufio.NewWriterSize(out, 256<<10), crc: crc32.NewIEEE()}

	w.header(files)
	filesOff := w.n
	w.uvarint(uint64(len(files)))
	n := min(workers, maxPartitions)
	var points []uint32
	if n > 1 {
		if points, err = samplePoints(files, n, open); err != nil {
			return err
		}
	}
	sets := splitAll(ctx, files, workers, open, points)
	defer sets.stop()
	parts := newPartitions(points, tmpDir, maxPairs/n)
	defer parts.remove()
	parts.start(ctx, sets)
	for id, f := range files {
		set := sets.next(id)
		if set.err != nil {
			parts.finish()
			return fmt.Errorf("index %s: %w", f.Path, set.err)
		}
		if err := ctx.Err(); err != nil {
			parts.finish()
			return err
		}
		w.uvarint(uint64(len(f.Path)))
		w.write([]byte(f.Path))
		w.uvarint(uint64(set.size))
		parts.add(set, id)
	}
	if err := parts.finish(); err != nil {
		return err
	}
	postingsOff := w.n
	table, trigrams, err := parts.merge(ctx, w)
	if err != nil {
		return err
	}
	return w.finish(filesOff, postingsOff, trigrams, table)
}

// sampleFiles is how many files, spread evenly over the list, decide where
// the partitions' ranges meet. The first files of a tree are no sample: on
// Go's src/ its first eight (scripts and READMEs) gave partition 0 59% of
// the pairs, where 64 spread over the list give 50.7%, as all of them do.
const sampleFiles = 64

// samplePoints splits sampleFiles files spread over files and returns
// where parts partitions meet. Only the count of each first byte is kept,
// so a sample of large files costs no more memory than the build does.
func samplePoints(files []File, parts int, open Opener) ([]uint32, error) {
	sp := &splitter{seen: make([]uint64, 1<<24/64), buf: make([]byte, 64<<10), open: open}
	var (
		hist     [256]int
		trigrams []uint32
		err      error
	)
	k := min(len(files), sampleFiles)
	for i := range k {
		f := files[i*len(files)/k]
		if trigrams, _, err = sp.split(f, trigrams[:0]); err != nil {
			return nil, fmt.Errorf("index %s: %w", f.Path, err)
		}
		countLeads(&hist, trigrams)
	}
	return splitPoints(&hist, parts), nil
}

// countLeads adds each trigram's first byte to hist.
func countLeads(hist *[256]int, trigrams []uint32) {
	for _, t := range trigrams {
		hist[t>>16]++
	}
}

// splitPoints returns the trigrams at which parts partitions meet: the
// first trigram bytes that cut the trigrams counted in hist (by first
// byte) into about equal shares. Every partition's range is non-empty.
func splitPoints(hist *[256]int, parts int) []uint32 {
	total := 0
	for _, n := range hist {
		total += n
	}
	points := make([]uint32, 0, parts-1)
	lead, below := 0, 0 // below: the trigrams whose first byte is below lead
	for k := 1; k < parts; k++ {
		lead++
		below += hist[lead-1]
		for lead < 256-(parts-k) && below < total*k/parts {
			below += hist[lead]
			lead++
		}
		points = append(points, uint32(lead)<<16)
	}
	return points
}

// finish writes the trigram table, the footer (the three section
// offsets, the trigram count, the checksum of everything before it) and
// the end magic, and flushes.
func (w *countingWriter) finish(filesOff, postingsOff int64, trigrams int, table ...[]byte) error {
	tableOff := w.n
	for _, piece := range table {
		w.write(piece)
	}
	var foot [5 * 8]byte
	binary.BigEndian.PutUint64(foot[0:], uint64(filesOff))
	binary.BigEndian.PutUint64(foot[8:], uint64(postingsOff))
	binary.BigEndian.PutUint64(foot[16:], uint64(tableOff))
	binary.BigEndian.PutUint64(foot[24:], uint64(trigrams))
	w.write(foot[:32])
	binary.BigEndian.PutUint64(foot[32:], uint64(w.crc.Sum32()))
	w.write(foot[32:])
	w.write([]byte(endMagic))
	if w.err != nil {
		return w.err
	}
	return w.w.Flush()
}

type builder struct {
	post     []uint64 // (trigram<<32 | id) pairs, appended in id order
	sortTmp  []uint64
	runs     []string // flushed run files, in id order
	tmpDir   string
	trigrams int // distinct trigrams written
}

// fileSet is one file's distinct trigrams, grouped by the partition that
// owns them (partitions ascending; within one, in the order they first
// occur): partition k's are trigrams[ends[k-1]:ends[k]]. The splitting
// worker groups them, so that each partition copies its own share
// without testing every trigram against its range, a branch taken about
// every other time at two partitions (on Go's src/, partition.add's own
// CPU 0.17 → 0.11 s at two workers; BenchmarkBuildGoSrc's CPU 0.91×).
type fileSet struct {
	trigrams []uint32
	ends     [maxPartitions]int32
	size     int64
	err      error
	users    atomic.Int32 // partitions yet to add it
	weight   int64        // its share of the window
}

// splitter reads files and splits them into trigram sets, each with its own
// bitmap of the trigrams seen (2 MiB).
type splitter struct {
	seen []uint64
	buf  []byte
	open Opener   // for a File without Open; nil: every File has one
	tmp  []uint32 // what group scatters a set into
}

// owners maps a trigram's first byte to the partition that owns it.
type owners struct {
	of    [256]uint8
	parts int
}

// newOwners returns the owners of the ranges that points (ascending
// trigrams, each a first byte shifted left by 16: splitPoints) cut.
func newOwners(points []uint32) *owners {
	o := &owners{parts: len(points) + 1}
	k := 0
	for lead := range 256 {
		for k < len(points) && uint32(lead)<<16 >= points[k] {
			k++
		}
		o.of[lead] = uint8(k)
	}
	return o
}

// group orders set's trigrams by owning partition and sets set.ends; the
// order within a partition's share is kept.
func (sp *splitter) group(set *fileSet, o *owners) {
	if o.parts == 1 {
		set.ends[0] = int32(len(set.trigrams))
		return
	}
	var count [maxPartitions]int32
	for _, t := range set.trigrams {
		count[o.of[t>>16]]++
	}
	var at [maxPartitions]int32 // where each partition's next trigram goes
	sum := int32(0)
	for k := range o.parts {
		at[k] = sum
		sum += count[k]
		set.ends[k] = sum
	}
	sp.tmp = slices.Grow(sp.tmp[:0], len(set.trigrams))[:len(set.trigrams)]
	for _, t := range set.trigrams {
		k := o.of[t>>16]
		sp.tmp[at[k]] = t
		at[k]++
	}
	set.trigrams, sp.tmp = sp.tmp, set.trigrams
}

// share is partition k's trigrams of set.
func (set *fileSet) share(k int) []uint32 {
	lo := int32(0)
	if k > 0 {
		lo = set.ends[k-1]
	}
	return set.trigrams[lo:set.ends[k]]
}

// split reads one file and returns each distinct trigram in it, appended
// to dst.
func (sp *splitter) split(f File, dst []uint32) ([]uint32, int64, error) {
	var (
		rc  io.ReadCloser
		err error
	)
	if f.Open == nil && sp.open != nil {
		rc, err = sp.open(f.Path)
	} else {
		rc, err = f.Open()
	}
	if err != nil {
		return dst, 0, err
	}
	defer rc.Close()
	var (
		tv   uint32
		size int64
	)
	seen := sp.seen
	for {
		n, err := rc.Read(sp.buf)
		buf := sp.buf[:n]
		for size < 2 && len(buf) > 0 { // a trigram needs three bytes
			tv = tv<<8 | uint32(buf[0])
			buf = buf[1:]
			size++
		}
		size += int64(len(buf))
		dst = addTrigrams(seen, dst, tv, buf)
		if len(buf) >= 2 {
			tv = uint32(buf[len(buf)-2])<<8 | uint32(buf[len(buf)-1])
		} else if len(buf) == 1 {
			tv = (tv<<8 | uint32(buf[0])) & 0xffff
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return dst, 0, err
		}
	}
	for _, t := range dst {
		sp.seen[t/64] = 0
	}
	return dst, size, nil
}

// addTrigrams appends to dst each trigram ending in buf that seen does
// not hold, and adds it to seen; tv holds the two bytes before buf. A
// file's set is a set: the partitions sort the pairs by trigram, so the
// order within one does not matter. A longer buf is taken as four
// quarters at once, so that four bytes' bitmap lookups are under way
// together (1.25 times the bytes per second of one at a time on Go's
// source).
func addTrigrams(seen []uint64, dst []uint32, tv uint32, buf []byte) []uint32 {
	q := len(buf) / 4
	if q < 64 {
		return addTrigramsFrom(seen, dst, tv, buf)
	}
	seen = seen[:1<<24/64] // indexed by a 24-bit trigram / 64: no bounds check
	b0, b1, b2, b3 := buf[:q], buf[q : 2*q][:q], buf[2*q : 3*q][:q], buf[3*q : 4*q][:q]
	v0 := tv
	v1 := uint32(buf[q-2])<<8 | uint32(buf[q-1])
	v2 := uint32(buf[2*q-2])<<8 | uint32(buf[2*q-1])
	v3 := uint32(buf[3*q-2])<<8 | uint32(buf[3*q-1])
	for i := range b0 {
		v0 = (v0<<8 | uint32(b0[i])) & (1<<24 - 1)
		v1 = (v1<<8 | uint32(b1[i])) & (1<<24 - 1)
		v2 = (v2<<8 | uint32(b2[i])) & (1<<24 - 1)
		v3 = (v3<<8 | uint32(b3[i])) & (1<<24 - 1)
		dst = addNew(seen, dst, v0)
		dst = addNew(seen, dst, v1)
		dst = addNew(seen, dst, v2)
		dst = addNew(seen, dst, v3)
	}
	return addTrigramsFrom(seen, dst, v3, buf[4*q:])
}

// addTrigramsFrom is addTrigrams one byte at a time.
func addTrigramsFrom(seen []uint64, dst []uint32, tv uint32, buf []byte) []uint32 {
	for _, c := range buf {
		tv = (tv<<8 | uint32(c)) & (1<<24 - 1)
		dst = addNew(seen, dst, tv)
	}
	return dst
}

// addNew appends trigram t to dst and adds it to seen, unless seen holds
// it already.
func addNew(seen []uint64, dst []uint32, t uint32) []uint32 {
	if w, bit := t/64, uint64(1)<<(t%64); seen[w]&bit == 0 {
		seen[w] |= bit
		dst = append(dst, t)
	}
	return dst
}

// sets hands out the files' trigram sets in id order while workers split
// the files ahead of it, within a window (see window).
type sets struct {
	// ready holds file id's set in ready[id%len(ready)], one slot per
	// file the window admits: ids are admitted and leave in order, so id
	// is admitted only once id-len(ready) has been handed out and left.
	// Nothing is kept per file of the tree.
	ready []chan *fileSet
	win   window
	quit  chan struct{}
	free  sync.Pool // *fileSet, their trigram slices reused
}

// The window of files split ahead of the one being added: wide enough that
// the splitting goes on while a partition sorts a run, and bounded in bytes,
// as a file's trigram set holds fewer trigrams than it has bytes.
const (
	windowFilesPerWorker = 64
	windowBytes          = 8 << 20
	unknownSizeBytes     = 64 << 10 // the weight of a file of unknown size
)

// window admits files to be split in id order, while at most
// windowFilesPerWorker per worker and windowBytes of them are split or
// waiting to be added; one file always fits. As ids
// are admitted in order and added in order, the file the build waits for
// has always been admitted, so the window never blocks the build.
type window struct {
	mu       sync.Mutex
	cond     sync.Cond
	next     int // the next id to admit
	files    int // admitted and not yet added
	bytes    int64
	maxFiles int
	stopped  bool
}

func (w *window) enter(files []File) (id int, weight int64, ok bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for {
		if w.stopped || w.next >= len(files) {
			return 0, 0, false
		}
		weight = files[w.next].Size
		if weight <= 0 {
			weight = unknownSizeBytes
		}
		if w.files == 0 || w.files < w.maxFiles && w.bytes+weight <= windowBytes {
			id = w.next
			w.next++
			w.files++
			w.bytes += weight
			return id, weight, true
		}
		w.cond.Wait()
	}
}

func (w *window) leave(weight int64) {
	w.mu.Lock()
	w.files--
	w.bytes -= weight
	w.mu.Unlock()
	w.cond.Broadcast()
}

func (w *window) stop() {
	w.mu.Lock()
	w.stopped = true
	w.mu.Unlock()
	w.cond.Broadcast()
}

// splitAll starts workers splitting files, each set grouped by the
// partitions that points cut.
func splitAll(ctx context.Context, files []File, workers int, open Opener, points []uint32) *sets {
	own := newOwners(points)
	s := &sets{quit: make(chan struct{})}
	s.win.cond.L = &s.win.mu
	s.win.maxFiles = windowFilesPerWorker * workers
	s.ready = make([]chan *fileSet, min(s.win.maxFiles, len(files)))
	for i := range s.ready {
		s.ready[i] = make(chan *fileSet, 1)
	}
	for range workers {
		go func() {
			sp := &splitter{seen: make([]uint64, 1<<24/64), buf: make([]byte, 64<<10), open: open}
			for {
				id, weight, ok := s.win.enter(files)
				if !ok {
					return
				}
				set, _ := s.free.Get().(*fileSet)
				if set == nil {
					set = &fileSet{}
				}
				set.weight = weight
				if set.err = ctx.Err(); set.err == nil {
					set.trigrams, set.size, set.err = sp.split(files[id], set.trigrams[:0])
				}
				if set.err == nil {
					sp.group(set, own)
				}
				select {
				case s.ready[id%len(s.ready)] <- set:
				case <-s.quit:
					return
				}
			}
		}()
	}
	return s
}

// next waits for file id's set; done gives it back once used.
func (s *sets) next(id int) *fileSet { return <-s.ready[id%len(s.ready)] }

func (s *sets) done(set *fileSet) {
	s.win.leave(set.weight)
	s.free.Put(set)
}

// stop ends the workers once the build is over or has failed.
func (s *sets) stop() {
	close(s.quit)
	s.win.stop()
}

// sortPost orders the pairs by trigram, keeping id order within one: two
// stable 12-bit radix passes over the trigram bits (codesearch's sort).
func (b *builder) sortPost() {
	const k = 12
	if cap(b.sortTmp) < len(b.post) {
		// As large as the pairs may grow, so that the next run, a little
		// longer, does not throw this one away: each was 8 MiB of garbage
		// in a heap that runs near its limit while the index is built.
		b.sortTmp = make([]uint64, max(len(b.post), cap(b.post)))
	}
	src, dst := b.post, b.sortTmp[:len(b.post)]
	for _, shift := range []uint{32, 32 + k} {
		var count [1 << k]int
		for _, p := range src {
			count[p>>shift&(1<<k-1)]++
		}
		sum := 0
		for i, c := range count {
			count[i] = sum
			sum += c
		}
		for _, p := range src {
			r := p >> shift & (1<<k - 1)
			dst[count[r]] = p
			count[r]++
		}
		src, dst = dst, src
	}
	// Two passes: the sorted pairs are back in b.post.
}

// groups calls fn for each trigram of the sorted pairs with its count and
// delta-encoded ids (the first is id+1).
func (b *builder) groups(fn func(t uint32, count uint32, data []byte) error) error {
	var data []byte
	for i := 0; i < len(b.post); {
		t := uint32(b.post[i] >> 32)
		data = data[:0]
		last, n := int64(-1), uint32(0)
		for ; i < len(b.post) && uint32(b.post[i]>>32) == t; i++ {
			id := int64(uint32(b.post[i]))
			data = binary.AppendUvarint(data, uint64(id-last))
			last = id
			n++
		}
		if err := fn(t, n, data); err != nil {
			return err
		}
	}
	return nil
}

// flushRun writes the pairs held in memory to a run file, grouped by
// trigram, and empties them. A run's lists start from id -1, so the merge
// can decode each on its own.
func (b *builder) flushRun() error {
	f, err := os.CreateTemp(b.tmpDir, "trigram-run-*")
	if err != nil {
		return err
	}
	b.runs = append(b.runs, f.Name())
	w := bufio.NewWriterSize(f, 256<<10)
	b.sortPost()
	var hdr []byte
	b.groups(func(t, count uint32, data []byte) error {
		hdr = append(hdr[:0], byte(t>>16), byte(t>>8), byte(t))
		hdr = binary.AppendUvarint(hdr, uint64(count))
		hdr = binary.AppendUvarint(hdr, uint64(len(data)))
		w.Write(hdr)
		w.Write(data)
		return nil
	})
	b.post = b.post[:0]
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func (b *builder) removeRuns() {
	for _, r := range b.runs {
		os.Remove(r)
	}
}

// run is one flushed run being merged.
type run struct {
	r     *bufio.Reader
	f     *os.File
	tri   uint32
	count uint32
	data  []byte
	done  bool
}

func (r *run) next() error {
	var t [3]byte
	if _, err := io.ReadFull(r.r, t[:]); err != nil {
		if errors.Is(err, io.EOF) {
			r.done = true
			return nil
		}
		return err
	}
	r.tri = uint32(t[0])<<16 | uint32(t[1])<<8 | uint32(t[2])
	count, err := binary.ReadUvarint(r.r)
	if err != nil {
		return err
	}
	n, err := binary.ReadUvarint(r.r)
	if err != nil {
		return err
	}
	r.count = uint32(count)
	r.data = slices.Grow(r.data[:0], int(n))[:n]
	_, err = io.ReadFull(r.r, r.data)
	return err
}

// merge writes every trigram's whole posting list, ascending, and returns
// the table that indexes them. Runs hold increasing id ranges, so a
// trigram's list is its lists from each run in order, re-based.
func (b *builder) merge(ctx context.Context, w *countingWriter) ([]byte, error) {
	var runs []*run
	defer func() {
		for _, r := range runs {
			r.f.Close()
		}
	}()
	if len(b.runs) > 0 {
		if err := b.flushRun(); err != nil { // the rest joins the runs
			return nil, err
		}
		for _, name := range b.runs {
			f, err := os.Open(name)
			if err != nil {
				return nil, err
			}
			r := &run{f: f, r: bufio.NewReaderSize(f, 64<<10)}
			runs = append(runs, r)
			if err := r.next(); err != nil {
				return nil, fmt.Errorf("read %s: %w", filepath.Base(name), err)
			}
		}
	}
	var table, post []byte
	emit := func(t uint32, count uint32, data []byte) {
		table = append(table, byte(t>>16), byte(t>>8), byte(t))
		table = binary.AppendUvarint(table, uint64(count))
		table = binary.AppendUvarint(table, uint64(len(data)))
		w.write(data)
		b.trigrams++
	}
	if len(runs) == 0 { // everything fit in memory
		b.sortPost()
		b.groups(func(t, count uint32, data []byte) error { emit(t, count, data); return nil })
		return table, w.err
	}
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		lowest, any := uint32(0), false
		for _, r := range runs {
			if !r.done && (!any || r.tri < lowest) {
				lowest, any = r.tri, true
			}
		}
		if !any {
			return table, w.err
		}
		post = post[:0]
		last, count := int64(-1), uint32(0)
		for _, r := range runs {
			if r.done || r.tri != lowest {
				continue
			}
			id, data := int64(-1), r.data
			for len(data) > 0 {
				d, n := binary.Uvarint(data)
				if n <= 0 {
					return nil, errors.New("damaged trigram run file")
				}
				data = data[n:]
				id += int64(d)
				post = binary.AppendUvarint(post, uint64(id-last))
				last = id
			}
			count += r.count
			if err := r.next(); err != nil {
				return nil, err
			}
		}
		emit(lowest, count, post)
	}
}

// countingWriter tracks the offset and checksum of what it writes and keeps
// the first error, so the layout code reads straight through.
type countingWriter struct {
	w   *bufio.Writer
	crc interface {
		io.Writer
		Sum32() uint32
	}
	n   int64
	err error
	tmp []byte
}

func (c *countingWriter) write(p []byte) {
	if c.err != nil {
		return
	}
	c.crc.Write(p)
	_, c.err = c.w.Write(p)
	c.n += int64(len(p))
}

// header writes the magic and the content digest of files.
func (c *countingWriter) header(files []File) {
	d := NewDigest()
	for _, f := range files {
		d.Add(f.Path, f.Hash)
	}
	sum := d.Sum()
	c.write([]byte(magic))
	c.write(sum[:])
}

func (c *countingWriter) uvarint(v uint64) {
	c.tmp = binary.AppendUvarint(c.tmp[:0], v)
	c.write(c.tmp)
}
