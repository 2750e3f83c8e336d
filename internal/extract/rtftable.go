package extract

import "strings"

// paraFlushBytes is how much of a paragraph outside tables the RTF reader
// holds before it writes it out: a document that never says \par still
// streams. Only a \cell after that much text of one paragraph finds less
// than the whole paragraph to put in its cell.
const paraFlushBytes = 64 << 10

// rtfTable is the table state of the RTF reader. RTF marks a paragraph as
// table text by its properties (\intbl, \itapN for the nesting depth) and
// ends cells and rows with \cell and \row, one level down \nestcell and
// \nestrow. Writers leave pieces out: a \cell without \intbl, a last row
// without \row, a row ended only by the next \trowd. So a paragraph is held
// until its end says where it goes (a cell or the text), and a table ends
// when a paragraph outside it ends or the document does. A table nested in
// a cell goes into that cell a row a line, its cells joined by " ; ", as
// the other formats' nested tables do.
//
// Nested cells are paragraphs of depth 2 and more; deeper tables are read
// as if they were at depth 2.
type rtfTable struct {
	inTbl    bool            // the current paragraph is in a table (\intbl)
	itap     int             // its nesting depth (\itapN): 2 and more are a nested table
	tb       table           // the outermost table's finished rows
	row      []string        // the current row's finished cells
	cell     strings.Builder // the current cell's finished paragraphs and nested rows
	nestRow  []string        // the row of a nested table being read
	nestCell strings.Builder
	nestHeld int // bytes in nestRow
}

// tableWord handles the control words of tables; it reports false for any
// other word.
func (p *rtfParser) tableWord(w string, n int, hasNum bool) (bool, error) {
	t := &p.tbl
	switch w {
	case "pard":
		t.inTbl, t.itap = false, 0
	case "intbl":
		t.inTbl, t.itap = true, max(t.itap, 1)
	case "itap":
		if hasNum {
			t.itap = min(max(n, 0), maxTableDepth)
			t.inTbl = t.itap > 0
		}
	case "cell":
		return true, p.endCell(p.takePara())
	case "nestcell":
		return true, p.endNestCell()
	case "nestrow":
		return true, p.endNestRow()
	case "row":
		return true, p.endRow(p.takePara())
	case "trowd":
		// Row properties: they start a row, and Word repeats them before
		// \row. A row still open here had no \row.
		if p.g.nestProps || t.itap >= 2 {
			return true, p.endNestRow()
		}
		if len(t.row) > 0 {
			return true, p.endRow("")
		}
	default:
		return false, nil
	}
	return true, nil
}

// open reports a cell begun but not ended: paragraphs of it, or of a
// table nested in it.
func (t *rtfTable) open() bool {
	return t.cell.Len() > 0 || len(t.nestRow) > 0 || t.nestCell.Len() > 0
}

// takePara hands over the current paragraph's text and starts the next.
func (p *rtfParser) takePara() string {
	s := string(p.para)
	p.para = p.para[:0]
	return s
}

// par ends a paragraph: into the current cell when it is table text, else
// out as a line after any table it follows.
func (p *rtfParser) par() error {
	t := &p.tbl
	if t.inTbl {
		if t.itap >= 2 {
			addCellLine(&t.nestCell, p.takePara())
			return p.b.hold(t.nestCell.Len())
		}
		addCellLine(&t.cell, p.takePara())
		return p.b.hold(t.cell.Len())
	}
	if err := p.endTable(); err != nil {
		return err
	}
	p.out.Text(p.takePara())
	p.out.Text("\n")
	return p.out.Err()
}

// endCell ends a cell of the outermost table, whatever \intbl said: last
// is its last paragraph (the one \cell ended), and a table nested in it
// goes in as lines.
func (p *rtfParser) endCell(last string) error {
	t := &p.tbl
	if err := p.endNestRow(); err != nil {
		return err
	}
	addCellLine(&t.cell, last)
	t.row = append(t.row, t.cell.String())
	t.cell.Reset()
	if err := p.b.hold(len(t.row[len(t.row)-1])); err != nil {
		return err
	}
	return p.b.cell(1)
}

// endRow ends a row of the outermost table. Text after its last \cell
// (last, from \row; none as Word writes it) or a cell left open is one
// more cell.
func (p *rtfParser) endRow(last string) error {
	t := &p.tbl
	if strings.TrimSpace(last) != "" || t.open() {
		if err := p.endCell(last); err != nil {
			return err
		}
	}
	if len(t.row) == 0 {
		return nil
	}
	err := t.tb.add(t.row, p.b)
	t.row = nil
	return err
}

func (p *rtfParser) endNestCell() error {
	t := &p.tbl
	addCellLine(&t.nestCell, p.takePara())
	t.nestRow = append(t.nestRow, t.nestCell.String())
	t.nestHeld += t.nestCell.Len()
	t.nestCell.Reset()
	if err := p.b.hold(t.nestHeld); err != nil {
		return err
	}
	return p.b.cell(1)
}

// endNestRow ends a row of a nested table: it goes into the outer cell
// as a line.
func (p *rtfParser) endNestRow() error {
	t := &p.tbl
	if t.nestCell.Len() > 0 {
		if err := p.endNestCell(); err != nil {
			return err
		}
	}
	var cells []string
	for _, c := range t.nestRow {
		cells = append(cells, oneLine(c))
	}
	for len(cells) > 0 && cells[len(cells)-1] == "" {
		cells = cells[:len(cells)-1]
	}
	t.nestRow, t.nestHeld = t.nestRow[:0], 0
	addCellLine(&t.cell, strings.Join(cells, " ; "))
	return p.b.hold(t.cell.Len())
}

// endTable writes the table being read, if any, ending an open row first.
func (p *rtfParser) endTable() error {
	t := &p.tbl
	if t.open() || len(t.row) > 0 {
		if err := p.endRow(""); err != nil {
			return err
		}
	}
	return t.tb.write(p.out)
}

// finish ends the document: a paragraph without \par, an open table.
func (p *rtfParser) finish() error {
	if p.tbl.inTbl {
		if err := p.par(); err != nil {
			return err
		}
		return p.endTable()
	}
	if err := p.endTable(); err != nil {
		return err
	}
	return p.out.Text(p.takePara())
}
