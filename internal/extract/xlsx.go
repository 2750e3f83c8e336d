package extract

import (
	"io"

	"github.com/xuri/excelize/v2"
)

// extractXLSX writes each sheet as a Markdown table behind a
// "--- sheet N: Name ---" marker, with the values as Excel shows them
// (number formats applied, formulas as their cached results). Empty rows
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
	if len(sheets) > b.lim.MaxSheets {
		return overLimit("%d sheets, more than %d", len(sheets), b.lim.MaxSheets)
	}
	for i, name := range sheets {
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
	for rows.Next() {
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
