package trigram

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"slices"
)

// ErrTooManyChanges means Update would hold more new postings in memory
// than a build does before it spills: the caller builds instead (the file
// at dst is removed).
var ErrTooManyChanges = errors.New("trigram: too many changed files to update in memory")

// Update writes to dst exactly what Build(files) would, reading only some
// of the files: prev is the previous index, from Parse or ParseFiles (its
// table is checked as it is read: a damaged one is ErrDamaged, and dst is
// removed); from[i] is the id in prev of a file whose content is that
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
// every kept file keeps its id (edits in place, deletions of the last
// files, files added after the last) and old gives each dropped id, only
// the lists an id joins or leaves are decoded: a file edited in place
// (read under the id its previous content had) is compared with that
// content, and leaves the lists of the trigrams the edit took out and
// joins those of the trigrams it put in; a deleted file leaves all of
// its lists. Every other list, and its table entry, is copied as it is:
// an edit costs a copy of the index plus the lists of the trigrams it
// changed. old's content must be what prev indexed (the caller checks it
// against a hash): a list it misses would keep a dropped id. Otherwise
// UpdateWith is Update.
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
	// identity: every kept file keeps its id, and copying the lists no
	// id joins or leaves is sound.
	identity := old != nil
	for id, nid := range renum {
		if nid >= 0 && nid != int64(id) {
			identity = false
			break
		}
	}
	var edited map[int]File // id -> what prev indexed under it, for a file edited in place
	var gone []uint32       // the trigrams of the deleted files (past the last), to decode
	if identity {
		edited = map[int]File{}
		for id, nid := range renum {
			if nid >= 0 {
				continue
			}
			f, ok := old(id)
			if !ok {
				identity = false
				break
			}
			if id < len(files) {
				// files[id] is read (from[id] < 0: any other source would
				// renumber): the same id, another content.
				edited[id] = f
				continue
			}
			if set, _, err = sp.split(f, set[:0]); err != nil {
				return fmt.Errorf("index %s (previous): %w", f.Path, err)
			}
			gone = append(gone, set...)
			if len(gone) >= maxPairs {
				return ErrTooManyChanges
			}
		}
		if !identity {
			edited, gone = nil, nil
		}
		for id := range edited {
			renum[id] = int64(id) // kept: its lists change by the edit only (left)
		}
	}
	// left is, for the files edited in place, each (trigram<<32 | id) the
	// edit took out: those lists are decoded and lose the id. What it put
	// in goes into b.post; what it kept, nowhere.
	var left []uint64
	var before []uint32
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
			if was, ok := edited[id]; ok {
				if before, _, err = sp.split(was, before[:0]); err != nil {
					return fmt.Errorf("index %s (previous): %w", was.Path, err)
				}
				set, left = diffSets(set, before, left, uint64(id))
			}
			for _, t := range set {
				b.post = append(b.post, uint64(t)<<32|uint64(id))
			}
		}
		w.uvarint(uint64(len(f.Path)))
		w.write([]byte(f.Path))
		w.uvarint(uint64(size))
		if len(b.post)+len(left) >= maxPairs {
			return ErrTooManyChanges
		}
	}
	postingsOff := w.n
	b.sortPost()
	slices.Sort(left)
	slices.Sort(gone)

	// Merge prev's lists (renumbered) with the new pairs, trigram by
	// trigram, both ascending; a trigram left with no file is dropped, as
	// Build never writes one. prev's table is read as it is merged
	// (tableCursor): an edit copies nearly every entry.
	cur := newTableCursor(prev)
	if err := cur.next(); err != nil {
		return err
	}
	// The table is written after the postings: it is held as pieces,
	// stretches of prev's table copied as they are and entries made anew.
	var table [][]byte
	var fresh []byte
	var data []byte
	var ids []int64
	// Lists copied as they are lie one after another in prev's postings,
	// and their entries in prev's table: each stretch of them is written
	// at once (one write per list cost a third of an edit's update).
	var copyFrom, copyTo uint32
	var tableFrom, tableTo int
	flushCopies := func() {
		w.write(prev.rawPost[copyFrom:copyTo])
		if tableTo > tableFrom {
			table = append(table, prev.rawTable[tableFrom:tableTo])
		}
		copyFrom, copyTo, tableFrom, tableTo = 0, 0, 0, 0
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
		start := len(fresh)
		fresh = append(fresh, byte(t>>16), byte(t>>8), byte(t))
		fresh = binary.AppendUvarint(fresh, uint64(len(ids)))
		fresh = binary.AppendUvarint(fresh, uint64(len(data)))
		table = append(table, fresh[start:len(fresh):len(fresh)])
		w.write(data)
		b.trigrams++
	}
	var olds []int64
	j, lk, gk := 0, 0, 0
	for steps := 0; cur.ok || j < len(b.post); steps++ {
		if steps%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		var t uint32
		switch {
		case !cur.ok:
			t = uint32(b.post[j] >> 32)
		case j == len(b.post):
			t = cur.e.tri
		default:
			t = min(cur.e.tri, uint32(b.post[j]>>32))
		}
		for lk < len(left) && uint32(left[lk]>>32) < t {
			lk++
		}
		for gk < len(gone) && gone[gk] < t {
			gk++
		}
		if identity && cur.ok && cur.e.tri == t &&
			(j == len(b.post) || uint32(b.post[j]>>32) != t) &&
			(lk == len(left) || uint32(left[lk]>>32) != t) && (gk == len(gone) || gone[gk] != t) {
			// No id joins or leaves t's list: it holds the same ids under
			// the same numbers, byte for byte, and so does its entry.
			e := cur.e
			if copyTo != e.off {
				flushCopies()
				copyFrom, tableFrom = e.off, cur.at
			}
			copyTo, tableTo = e.off+e.n, cur.at+len(cur.raw)
			b.trigrams++
			if err := cur.next(); err != nil {
				return err
			}
			continue
		}
		olds = olds[:0]
		if cur.ok && cur.e.tri == t {
			e := cur.e
			p := prev.rawPost[e.off : e.off+e.n]
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
				// Both ascend: an id the edit took out of t comes up in turn.
				for lk < len(left) && left[lk] < uint64(t)<<32|uint64(id) {
					lk++
				}
				if lk < len(left) && left[lk] == uint64(t)<<32|uint64(id) {
					continue
				}
				if nid := renum[id]; nid >= 0 {
					olds = append(olds, nid)
				}
			}
			if err := cur.next(); err != nil {
				return err
			}
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
	return w.finish(filesOff, postingsOff, b.trigrams, table...)
}

// diffSets compares an edited file's trigrams (now) with its previous
// content's (before), both sets, sorting both: it returns the trigrams
// the edit put in (in now's storage) and appends to left each trigram
// it took out, as trigram<<32 | id.
func diffSets(now, before []uint32, left []uint64, id uint64) (added []uint32, _ []uint64) {
	slices.Sort(now)
	slices.Sort(before)
	added = now[:0]
	i, k := 0, 0
	for i < len(now) || k < len(before) {
		switch {
		case k == len(before) || i < len(now) && now[i] < before[k]:
			added = append(added, now[i]) // writes behind i: added never overtakes
			i++
		case i == len(now) || before[k] < now[i]:
			left = append(left, uint64(before[k])<<32|id)
			k++
		default: // kept
			i++
			k++
		}
	}
	return added, left
}
