package extract

import (
	"strings"
	"unicode"
)

// oneLine collapses runs of white space (newlines included) into single
// spaces and trims the ends: headings, names and table cells live on one line.
func oneLine(s string) string {
	var b strings.Builder
	space := false
	for _, r := range s {
		if unicode.IsSpace(r) {
			space = b.Len() > 0
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	return b.String()
}

// table collects rows and writes them as a Markdown table: the first row
// is the header, every row is padded to the widest, a '|' inside a cell is
// escaped and a line break becomes <br>. Empty rows and trailing empty
// cells are dropped: sheets are mostly empty space.
type table struct {
	rows  [][]string
	width int
	bytes int64 // text held, charged against the text limit before it is written
}

// add appends a row; it refuses a table whose text alone is over the limit.
func (tb *table) add(cells []string, b *budget) error {
	last := -1
	for i, c := range cells {
		cells[i] = cellText(c)
		if cells[i] != "" {
			last = i
		}
	}
	if last < 0 {
		return nil
	}
	cells = cells[:last+1]
	for _, c := range cells {
		tb.bytes += int64(len(c)) + 3
	}
	if tb.bytes > b.lim.MaxTextBytes {
		return overLimit("a table of more than %d bytes of text", b.lim.MaxTextBytes)
	}
	tb.width = max(tb.width, len(cells))
	tb.rows = append(tb.rows, cells)
	return nil
}

func (tb *table) empty() bool { return len(tb.rows) == 0 }

// write renders the table between blank lines.
func (tb *table) write(out *textWriter) error {
	if tb.empty() {
		return out.Err()
	}
	out.Blank()
	for i, row := range tb.rows {
		var b strings.Builder
		b.WriteByte('|')
		for j := range tb.width {
			b.WriteByte(' ')
			if j < len(row) {
				b.WriteString(row[j])
			}
			b.WriteString(" |")
		}
		out.Line(b.String())
		if i == 0 {
			out.Line("|" + strings.Repeat(" --- |", tb.width))
		}
		if out.Err() != nil {
			break
		}
	}
	out.Blank()
	tb.rows, tb.width, tb.bytes = nil, 0, 0
	return out.Err()
}

// cellText puts a cell's text on one Markdown table line.
func cellText(s string) string {
	if !strings.ContainsAny(s, "|\n\r\t") {
		return strings.TrimSpace(s)
	}
	lines := strings.FieldsFunc(s, func(r rune) bool { return r == '\n' || r == '\r' })
	for i, l := range lines {
		lines[i] = oneLine(l)
	}
	s = strings.Join(lines, "<br>")
	return strings.ReplaceAll(s, "|", `\|`)
}
