package trigram

import "math/bits"

// tableCursor walks a previous index's table section one entry at a time,
// checking each as Parse does (ascending trigrams, a file count within
// the file list, posting bytes within the postings section, nothing left
// over), so an update reads the table once, as it merges, instead of
// decoding it whole first: a one-file edit of Go's src/ copies nearly all
// of its 600,000 entries. It also requires every number in canonical
// form, the form this package writes: an entry copied as it is then holds
// the bytes a build writes for it.
type tableCursor struct {
	r      reader
	whole  []byte // the table section
	nfiles uint64
	npost  uint64
	left   uint64 // entries the footer promises that are still to read
	off    uint64 // where the next entry's postings start
	e      entry  // the current entry, when ok
	raw    []byte // its bytes in the table section
	at     int    // where they start in it
	ok     bool   // e is an entry; false past the last
	begun  bool
}

func newTableCursor(ix *Index) *tableCursor {
	return &tableCursor{r: reader{b: ix.rawTable}, whole: ix.rawTable, nfiles: ix.nfiles, npost: uint64(len(ix.rawPost)), left: ix.ntri}
}

// next moves to the next entry (ok false past the last), or errs with
// ErrDamaged.
func (c *tableCursor) next() error {
	if c.left == 0 {
		c.ok = false
		if c.r.bad || len(c.r.b) != 0 || c.off != c.npost {
			return damaged("trigram table")
		}
		return nil
	}
	c.left--
	before := c.r.b
	t := c.r.bytes(3)
	count, n := c.r.uvarint(), c.r.uvarint()
	if c.r.bad || count == 0 || count > c.nfiles || n < count || c.off+n > c.npost {
		return damaged("trigram table")
	}
	size := len(before) - len(c.r.b)
	if size != 3+uvarintLen(count)+uvarintLen(n) {
		return damaged("trigram table: a number not in canonical form")
	}
	tri := uint32(t[0])<<16 | uint32(t[1])<<8 | uint32(t[2])
	if c.begun && tri <= c.e.tri {
		return damaged("trigram table out of order")
	}
	c.e = entry{tri: tri, count: uint32(count), off: uint32(c.off), n: uint32(n)}
	c.raw = before[:size]
	c.at = len(c.whole) - len(before)
	c.off += n
	c.ok, c.begun = true, true
	return nil
}

// uvarintLen is the length of v's canonical uvarint (binary.AppendUvarint's).
func uvarintLen(v uint64) int {
	return max(1, (bits.Len64(v)+6)/7)
}
