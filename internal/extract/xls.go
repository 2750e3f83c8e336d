package extract

import (
	"encoding/binary"
	"io"
	"math"
	"sort"

	"golang.org/x/text/encoding"
)

// extractXLS reads an Excel 97-2003 workbook (BIFF8, the Workbook
// stream) or an Excel 5/95 one (BIFF5/7, the Book stream): the workbook
// globals (sheet names and offsets, the shared strings, number formats),
// then each sheet's cell records. Each sheet is written as a Markdown
// table behind a "--- sheet N: Name ---" marker, like XLSX. Numbers are
// written with every digit stored (no number format applied), except
// that cells formatted as dates or times are written as ISO 8601 dates;
// formulas as their cached results. Empty rows and trailing empty cells
// are dropped.
func extractXLS(b *budget, src io.ReaderAt, size int64, out *textWriter) error {
	d, err := openCFB(b, src, size)
	if err != nil {
		return err
	}
	wb, err := d.stream("Workbook")
	if err == nil && wb == nil {
		wb, err = d.stream("Book") // Excel 5/95
	}
	if err != nil {
		return err
	}
	if wb == nil {
		return d.readAs(XLS, src, size, out, unreadable("no Workbook stream: not an Excel workbook (%s)", d.holds()))
	}
	x := &xlsReader{b: b, p: wb, enc: codepage(1252)}
	if err := x.globals(); err != nil {
		return err
	}
	for i, sh := range x.sheets {
		if err := b.section("sheet"); err != nil {
			return err
		}
		if err := out.Marker("sheet", i+1, sh.name); err != nil {
			return err
		}
		if err := x.sheet(sh, out); err != nil {
			return err
		}
	}
	if x.total > len(x.sheets) {
		// Past the sheet limit the first MaxSheets sheets are read, and the
		// text is cut short there (Extract), as for XLSX.
		return cutOff(sectionsLeft("sheet", len(x.sheets), x.total), "%d sheets, more than %d", x.total, len(x.sheets))
	}
	return out.Err()
}

// BIFF record types read.
const (
	xlsFormula    = 0x0006
	xlsEOF        = 0x000A
	xlsDateMode   = 0x0022
	xlsFilePass   = 0x002F
	xlsContinue   = 0x003C
	xlsCodePage   = 0x0042
	xlsBoundSheet = 0x0085
	xlsMulRK      = 0x00BD
	xlsMulBlank   = 0x00BE
	xlsRString    = 0x00D6
	xlsXF         = 0x00E0
	xlsSST        = 0x00FC
	xlsLabelSST   = 0x00FD
	xlsBlank      = 0x0201
	xlsNumber     = 0x0203
	xlsLabel      = 0x0204
	xlsBoolErr    = 0x0205
	xlsString     = 0x0207
	xlsRK         = 0x027E
	xlsBOF        = 0x0809
	xlsFormat     = 0x041E
)

// xlsReader reads one workbook stream.
type xlsReader struct {
	b        *budget
	p        []byte
	biff5    bool              // Excel 5/95: 8-bit strings in the code page, no SST
	enc      encoding.Encoding // BIFF5's code page
	date1904 bool
	sst      []string
	xfs      []uint16          // each cell format's number format
	formats  map[uint16]string // number formats the workbook defines
	sheets   []xlsSheet        // the first MaxSheets sheets
	total    int               // sheets the workbook lists
	records  int
	walked   int64 // the end of the sheets read so far
}

// xlsSheet is a sheet as BOUNDSHEET lists it.
type xlsSheet struct {
	name   string
	offset int64 // of its BOF in the stream
}

// rec reads the record at off: its type and body, ok false when the
// header or body runs past the stream.
func (x *xlsReader) rec(off int64) (typ uint16, body []byte, next int64, ok bool) {
	if off < 0 || off+4 > int64(len(x.p)) {
		return 0, nil, 0, false
	}
	typ = binary.LittleEndian.Uint16(x.p[off:])
	end := off + 4 + int64(binary.LittleEndian.Uint16(x.p[off+2:]))
	if end > int64(len(x.p)) {
		return 0, nil, 0, false
	}
	return typ, x.p[off+4 : end], end, true
}

// tick counts a record, checking the clock now and then.
func (x *xlsReader) tick() error {
	x.records++
	if x.records%4096 == 0 {
		return x.b.alive()
	}
	return nil
}

// continued gathers the CONTINUE records after off, where a long record
// (SST, STRING) goes on: its body first, then theirs.
func (x *xlsReader) continued(body []byte, off int64) (segs [][]byte, next int64) {
	segs = [][]byte{body}
	for {
		typ, b, n, ok := x.rec(off)
		if !ok || typ != xlsContinue {
			return segs, off
		}
		segs = append(segs, b)
		off = n
	}
}

// globals reads the workbook globals, from the first BOF to its EOF.
func (x *xlsReader) globals() error {
	typ, body, off, ok := x.rec(0)
	if !ok || typ != xlsBOF || len(body) < 4 {
		return unreadable("the workbook stream does not start with a BOF record")
	}
	switch vers := binary.LittleEndian.Uint16(body); vers {
	case 0x0600:
	case 0x0500:
		x.biff5 = true
	default:
		return unreadable("BIFF version %#04x: only Excel 5 and later (BIFF5, BIFF8) are read", vers)
	}
	for {
		typ, body, next, ok := x.rec(off)
		if !ok {
			return unreadable("workbook globals cut short at byte %d", off)
		}
		if err := x.tick(); err != nil {
			return err
		}
		switch typ {
		case xlsEOF:
			return nil
		case xlsFilePass:
			return encrypted("password-protected Excel workbook (FILEPASS record)")
		case xlsCodePage:
			if len(body) >= 2 {
				x.enc = codepage(int(binary.LittleEndian.Uint16(body)))
			}
		case xlsDateMode:
			x.date1904 = len(body) >= 2 && binary.LittleEndian.Uint16(body) == 1
		case xlsXF:
			if len(body) >= 4 && len(x.xfs) <= math.MaxUint16 { // a cell names its format in 16 bits
				x.xfs = append(x.xfs, binary.LittleEndian.Uint16(body[2:]))
			}
		case xlsFormat:
			if len(body) >= 2 {
				if x.formats == nil {
					x.formats = map[uint16]string{}
				}
				lenSize := 2
				if x.biff5 {
					lenSize = 1
				}
				x.formats[binary.LittleEndian.Uint16(body)] = x.string(body[2:], !x.biff5, lenSize)
			}
		case xlsBoundSheet:
			if len(body) >= 7 && body[5] != 6 { // a VB module has no cells
				if x.total++; len(x.sheets) >= x.b.lim.MaxSheets {
					break
				}
				x.sheets = append(x.sheets, xlsSheet{
					name:   x.string(body[6:], !x.biff5, 1),
					offset: int64(binary.LittleEndian.Uint32(body)),
				})
			}
		case xlsSST:
			var segs [][]byte
			segs, next = x.continued(body, next)
			if err := x.readSST(segs); err != nil {
				return err
			}
		}
		off = next
	}
}

// string reads a string record field: a character count of lenSize
// bytes, then in BIFF8 (unicode) a flags byte saying whether the
// characters are UTF-16 or 8-bit, else bytes in the code page.
func (x *xlsReader) string(p []byte, unicode bool, lenSize int) string {
	s := &xlsSegments{segs: [][]byte{p}}
	n, ok := s.uint(lenSize)
	if !ok {
		return ""
	}
	if !unicode {
		raw := s.bytes(int(n))
		if t, err := x.enc.NewDecoder().Bytes(raw); err == nil {
			return string(t)
		}
		return string(raw)
	}
	flags, ok := s.byte()
	if !ok {
		return ""
	}
	return s.chars(int(n), flags&1 != 0)
}

// readSST reads the shared strings: XLUnicodeRichExtendedStrings, which
// CONTINUE records may cut anywhere.
func (x *xlsReader) readSST(segs [][]byte) error {
	s := &xlsSegments{segs: segs}
	s.skip(8) // cstTotal, cstUnique: counts not to size anything by
	for !s.done() {
		if err := x.tick(); err != nil {
			return err
		}
		n, ok1 := s.uint(2)
		flags, ok2 := s.byte()
		if !ok1 || !ok2 {
			break
		}
		var runs, ext uint32
		if flags&0x08 != 0 {
			runs, _ = s.uint(2)
		}
		if flags&0x04 != 0 {
			ext, _ = s.uint(4)
		}
		text := s.chars(int(n), flags&1 != 0)
		if err := x.b.hold(len(text)); err != nil {
			return err
		}
		if len(x.sst) >= int(min(x.b.lim.MaxCells, math.MaxInt32)) {
			// No sheet can show more strings than it has cells.
			return overLimit("more than %d shared strings", x.b.lim.MaxCells)
		}
		x.sst = append(x.sst, text)
		s.skip(4*int64(runs) + int64(ext))
	}
	return nil
}

// xlsCell is one cell's text at its place.
type xlsCell struct {
	row, col int
	text     string
}

// maxXLSColumns bounds a row's width: BIFF8 has 256 columns, and a
// hostile column number would otherwise widen every row.
const maxXLSColumns = 16384

// sheet reads one sheet's cells, from its BOF to its EOF (charts embedded
// in the sheet, substreams of their own, are skipped), and writes them.
func (x *xlsReader) sheet(sh xlsSheet, out *textWriter) error {
	typ, _, off, ok := x.rec(sh.offset)
	if !ok || typ != xlsBOF {
		return unreadable("sheet %q: no BOF record at byte %d", sh.name, sh.offset)
	}
	var cells []xlsCell
	add := func(row, col int, text string) error {
		if err := x.b.cell(1); err != nil {
			return err
		}
		if col < maxXLSColumns && text != "" {
			cells = append(cells, xlsCell{row, col, text})
		}
		return x.b.hold(len(text))
	}
	pending := -1 // the cell of a FORMULA whose string result follows
	nested := 0
	for {
		typ, body, next, ok := x.rec(off)
		if !ok {
			return unreadable("sheet %q cut short at byte %d", sh.name, off)
		}
		if err := x.tick(); err != nil {
			return err
		}
		off = next
		if typ == xlsBOF {
			nested++
			continue
		}
		if typ == xlsEOF {
			if nested == 0 {
				break
			}
			nested--
			continue
		}
		if nested > 0 {
			continue
		}
		if typ == xlsString {
			var segs [][]byte
			segs, off = x.continued(body, next)
			if pending >= 0 {
				cells[pending].text = x.stringResult(segs)
				if err := x.b.hold(len(cells[pending].text)); err != nil {
					return err
				}
				pending = -1
			}
			continue
		}
		if len(body) < 6 {
			continue
		}
		row, col := int(binary.LittleEndian.Uint16(body)), int(binary.LittleEndian.Uint16(body[2:]))
		ixfe := binary.LittleEndian.Uint16(body[4:])
		var err error
		switch typ {
		case xlsLabelSST:
			if len(body) >= 10 {
				if i := binary.LittleEndian.Uint32(body[6:]); int64(i) < int64(len(x.sst)) {
					err = add(row, col, x.sst[i])
				}
			}
		case xlsLabel, xlsRString:
			err = add(row, col, x.string(body[6:], !x.biff5, 2))
		case xlsNumber:
			if len(body) >= 14 {
				err = add(row, col, x.number(math.Float64frombits(binary.LittleEndian.Uint64(body[6:])), ixfe))
			}
		case xlsRK:
			if len(body) >= 10 {
				err = add(row, col, x.number(rkValue(binary.LittleEndian.Uint32(body[6:])), ixfe))
			}
		case xlsMulRK:
			for i := 0; 4+6*i+6 <= len(body)-2; i++ {
				v := body[4+6*i:]
				if err = add(row, col+i, x.number(rkValue(binary.LittleEndian.Uint32(v[2:])), binary.LittleEndian.Uint16(v))); err != nil {
					break
				}
			}
		case xlsBlank:
			err = x.b.cell(1)
		case xlsMulBlank:
			err = x.b.cell(int64(len(body)-6) / 2)
		case xlsBoolErr:
			if len(body) >= 8 {
				err = add(row, col, boolErr(body[6], body[7] != 0))
			}
		case xlsFormula:
			if len(body) >= 14 {
				v := body[6:14]
				switch {
				case v[6] != 0xFF || v[7] != 0xFF:
					err = add(row, col, x.number(math.Float64frombits(binary.LittleEndian.Uint64(v)), ixfe))
				case v[0] == 0: // a string: the STRING record after holds it
					n := len(cells)
					if err = add(row, col, "\x00"); len(cells) > n {
						pending = n
					}
				case v[0] == 1 || v[0] == 2:
					err = add(row, col, boolErr(v[2], v[0] == 2))
				}
			}
		}
		if err != nil {
			return err
		}
	}
	// A sheet read from bytes an earlier sheet was read from (only a
	// hostile workbook points two sheets at the same records) is charged
	// to the budget; sheets laid end to end, as Excel writes them, are not.
	if sh.offset < x.walked {
		if err := x.b.charge(off - sh.offset); err != nil {
			return err
		}
	}
	x.walked = max(x.walked, off)
	return x.writeCells(cells, out)
}

// stringResult reads a STRING record (with its CONTINUE records): a
// formula's string result.
func (x *xlsReader) stringResult(segs [][]byte) string {
	if x.biff5 {
		return x.string(segs[0], false, 2)
	}
	s := &xlsSegments{segs: segs}
	n, ok1 := s.uint(2)
	flags, ok2 := s.byte()
	if !ok1 || !ok2 {
		return ""
	}
	return s.chars(int(n), flags&1 != 0)
}

// writeCells sorts a sheet's cells into rows and writes them as a table.
func (x *xlsReader) writeCells(cells []xlsCell, out *textWriter) error {
	sort.SliceStable(cells, func(i, j int) bool {
		if cells[i].row != cells[j].row {
			return cells[i].row < cells[j].row
		}
		return cells[i].col < cells[j].col
	})
	var tb table
	for i := 0; i < len(cells); {
		j := i
		for j < len(cells) && cells[j].row == cells[i].row {
			j++
		}
		width := cells[j-1].col + 1
		if err := x.b.cell(int64(width)); err != nil {
			return err
		}
		row := make([]string, width)
		for _, c := range cells[i:j] {
			if c.text != "\x00" { // a formula whose string never came
				row[c.col] = c.text
			}
		}
		if err := tb.add(row, x.b); err != nil {
			return err
		}
		i = j
	}
	if tb.empty() {
		return out.Line("(empty)")
	}
	return tb.write(out)
}
