package extract

import (
	"encoding/xml"
	"strings"
)

// ooxmlWriter is what the DOCX and PPTX writers share. WordprocessingML
// (w:) and DrawingML (a:) name their text runs t and their tables tbl,
// tr and tc alike, so one piece reads them: runs gather into the current
// paragraph, cells into the tables open around it. Each writer embeds it,
// handles its own elements first and passes the rest to start and end.
type ooxmlWriter struct {
	out    *textWriter
	b      *budget
	para   strings.Builder
	inText bool // inside t, whose character data is the text
	tables tableStack[*openTable]
}

// start handles t, tbl, tr and tc.
func (w *ooxmlWriter) start(e xml.StartElement) error {
	switch e.Name.Local {
	case "t":
		w.inText = true
	case "tbl":
		return w.tables.push(&openTable{})
	case "tr":
		w.tables.startRow()
	case "tc":
		return w.tables.startCell(w.b)
	}
	return nil
}

// text adds the character data of a t to the paragraph.
func (w *ooxmlWriter) text(t []byte) error {
	if !w.inText {
		return nil
	}
	w.para.Write(t)
	return w.b.hold(w.para.Len())
}

// end handles t, tc, tr and tbl; a finished outermost table is written.
func (w *ooxmlWriter) end(e xml.EndElement) error {
	switch e.Name.Local {
	case "t":
		w.inText = false
	case "tc":
		return w.tables.endCell(w.b)
	case "tr":
		return w.tables.endRow(w.b)
	case "tbl":
		if tb := w.tables.pop(); tb != nil {
			return tb.write(w.out)
		}
	}
	return nil
}
