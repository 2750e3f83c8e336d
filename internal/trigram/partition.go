package trigram

import (
	"bufio"
	"context"
	"errors"
	"io"
	"os"
	"slices"
	"sync"
)

// maxPartitions bounds the partitions of one build: past a few, more only
// shrinks each one's share of maxPairs, and so lengthens its merge.
const maxPartitions = 16

// partition builds the posting lists of one range of trigrams, [lo, hi),
// from every file's set, taken in id order.
type partition struct {
	builder
	k      int // its place among the partitions: which share of a fileSet it takes
	lo, hi uint32
	limit  int           // pairs held before a run is flushed
	in     chan addition // the sets, in id order
	table  []byte        // the merged range's table entries
	out    *os.File      // after the first partition: its merged postings
	err    error
}

// addition is one file's set handed to a partition.
type addition struct {
	set *fileSet
	id  int
}

// partitions splits the building of one index by trigram range: each
// partition sorts, flushes and merges its own pairs on its own goroutine,
// and the index lists the ranges one after the other.
type partitions struct {
	parts []*partition
	done  chan error // the first error of the adding, once every partition has stopped
}

// newPartitions returns one partition per range between points (ascending
// trigrams), each holding at most limit pairs before it flushes a run.
func newPartitions(points []uint32, tmpDir string, limit int) *partitions {
	ps := &partitions{done: make(chan error, 1)}
	lo := uint32(0)
	for _, hi := range append(points, 1<<24) {
		ps.parts = append(ps.parts, &partition{
			builder: builder{tmpDir: tmpDir},
			k:       len(ps.parts),
			lo:      lo, hi: hi,
			limit: max(limit, 1),
			in:    make(chan addition, 64),
		})
		lo = hi
	}
	return ps
}

// start runs the partitions, each adding the sets it is given and giving
// each back to s once every partition has added it.
func (ps *partitions) start(ctx context.Context, s *sets) {
	var wg sync.WaitGroup
	for _, p := range ps.parts {
		wg.Go(func() {
			for a := range p.in {
				if p.err == nil {
					p.err = ctx.Err()
				}
				if p.err == nil {
					p.err = p.add(a.set, a.id)
				}
				if a.set.users.Add(-1) == 0 {
					s.done(a.set)
				}
			}
		})
	}
	go func() {
		wg.Wait()
		var err error
		for _, p := range ps.parts {
			err = errors.Join(err, p.err)
		}
		ps.done <- err
	}()
}

// add hands file id's set to every partition.
func (ps *partitions) add(set *fileSet, id int) {
	set.users.Store(int32(len(ps.parts)))
	for _, p := range ps.parts {
		p.in <- addition{set, id}
	}
}

// finish says no set follows, waits until every partition has added what
// it was given, and returns the first error. Call it exactly once.
func (ps *partitions) finish() error {
	for _, p := range ps.parts {
		close(p.in)
	}
	return <-ps.done
}

// add appends the pairs of set that fall in p's range (its share, grouped
// by the splitter), flushing the pairs held to a run first if they would
// outgrow p.limit. Where the runs are cut does not change the index: the
// merge joins a trigram's lists from every run in id order.
func (p *partition) add(set *fileSet, id int) error {
	own := set.share(p.k)
	if len(p.post) > 0 && len(p.post)+len(own) > p.limit {
		if err := p.flushRun(); err != nil {
			return err
		}
	}
	if p.post == nil {
		p.post = make([]uint64, 0, p.limit)
	}
	n := len(p.post)
	p.post = slices.Grow(p.post, len(own))[:n+len(own)]
	dst := p.post[n:]
	for i, t := range own {
		dst[i] = uint64(t)<<32 | uint64(id)
	}
	return nil
}

// merge writes every range's posting lists to w, ascending, and returns
// the table that indexes them and the number of trigrams. The first range
// is merged straight into w while the others merge, each into a file of
// its own, which is then copied into w after the ranges before it.
func (ps *partitions) merge(ctx context.Context, w *countingWriter) ([]byte, int, error) {
	var wg sync.WaitGroup
	for _, p := range ps.parts[1:] {
		wg.Go(func() { p.err = p.mergeToFile(ctx) })
	}
	first := ps.parts[0]
	first.table, first.err = first.merge(ctx, w)
	wg.Wait()
	var (
		table    []byte
		trigrams int
	)
	buf := make([]byte, 256<<10)
	for _, p := range ps.parts {
		if p.err != nil {
			return nil, 0, p.err
		}
		if p.out != nil {
			if err := copyInto(w, p.out, buf); err != nil {
				return nil, 0, err
			}
		}
		table = append(table, p.table...)
		trigrams += p.trigrams
	}
	return table, trigrams, w.err
}

// mergeToFile merges p's range into a file of its own, left open at its
// start for the copy.
func (p *partition) mergeToFile(ctx context.Context) error {
	f, err := os.CreateTemp(p.tmpDir, "trigram-part-*")
	if err != nil {
		return err
	}
	p.out = f
	pw := &countingWriter{w: bufio.NewWriterSize(f, 256<<10), crc: noCRC{}}
	if p.table, err = p.merge(ctx, pw); err != nil {
		return err
	}
	if pw.err != nil {
		return pw.err
	}
	if err := pw.w.Flush(); err != nil {
		return err
	}
	_, err = f.Seek(0, io.SeekStart)
	return err
}

// copyInto copies what is left of f into w, through w's checksum.
func copyInto(w *countingWriter, f *os.File, buf []byte) error {
	for {
		n, err := f.Read(buf)
		w.write(buf[:n])
		if errors.Is(err, io.EOF) {
			return w.err
		}
		if err != nil {
			return err
		}
	}
}

// remove removes the partitions' run and merge files.
func (ps *partitions) remove() {
	for _, p := range ps.parts {
		p.removeRuns()
		if p.out != nil {
			p.out.Close()
			os.Remove(p.out.Name())
		}
	}
}

// noCRC is the checksum of a partition's own merge file: the index's
// checksum is taken when the file is copied into it.
type noCRC struct{}

func (noCRC) Write(p []byte) (int, error) { return len(p), nil }
func (noCRC) Sum32() uint32               { return 0 }
