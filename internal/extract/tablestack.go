package extract

import "strings"

// maxTableDepth bounds tables nested in table cells; a document nesting
// them deeper is refused.
const maxTableDepth = 32

// openTable is a table being read from a token stream (DOCX, PPTX, ODF,
// HTML): the rows finished so far, the row being filled and the text of
// the cell being read.
type openTable struct {
	tb   table
	row  []string
	cell strings.Builder
}

// tableFrame is what a tableStack holds: an openTable, or a format's own
// table type that embeds one beside state of its own (ODF's repeats).
type tableFrame interface {
	base() *openTable
}

// base is the table itself; a type that embeds openTable inherits it.
func (t *openTable) base() *openTable { return t }

// tableStack is the tables open around the current token, innermost
// last. Tables nest inside cells; each writer keeps one stack.
type tableStack[T tableFrame] []T

// top is the innermost open table, nil outside tables.
func (s tableStack[T]) top() T {
	if len(s) == 0 {
		var none T
		return none
	}
	return s[len(s)-1]
}

// innermost is top as the shared openTable, nil outside tables.
func (s tableStack[T]) innermost() *openTable {
	if len(s) == 0 {
		return nil
	}
	return s[len(s)-1].base()
}

// push opens a table inside the current one, refusing nesting deeper
// than maxTableDepth.
func (s *tableStack[T]) push(t T) error {
	*s = append(*s, t)
	if len(*s) > maxTableDepth {
		return overLimit("tables nested more than %d deep", maxTableDepth)
	}
	return nil
}

// pop closes the innermost table. A table that sat in a cell of another
// goes into that cell as text, a row a line, and pop returns nil; the
// outermost table is returned for the caller to write. Outside tables
// (an end without a start) pop does nothing and returns nil.
func (s *tableStack[T]) pop() *table {
	n := len(*s)
	if n == 0 {
		return nil
	}
	t := (*s)[n-1].base()
	*s = (*s)[:n-1]
	if outer := s.innermost(); outer != nil {
		for _, row := range t.tb.rows {
			addCellLine(&outer.cell, strings.Join(row, " ; "))
		}
		return nil
	}
	return &t.tb
}

// addToCell adds a finished paragraph to the current cell of the
// innermost table; it reports false outside tables, where the paragraph
// is the writer's to write.
func (s tableStack[T]) addToCell(text string) bool {
	t := s.innermost()
	if t == nil {
		return false
	}
	addCellLine(&t.cell, text)
	return true
}

// startRow begins a row of the innermost table; outside tables it does
// nothing.
func (s tableStack[T]) startRow() {
	if t := s.innermost(); t != nil {
		t.row = t.row[:0]
	}
}

// startCell begins a cell of the innermost table and counts it against
// MaxCells; outside tables it does nothing.
func (s tableStack[T]) startCell(b *budget) error {
	t := s.innermost()
	if t == nil {
		return nil
	}
	t.cell.Reset()
	return b.cell(1)
}

// endCell adds the current cell's text to the row; outside tables it
// does nothing. The cell's text stays until the next startCell.
func (s tableStack[T]) endCell(b *budget) error {
	t := s.innermost()
	if t == nil {
		return nil
	}
	t.row = append(t.row, t.cell.String())
	return b.hold(t.cell.Len())
}

// endRow adds a copy of the current row to the table; outside tables it
// does nothing. The row stays until the next startRow.
func (s tableStack[T]) endRow(b *budget) error {
	t := s.innermost()
	if t == nil {
		return nil
	}
	return t.tb.add(append([]string(nil), t.row...), b)
}

// addCellLine adds a paragraph to a table cell's text, one per line.
func addCellLine(cell *strings.Builder, text string) {
	if strings.TrimSpace(text) == "" {
		return
	}
	if cell.Len() > 0 {
		cell.WriteByte('\n')
	}
	cell.WriteString(text)
}
