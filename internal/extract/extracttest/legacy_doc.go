package extracttest

import (
	"testing"
	"unicode/utf16"
)

// DOCPara is one paragraph of a generated Word document. Text may hold
// Word's marks: \x13 code \x14 result \x15 for a field, \x0b a line
// break, \x01 a picture, \x1f an optional hyphen.
type DOCPara struct {
	Text  string
	Level int      // 1-9: a heading (the built-in style "heading N")
	List  bool     // a bulleted list item
	Cells []string // a table row: each cell ends with 0x07, then the row mark
}

// DOCOptions shape a generated Word document.
type DOCOptions struct {
	Encrypted bool     // fEncrypted set in the FIB (nothing is really encrypted)
	Footnotes []string // the footnote story, one note a paragraph, referred to by the body's \x02 marks in order
	Comments  []string // the comment story, referred to by the body's \x05 marks
	Author    string   // the comments' author
	Header    string   // the odd-page header of the first section
	Footer    string   // its odd-page footer
}

// docUnit is a run of characters ending in a paragraph or cell mark, with
// the properties its PAPX gives the mark.
type docUnit struct {
	text  []rune
	sprms []byte
	istd  uint16
}

// DOC builds a Word 97 document: the FIB, the text in pieces (8-bit
// Windows-1252 where every character allows, UTF-16 otherwise,
// alternating where both would do), a PAPX FKP page per eight
// paragraphs with the style, table and list properties, a style sheet
// whose styles 1-9 are the headings, the header plex, and the CLX.
func DOC(t testing.TB, paras []DOCPara, opt DOCOptions) []byte {
	t.Helper()
	var units []docUnit
	add := func(text string, mark rune, istd uint16, sprms ...byte) {
		units = append(units, docUnit{append([]rune(text), mark), sprms, istd})
	}
	inTable, ttp := []byte{0x16, 0x24, 1}, []byte{0x17, 0x24, 1}
	for _, p := range paras {
		switch {
		case p.Cells != nil:
			for _, c := range p.Cells {
				add(c, 0x07, 0, inTable...)
			}
			add("", 0x07, 0, append(inTable, ttp...)...)
		case p.List:
			add(p.Text, 0x0D, 0, 0x0B, 0x46, 1, 0, 0x0A, 0x26, 0) // sprmPIlfo 1, sprmPIlvl 0
		default:
			add(p.Text, 0x0D, uint16(p.Level))
		}
	}
	story := func(texts []string, prefix string) int {
		n := 0
		for _, s := range texts {
			add(prefix+s, 0x0D, 0)
			n += len([]rune(prefix+s)) + 1
		}
		return n
	}
	var ccp [8]int
	var noteRefs, commentRefs []uint32 // where the body refers to them
	for _, u := range units {
		for _, r := range u.text {
			switch r {
			case 0x02:
				noteRefs = append(noteRefs, uint32(ccp[0]))
			case 0x05:
				commentRefs = append(commentRefs, uint32(ccp[0]))
			}
			ccp[0]++
		}
	}
	ccp[1] = story(opt.Footnotes, "\x02 ")
	// The header story: six empty separator stories, then the first
	// section's even header, odd header, even footer, odd footer, first
	// header and first footer; each non-empty one ends in a paragraph mark.
	hdd := []int{0, 0, 0, 0, 0, 0, 0}
	for i, s := range []string{"", opt.Header, "", opt.Footer, "", ""} {
		n := 0
		if s != "" {
			n = story([]string{s}, "")
		}
		ccp[2] += n
		hdd = append(hdd, hdd[6+i]+n)
	}
	ccp[4] = story(opt.Comments, "\x05")

	// WordDocument: the FIB, text from 1024, then the FKP pages.
	const textAt = 1024
	wd := make([]byte, textAt)
	var pcds, cps []byte
	var fcs []uint32 // each unit's first byte, and the end
	cp := 0
	for i, u := range units {
		fcs = append(fcs, uint32(len(wd)))
		compressed := i%2 == 0
		for _, r := range u.text {
			if r > 0xFF || r >= 0x80 && r < 0xA0 {
				compressed = false
			}
		}
		cps = le.AppendUint32(cps, uint32(cp))
		fc := uint32(len(wd))
		if compressed {
			fc = fc*2 | 0x40000000
			for _, r := range u.text {
				wd = append(wd, byte(r))
			}
		} else {
			for _, c := range utf16.Encode(u.text) {
				wd = le.AppendUint16(wd, c)
			}
		}
		pcds = append(pcds, 0, 0)
		pcds = le.AppendUint32(pcds, fc)
		pcds = append(pcds, 0, 0)
		cp += len(u.text)
	}
	cps = le.AppendUint32(cps, uint32(cp))
	fcs = append(fcs, uint32(len(wd)))
	for len(wd)%512 != 0 {
		wd = append(wd, 0)
	}
	var bte []byte
	var pns []uint32
	for first := 0; first < len(units); first += 8 {
		last := min(first+8, len(units))
		page := make([]byte, 512)
		crun := last - first
		page[511] = byte(crun)
		free := 511
		for k := first; k < last; k++ {
			le.PutUint32(page[4*(k-first):], fcs[k])
			grpprl := le.AppendUint16(nil, units[k].istd)
			grpprl = append(grpprl, units[k].sprms...)
			papx := []byte{byte((len(grpprl) + 1) / 2)}
			if len(grpprl)%2 == 0 {
				papx = []byte{0, byte(len(grpprl) / 2)}
			}
			papx = append(papx, grpprl...)
			free = (free - len(papx)) &^ 1
			copy(page[free:], papx)
			page[4*(crun+1)+13*(k-first)] = byte(free / 2)
		}
		le.PutUint32(page[4*crun:], fcs[last])
		bte = le.AppendUint32(bte, fcs[first])
		pns = append(pns, uint32(len(wd)/512))
		wd = append(wd, page...)
	}
	bte = le.AppendUint32(bte, fcs[len(fcs)-1])
	for _, pn := range pns {
		bte = le.AppendUint32(bte, pn)
	}

	// The table stream: style sheet, header plex, PAPX bin table, CLX.
	var table []byte
	place := func(p []byte) [2]uint32 {
		at := uint32(len(table))
		table = append(table, p...)
		return [2]uint32{at, uint32(len(p))}
	}
	stsh := le.AppendUint16(nil, 18) // cbStshi
	stshi := make([]byte, 18)
	le.PutUint16(stshi, 10) // cstd
	le.PutUint16(stshi[2:], 10)
	stsh = append(stsh, stshi...)
	for istd := range 10 {
		name := "Normal"
		if istd > 0 {
			name = "heading " + string(rune('0'+istd))
		}
		std := make([]byte, 10)
		le.PutUint16(std, uint16(istd)) // sti: the built-in style's id
		std = le.AppendUint16(std, uint16(len(name)))
		for _, c := range name {
			std = le.AppendUint16(std, uint16(c))
		}
		std = le.AppendUint16(std, 0)
		stsh = append(le.AppendUint16(stsh, uint16(len(std))), std...)
	}
	var plcHdd []byte
	for _, c := range hdd {
		plcHdd = le.AppendUint32(plcHdd, uint32(c))
	}
	var fndRef, andRef []byte // PlcffndRef: positions, then FRDs; PlcfandRef: positions, then ATRDPre10s
	for _, cp := range noteRefs {
		fndRef = le.AppendUint32(fndRef, cp)
	}
	fndRef = le.AppendUint32(fndRef, uint32(ccp[0]))
	for range noteRefs {
		fndRef = le.AppendUint16(fndRef, 1) // auto-numbered
	}
	for _, cp := range commentRefs {
		andRef = le.AppendUint32(andRef, cp)
	}
	andRef = le.AppendUint32(andRef, uint32(ccp[0]))
	for range commentRefs {
		atrd := make([]byte, 30) // initials (empty), ibst 0: the first author
		le.PutUint32(atrd[26:], 0xFFFFFFFF)
		andRef = append(andRef, atrd...)
	}
	owners := le.AppendUint16(nil, uint16(len([]rune(opt.Author))))
	for _, c := range utf16.Encode([]rune(opt.Author)) {
		owners = le.AppendUint16(owners, c)
	}
	clx := []byte{2}
	clx = le.AppendUint32(clx, uint32(len(cps)+len(pcds)))
	clx = append(append(clx, cps...), pcds...)
	pairs := map[int][2]uint32{1: place(stsh), 2: place(fndRef), 4: place(andRef), 11: place(plcHdd), 13: place(bte), 33: place(clx), 36: place(owners)}

	fib := make([]byte, 0, 900)
	flags := uint16(0x0200) // fWhichTblStm: 1Table
	if opt.Encrypted {
		flags |= 0x0100
	}
	base := make([]byte, 32)
	le.PutUint16(base, 0xA5EC)
	le.PutUint16(base[2:], 0x00C1) // Word 97
	le.PutUint16(base[6:], 0x0409)
	le.PutUint16(base[10:], flags)
	le.PutUint16(base[12:], 0x00BF)
	fib = append(fib, base...)
	fib = le.AppendUint16(fib, 14)
	fib = append(fib, make([]byte, 28)...)
	fib = le.AppendUint16(fib, 22)
	lw := make([]byte, 88)
	le.PutUint32(lw, uint32(len(wd)))
	for i, n := range ccp {
		le.PutUint32(lw[4*(3+i):], uint32(n))
	}
	fib = append(fib, lw...)
	fib = le.AppendUint16(fib, 93)
	blob := make([]byte, 93*8)
	for i, r := range pairs {
		le.PutUint32(blob[8*i:], r[0])
		le.PutUint32(blob[8*i+4:], r[1])
	}
	fib = le.AppendUint16(append(fib, blob...), 0) // cswNew
	copy(wd, fib)
	return CFB(t, CFBStream{"WordDocument", wd}, CFBStream{"1Table", table})
}
