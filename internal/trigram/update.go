package trigram

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
)

// ErrTooManyChanges means Update would hold more new postings in memory
// than a build does before it spills: the caller builds instead (the file
// at dst is removed).
var ErrTooManyChanges = errors.New("trigram: too many changed files to update in memory")

// Update writes to dst exactly what Build(files) would, reading only some
// of the files: from[i] is the id in prev of a file whose content is that
// of files[i] (a refresh knows it from the content hash), whose trigrams
// are taken from prev, or -1 for a file to read. The ids taken must keep
// their order (files are sorted by path and a reused file keeps its path,
// so they do). Each of prev's posting lists is decoded, renumbered and
// merged with the read files' lists: the cost is that of the index, not of
// the tree. Past maxPairs new postings it stops with ErrTooManyChanges.
func Update(ctx context.Context, prev *Index, files []File, from []int, dst string) error {
	return UpdateWith(ctx, prev, files, from, nil, dst)
}

// UpdateWith is Update that can also read what prev indexed: old(id)
// gives the content prev indexed under id, for ids no file keeps. When
// every kept file keeps its id (edits in place, deletions, files added
// after the last) and old gives each dropped id, a posting list holding
// none of the dropped files' trigrams and gaining no new file is copied
// as it is, without decoding: an edit costs a copy of the index plus the
// lists of the trigrams of the files it touched. old's content must be
// what prev indexed (the caller checks it against a hash): a list it
// misses would keep a dropped id. Otherwise UpdateWith is Update.
func UpdateWith(ctx context.Context, prev *Index, files []File, from []int, old func(id int) (File, bool), dst string) (err error) {
	if len(from) != len(files) {
		return fmt.Errorf("trigram: update: %d files, %d sources", len(files), len(from))
	}
	renum := make([]int64, len(prev.paths)) // prev id -> new id, or -1
	for i := range renum {
		renum[i] = -1
	}
	last := -1
	for i, old := range from {
		if old < 0 {
			continue
		}
		if old >= len(prev.paths) || old <= last {
			return fmt.Errorf("trigram: update: file %d takes prev id %d out of order", i, old)
		}
		renum[old], last = int64(i), old
	}

	b := &builder{}
	sp := &splitter{seen: make([]uint64, 1<<24/64), buf: make([]byte, 64<<10)}
	var set []uint32
	// dirty marks the trigrams of the dropped files, when copying the
	// other lists is sound (identity).
	identity := old != nil
	for id, nid := range renum {
		if nid >= 0 && nid != int64(id) {
			identity = false
			break
		}
	}
	var dirty []uint64
	if identity {
		dirty = make([]uint64, 1<<24/64)
		for id, nid := range renum {
			if nid >= 0 {
				continue
			}
			f, ok := old(id)
			if !ok {
				identity = false
				break
			}
			if set, _, err = sp.split(f, set[:0]); err != nil {
				return fmt.Errorf("index %s (previous): %w", f.Path, err)
			}
			for _, t := range set {
				dirty[t/64] |= 1 << (t % 64)
			}
		}
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := out.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(dst)
		}
	}()
	w := &countingWriter{w: bufio.NewWriterSize(out, 256<<10), crc: crc32.NewIEEE()}
	w.header(files)
	filesOff := w.n
	w.uvarint(uint64(len(files)))
	for id, f := range files {
		if err := ctx.Err(); err != nil {
			return err
		}
		var size int64
		if old := from[id]; old >= 0 {
			size = prev.sizes[old]
		} else {
			if set, size, err = sp.split(f, set[:0]); err != nil {
				return fmt.Errorf("index %s: %w", f.Path, err)
			}
			for _, t := range set {
				b.post = append(b.post, uint64(t)<<32|uint64(id))
			}
		}
		w.uvarint(uint64(len(f.Path)))
		w.write([]byte(f.Path))
		w.uvarint(uint64(size))
		if len(b.post) >= maxPairs {
			return ErrTooManyChanges
		}
	}
	postingsOff := w.n
	b.sortPost()

	// Merge prev's lists (renumbered) with the new pairs, trigram by
	// trigram, both ascending; a trigram left with no file is dropped, as
	// Build never writes one.
	var table, data []byte
	var ids []int64
	// Lists copied as they are lie one after another in prev.post: each
	// stretch of them is written at once (one write per list cost a third
	// of an edit's update).
	var copyFrom, copyTo uint32
	flushCopies := func() {
		w.write(prev.post[copyFrom:copyTo])
		copyFrom, copyTo = 0, 0
	}
	emit := func(t uint32) {
		if len(ids) == 0 {
			return
		}
		flushCopies()
		data = data[:0]
		lastID := int64(-1)
		for _, id := range ids {
			data = binary.AppendUvarint(data, uint64(id-lastID))
			lastID = id
		}
		table = append(table, byte(t>>16), byte(t>>8), byte(t))
		table = binary.AppendUvarint(table, uint64(len(ids)))
		table = binary.AppendUvarint(table, uint64(len(data)))
		w.write(data)
		b.trigrams++
	}
	var olds []int64
	j := 0
	for i := 0; i < len(prev.table) || j < len(b.post); {
		if i%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		var t uint32
		switch {
		case i == len(prev.table):
			t = uint32(b.post[j] >> 32)
		case j == len(b.post):
			t = prev.table[i].tri
		default:
			t = min(prev.table[i].tri, uint32(b.post[j]>>32))
		}
		if identity && i < len(prev.table) && prev.table[i].tri == t &&
			(j == len(b.post) || uint32(b.post[j]>>32) != t) && dirty[t/64]&(1<<(t%64)) == 0 {
			// No dropped file had t and no read file has it: the list is
			// the same ids under the same numbers, byte for byte.
			e := prev.table[i]
			if copyTo != e.off {
				flushCopies()
				copyFrom = e.off
			}
			copyTo = e.off + e.n
			table = append(table, byte(t>>16), byte(t>>8), byte(t))
			table = binary.AppendUvarint(table, uint64(e.count))
			table = binary.AppendUvarint(table, uint64(e.n))
			b.trigrams++
			i++
			continue
		}
		olds = olds[:0]
		if i < len(prev.table) && prev.table[i].tri == t {
			e := prev.table[i]
			p := prev.post[e.off : e.off+e.n]
			id := int64(-1)
			for len(p) > 0 {
				d, n := binary.Uvarint(p)
				if n <= 0 || d == 0 {
					return fmt.Errorf("%w: posting list", ErrDamaged)
				}
				p = p[n:]
				id += int64(d)
				if id >= int64(len(renum)) {
					return fmt.Errorf("%w: posting list", ErrDamaged)
				}
				if nid := renum[id]; nid >= 0 {
					olds = append(olds, nid)
				}
			}
			i++
		}
		// Both lists ascend: merge them.
		ids = ids[:0]
		k := 0
		for ; j < len(b.post) && uint32(b.post[j]>>32) == t; j++ {
			nid := int64(uint32(b.post[j]))
			for k < len(olds) && olds[k] < nid {
				ids = append(ids, olds[k])
				k++
			}
			ids = append(ids, nid)
		}
		ids = append(ids, olds[k:]...)
		emit(t)
	}
	flushCopies()
	return w.finish(table, filesOff, postingsOff, b.trigrams)
}
