package extract

import (
	"encoding/binary"
	"sort"
	"unicode/utf16"
)

// docProps are the paragraph properties read.
type docProps struct {
	istd                uint16
	inTable, ttp        bool // in a table; the mark ending a row of the outermost table
	itap                int  // table depth, when given
	innerCell, innerTtp bool // a cell or row end of a nested table
	list                bool
	level               int
}

// depth is the table nesting of the paragraph, 0 outside tables.
func (p docProps) depth() int {
	if p.itap > 0 {
		return min(p.itap, maxTableDepth+1) // push refuses deeper
	}
	if p.inTable {
		return 1
	}
	return 0
}

// docPapx finds paragraph properties: PlcBtePapx maps ranges of
// WordDocument bytes to 512-byte FKP pages, each of which maps finer
// ranges to a PAPX (style and property modifiers).
type docPapx struct {
	wd  []byte
	fcs []byte // n+1 byte offsets
	pns []byte // n page numbers
	n   int
}

// readBtePapx reads the PlcBtePapx; nil when it is missing or malformed.
func readBtePapx(plc, wd []byte) *docPapx {
	if len(plc) < 12 || (len(plc)-4)%8 != 0 {
		return nil
	}
	n := (len(plc) - 4) / 8
	return &docPapx{wd: wd, fcs: plc[:4*(n+1)], pns: plc[4*(n+1):], n: n}
}

// at returns the properties of the paragraph whose mark is at byte fc;
// the zero value when anything on the way is missing.
func (x *docPapx) at(fc int64) docProps {
	if x == nil {
		return docProps{}
	}
	i := sort.Search(x.n, func(i int) bool { return int64(binary.LittleEndian.Uint32(x.fcs[4*i+4:])) > fc })
	if i >= x.n || int64(binary.LittleEndian.Uint32(x.fcs[4*i:])) > fc {
		return docProps{}
	}
	pn := int64(binary.LittleEndian.Uint32(x.pns[4*i:]) & 0x3FFFFF)
	if (pn+1)*512 > int64(len(x.wd)) {
		return docProps{}
	}
	fkp := x.wd[pn*512 : (pn+1)*512]
	crun := int(fkp[511])
	if 4*(crun+1)+13*crun > 511 {
		return docProps{}
	}
	j := sort.Search(crun, func(j int) bool { return int64(binary.LittleEndian.Uint32(fkp[4*j+4:])) > fc })
	if j >= crun {
		return docProps{}
	}
	off := 2 * int(fkp[4*(crun+1)+13*j])
	if off == 0 || off >= 511 {
		return docProps{}
	}
	// PapxInFkp: cb, and when it is 0 a second cb counting words.
	size, at := 2*int(fkp[off])-1, off+1
	if fkp[off] == 0 && off+1 < 511 {
		size, at = 2*int(fkp[off+1]), off+2
	}
	if size < 2 || at+size > 511 {
		return docProps{}
	}
	return papxProps(fkp[at : at+size])
}

// papxProps reads a GrpPrlAndIstd: the style, then property modifiers
// (sprms), of which the table, list and nesting ones are kept.
func papxProps(p []byte) docProps {
	props := docProps{istd: binary.LittleEndian.Uint16(p)}
	for pos := 2; pos+2 <= len(p); {
		op := binary.LittleEndian.Uint16(p[pos:])
		pos += 2
		size := 0
		switch op >> 13 { // spra: the operand's size
		case 0, 1:
			size = 1
		case 2, 4, 5:
			size = 2
		case 3:
			size = 4
		case 7:
			size = 3
		case 6: // variable: a size byte first (a size word for table definitions)
			if op == 0xD608 || op == 0xD606 {
				if pos+2 > len(p) {
					return props
				}
				size = 2 + int(binary.LittleEndian.Uint16(p[pos:])) - 1
			} else {
				if pos >= len(p) || p[pos] == 255 {
					return props
				}
				size = 1 + int(p[pos])
			}
		}
		if size < 0 || pos+size > len(p) {
			return props
		}
		arg := p[pos : pos+size]
		pos += size
		switch op {
		case 0x2416: // sprmPFInTable
			props.inTable = arg[0] != 0
		case 0x2417: // sprmPFTtp
			props.ttp = arg[0] != 0
		case 0x6649: // sprmPItap
			props.itap = int(min(binary.LittleEndian.Uint32(arg), 1<<16))
		case 0x244B: // sprmPFInnerTableCell
			props.innerCell = arg[0] != 0
		case 0x244C: // sprmPFInnerTtp
			props.innerTtp = arg[0] != 0
		case 0x460B: // sprmPIlfo: a list
			props.list = binary.LittleEndian.Uint16(arg) != 0
		case 0x260A: // sprmPIlvl
			props.level = int(arg[0])
		}
	}
	return props
}

// readStyles reads the style sheet (STSH) for each style's built-in id
// (sti): heading 1-9 are sti 1-9 whatever their name in the document's
// language. nil when it is missing or malformed.
func readStyles(stsh []byte) []uint16 {
	if len(stsh) < 4 {
		return nil
	}
	pos := 2 + int(binary.LittleEndian.Uint16(stsh)) // past cbStshi and Stshi
	if pos > len(stsh) {
		return nil
	}
	cstd := int(binary.LittleEndian.Uint16(stsh[2:]))
	var stis []uint16
	for range cstd {
		if pos+2 > len(stsh) {
			break
		}
		cb := int(binary.LittleEndian.Uint16(stsh[pos:]))
		pos += 2
		sti := uint16(0xFFF) // an empty slot
		if cb >= 2 && pos+2 <= len(stsh) {
			sti = binary.LittleEndian.Uint16(stsh[pos:]) & 0xFFF
		}
		stis = append(stis, sti)
		pos += cb
	}
	return stis
}

// maxDocNotes bounds the notes and comments whose numbers or authors are
// read; past it notes are numbered in order.
const maxDocNotes = 1 << 16

// docNotes numbers the notes as the body refers to them, footnotes and
// endnotes in one sequence.
type docNotes struct {
	byCP              map[int64]int // a reference's place in the body to its number
	footnote, endnote []int         // each note's number, in its part's order
	next              int           // numbers given without the plexes
}

// readNoteRefs reads PlcffndRef and PlcfendRef: the character position of
// each reference (n+1 positions, then n 2-byte flags).
func readNoteRefs(ftn, edn []byte) docNotes {
	type ref struct {
		cp      int64
		endnote bool
		i       int
	}
	var refs []ref
	for k, plc := range [][]byte{ftn, edn} {
		n := (len(plc) - 4) / 6
		for i := 0; i < min(n, maxDocNotes); i++ {
			refs = append(refs, ref{int64(binary.LittleEndian.Uint32(plc[4*i:])), k == 1, i})
		}
	}
	sort.SliceStable(refs, func(i, j int) bool { return refs[i].cp < refs[j].cp })
	notes := docNotes{byCP: make(map[int64]int, len(refs))}
	for num, r := range refs {
		notes.byCP[r.cp] = num + 1
		if r.endnote {
			notes.endnote = append(notes.endnote, num+1)
		} else {
			notes.footnote = append(notes.footnote, num+1)
		}
	}
	notes.next = len(refs)
	return notes
}

// number is the number of a note mark: the body's reference at cp, or
// the i-th note of a notes part. A mark the plexes do not list is
// numbered after those they do.
func (n *docNotes) number(mode docMode, cp int64, i int) int {
	var known []int
	switch mode {
	case docInBody:
		if num, ok := n.byCP[cp]; ok {
			return num
		}
	case docInFootnotes:
		known = n.footnote
	case docInEndnotes:
		known = n.endnote
	default:
		return 0
	}
	if i < len(known) {
		return known[i]
	}
	n.next++
	return n.next
}

// readCommentAuthors reads each comment's author: PlcfandRef holds, after
// the n+1 reference positions, n 30-byte ATRDPre10 whose ibst indexes the
// author names of GrpXstAtnOwners (each a count and UTF-16 characters).
func readCommentAuthors(plc, owners []byte) []string {
	var names []string
	for pos := 0; pos+2 <= len(owners) && len(names) < maxDocNotes; {
		n := int(binary.LittleEndian.Uint16(owners[pos:]))
		pos += 2
		if pos+2*n > len(owners) {
			break
		}
		u := make([]uint16, n)
		for i := range u {
			u[i] = binary.LittleEndian.Uint16(owners[pos+2*i:])
		}
		names = append(names, oneLine(string(utf16.Decode(u))))
		pos += 2 * n
	}
	n := (len(plc) - 4) / 34
	authors := make([]string, 0, min(max(n, 0), maxDocNotes))
	for i := 0; i < min(n, maxDocNotes); i++ {
		atrd := plc[4*(n+1)+30*i:]
		who := ""
		if ibst := int(int16(binary.LittleEndian.Uint16(atrd[20:]))); ibst >= 0 && ibst < len(names) {
			who = names[ibst]
		}
		authors = append(authors, who)
	}
	return authors
}
