package extract

import (
	"io"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/xuri/excelize/v2"
)

// extractXLSX writes each sheet as a Markdown table behind a
// "--- sheet N: Name ---" marker, with the values as Excel shows them
// (number formats applied, formulas as their cached results; General
// numbers with all their digits, as in a column wide enough). Empty rows
// and trailing empty cells are dropped.
//
// excelize holds every part of the package in memory, so the whole
// package's declared size is charged to the budget before it is opened,
// and excelize is told the same limit. Its worksheet and shared-string
// limit equals the package limit, so it never spills parts to temporary
// files: nothing is written outside the snapshot.
func extractXLSX(b *budget, src io.ReaderAt, size int64, out *textWriter) error {
	z, err := openZip(b, src, size)
	if err != nil {
		return err
	}
	var declared uint64
	for _, f := range z.files {
		declared += f.UncompressedSize64
	}
	if declared > uint64(b.lim.MaxInflateBytes) {
		return overLimit("the package inflates to %d bytes, over the %d-byte limit", declared, b.lim.MaxInflateBytes)
	}
	b.inflated += int64(declared)
	if !z.has("xl/workbook.xml") && !z.has("xl/workbook.bin") {
		return unreadable("no xl/workbook.xml in the package")
	}
	f, err := excelize.OpenReader(io.NewSectionReader(src, 0, size), excelize.Options{
		UnzipSizeLimit:    b.lim.MaxInflateBytes,
		UnzipXMLSizeLimit: b.lim.MaxInflateBytes,
	})
	if err != nil {
		return unreadable("%v", err)
	}
	defer f.Close()
	sheets := f.GetSheetList()
	for i, name := range sheets {
		if i == b.lim.MaxSheets {
			return cutOff(sectionsLeft("sheet", i, len(sheets)), "%d sheets, more than %d", len(sheets), i)
		}
		if err := b.section("sheet"); err != nil {
			return err
		}
		if err := out.Marker("sheet", i+1, name); err != nil {
			return err
		}
		if err := xlsxSheet(b, f, name, out); err != nil {
			return err
		}
	}
	return out.Err()
}

func xlsxSheet(b *budget, f *excelize.File, name string, out *textWriter) error {
	rows, err := f.Rows(name)
	if err != nil {
		// A chart sheet or a dialog sheet has no cells.
		return out.Line("(no cells: " + err.Error() + ")")
	}
	defer rows.Close()
	var tb table
	// stored reads the same rows unformatted, only once a row shows a
	// number that may have been cut (see xlsxNumber), and only that far.
	var stored *excelize.Rows
	row, storedRow := 0, 0
	for rows.Next() {
		row++
		if err := b.alive(); err != nil {
			return err
		}
		// A row counts as a cell: a sheet whose one cell sits on row
		// 1,048,576 walks that many empty rows.
		if err := b.cell(1); err != nil {
			return err
		}
		cols, err := rows.Columns()
		if err != nil {
			return unreadable("sheet %q: %v", name, err)
		}
		if slices.ContainsFunc(cols, mayBeCut) {
			if stored == nil {
				if stored, err = f.Rows(name); err != nil {
					return unreadable("sheet %q: %v", name, err)
				}
				defer stored.Close()
			}
			for ; storedRow < row && stored.Next(); storedRow++ {
			}
			if storedRow == row {
				raw, err := stored.Columns(excelize.Options{RawCellValue: true})
				if err != nil {
					return unreadable("sheet %q: %v", name, err)
				}
				for i := range min(len(cols), len(raw)) {
					cols[i] = xlsxNumber(cols[i], raw[i])
				}
			}
		}
		if err := b.cell(int64(len(cols))); err != nil {
			return err
		}
		if err := tb.add(cols, b); err != nil {
			return err
		}
	}
	if err := rows.Error(); err != nil {
		return unreadable("sheet %q: %v", name, err)
	}
	if tb.empty() {
		return out.Line("(empty)")
	}
	return tb.write(out)
}

// mayBeCut reports a cell shown as a number excelize may have cut to 10
// significant digits: one with an exponent, or with exactly 10 digits. (A
// number whose tenth digit rounds to zero shows fewer, and is left as
// shown: 0.1 for 0.1000000000001.) Most numbers show fewer or more, and
// their rows are read once.
func mayBeCut(shown string) bool {
	digits, leading := 0, true
	for i := 0; i < len(shown); i++ {
		switch c := shown[i]; {
		case c == 'E' || c == 'e':
			_, err := strconv.ParseFloat(shown, 64)
			return err == nil
		case c == '0' && leading, c == '.', c == '-' && i == 0:
		case c >= '0' && c <= '9':
			digits++
			leading = false
		default:
			return false
		}
	}
	return digits == 10
}

// xlsxNumber is the text of a cell as excelize shows it, with a number in
// the General format written in full (generalNumber). excelize's General keeps 10
// significant digits of a number of more than 11 (a cell with no style at
// all: 15, beyond 15), so 123456789012345 and 123456789012346 both read
// 1.23456789E+14 and 1234567890.12345 reads 1234567890, where Excel, in a
// column wide enough, shows every digit. Other formats ("0.00E+00", dates, text) show
// something else and are kept.
func xlsxNumber(shown, stored string) string {
	v, err := strconv.ParseFloat(stored, 64)
	if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
		return shown
	}
	if shown != strconv.FormatFloat(v, 'G', 10, 64) && shown != strconv.FormatFloat(v, 'G', 15, 64) {
		return shown
	}
	return generalNumber(stored, v)
}

// generalNumber writes a stored number as Excel's General format does in
// a column wide enough, every stored digit: a plain decimal as stored
// (less leading and trailing zeros), another (1.5E-3) as Go's shortest
// round-trip of it, with an exponent only where the magnitude needs one
// (from 1e21, below 1e-9).
func generalNumber(stored string, v float64) string {
	if a := math.Abs(v); a == 0 {
		return "0"
	} else if a >= 1e21 || a < 1e-9 {
		return strconv.FormatFloat(v, 'E', -1, 64)
	}
	if plainDecimal.MatchString(stored) {
		neg := strings.HasPrefix(stored, "-")
		s := strings.TrimLeft(strings.TrimLeft(stored, "+-"), "0")
		if strings.Contains(s, ".") {
			s = strings.TrimSuffix(strings.TrimRight(s, "0"), ".")
		}
		if s == "" || s[0] == '.' {
			s = "0" + s
		}
		if neg {
			s = "-" + s
		}
		return s
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// plainDecimal is a number written without an exponent.
var plainDecimal = regexp.MustCompile(`^[+-]?[0-9]+(\.[0-9]+)?$`)
