package extracttest

import (
	"math"
	"testing"
	"unicode/utf16"
)

// XLSSheet is one sheet of a generated workbook. A cell is a string
// (from the shared strings), XLSLabel (a string in the cell record), a
// float64 (NUMBER), an int (RK; runs of them MULRK), a bool, XLSError,
// XLSDate (a serial under a date format), XLSFormula, or nil (no cell).
type XLSSheet struct {
	Name string
	Rows [][]any
}

type (
	XLSLabel   string
	XLSError   byte    // an error code: 0x07 is #DIV/0!
	XLSDate    float64 // a date serial, shown through a date format
	XLSFormula struct {
		Value any // its cached result: float64, string or bool
	}
)

// XLSOptions shape a generated workbook.
type XLSOptions struct {
	Encrypted bool // a FILEPASS record (nothing is really encrypted)
	SSTChunk  int  // the most bytes an SST record or CONTINUE holds; 0 for 8224
}

// xlsRecord is one BIFF record.
func xlsRecord(typ uint16, body []byte) []byte {
	return append(le.AppendUint16(le.AppendUint16(nil, typ), uint16(len(body))), body...)
}

// xlsString is an XLUnicodeString's characters with their flags byte:
// 8-bit when every character allows, else UTF-16.
func xlsString(s string) (flags byte, chars []byte) {
	u := utf16.Encode([]rune(s))
	for _, c := range u {
		if c > 0xFF {
			for _, c := range u {
				chars = le.AppendUint16(chars, c)
			}
			return 1, chars
		}
	}
	for _, c := range u {
		chars = append(chars, byte(c))
	}
	return 0, chars
}

// XLS builds an Excel 97 (BIFF8) workbook: the globals (code page, cell
// formats where XF 16 is a date and XF 17 a custom date-time format,
// sheet list, shared strings cut into CONTINUE records), then each
// sheet's cells.
func XLS(t testing.TB, sheets []XLSSheet, opt XLSOptions) []byte {
	t.Helper()
	chunk := opt.SSTChunk
	if chunk == 0 {
		chunk = 8224
	}
	bof := func(dt uint16) []byte {
		b := make([]byte, 16)
		le.PutUint16(b, 0x0600)
		le.PutUint16(b[2:], dt)
		return xlsRecord(0x0809, b)
	}
	var sst []string
	index := map[string]int{}
	for _, sh := range sheets {
		for _, row := range sh.Rows {
			for _, c := range row {
				if s, ok := c.(string); ok {
					if _, seen := index[s]; !seen {
						index[s] = len(sst)
						sst = append(sst, s)
					}
				}
			}
		}
	}
	var g []byte
	g = append(g, bof(0x0005)...)
	if opt.Encrypted {
		g = append(g, xlsRecord(0x002F, append([]byte{1, 0}, make([]byte, 52)...))...)
	}
	g = append(g, xlsRecord(0x0042, le.AppendUint16(nil, 1200))...)
	f, chars := xlsString("dd/mm/yyyy\\ hh:mm")
	format := le.AppendUint16(le.AppendUint16(nil, 164), uint16(len(chars)))
	g = append(g, xlsRecord(0x041E, append(append(format, f), chars...))...)
	for i := range 18 {
		xf := make([]byte, 20)
		switch i {
		case 16:
			le.PutUint16(xf[2:], 14) // the built-in date format
		case 17:
			le.PutUint16(xf[2:], 164)
		}
		g = append(g, xlsRecord(0x00E0, xf)...)
	}
	var patch []int // where each BOUNDSHEET's offset goes
	for _, sh := range sheets {
		f, chars := xlsString(sh.Name)
		body := append(make([]byte, 6), byte(len([]rune(sh.Name))), f)
		patch = append(patch, len(g)+4)
		g = append(g, xlsRecord(0x0085, append(body, chars...))...)
	}
	// SST: cstTotal, cstUnique, then the strings; a record full in the
	// middle of a string's characters goes on in a CONTINUE that starts
	// with the flags byte again.
	rec := le.AppendUint32(le.AppendUint32(nil, uint32(len(sst))), uint32(len(sst)))
	typ := uint16(0x00FC)
	flush := func() {
		g = append(g, xlsRecord(typ, rec)...)
		rec, typ = nil, 0x003C
	}
	for _, s := range sst {
		flags, chars := xlsString(s)
		if len(rec)+3 > chunk {
			flush()
		}
		rec = append(le.AppendUint16(rec, uint16(len([]rune(s)))), flags)
		width := int(flags) + 1
		for len(chars) > 0 {
			room := (chunk - len(rec)) / width * width
			if room == 0 {
				flush()
				rec = append(rec, flags)
				continue
			}
			n := min(room, len(chars))
			rec, chars = append(rec, chars[:n]...), chars[n:]
		}
	}
	flush()
	g = append(g, xlsRecord(0x000A, nil)...)

	for i, sh := range sheets {
		le.PutUint32(g[patch[i]:], uint32(len(g)))
		g = append(g, bof(0x0010)...)
		width := 0
		for _, row := range sh.Rows {
			width = max(width, len(row))
		}
		dims := le.AppendUint32(le.AppendUint32(nil, 0), uint32(len(sh.Rows)))
		g = append(g, xlsRecord(0x0200, append(le.AppendUint16(le.AppendUint16(dims, 0), uint16(width)), 0, 0))...)
		for r, row := range sh.Rows {
			for c := 0; c < len(row); c++ {
				cell := func(xf uint16) []byte {
					return le.AppendUint16(le.AppendUint16(le.AppendUint16(nil, uint16(r)), uint16(c)), xf)
				}
				switch v := row[c].(type) {
				case string:
					g = append(g, xlsRecord(0x00FD, le.AppendUint32(cell(15), uint32(index[v])))...)
				case XLSLabel:
					f, chars := xlsString(string(v))
					body := append(le.AppendUint16(cell(15), uint16(len([]rune(v)))), f)
					g = append(g, xlsRecord(0x0204, append(body, chars...))...)
				case float64:
					g = append(g, xlsRecord(0x0203, le.AppendUint64(cell(15), math.Float64bits(v)))...)
				case XLSDate: // a date as the built-in format, a date and time as the custom one
					xf := uint16(16)
					if v != XLSDate(math.Floor(float64(v))) {
						xf = 17
					}
					g = append(g, xlsRecord(0x0203, le.AppendUint64(cell(xf), math.Float64bits(float64(v))))...)
				case int:
					run := c
					for run < len(row) {
						if _, ok := row[run].(int); !ok {
							break
						}
						run++
					}
					if run-c == 1 {
						g = append(g, xlsRecord(0x027E, le.AppendUint32(cell(15), uint32(v)<<2|2))...)
						continue
					}
					body := le.AppendUint16(le.AppendUint16(nil, uint16(r)), uint16(c))
					for k := c; k < run; k++ {
						body = le.AppendUint32(le.AppendUint16(body, 15), uint32(row[k].(int))<<2|2)
					}
					g = append(g, xlsRecord(0x00BD, le.AppendUint16(body, uint16(run-1)))...)
					c = run - 1
				case bool:
					b := byte(0)
					if v {
						b = 1
					}
					g = append(g, xlsRecord(0x0205, append(cell(15), b, 0))...)
				case XLSError:
					g = append(g, xlsRecord(0x0205, append(cell(15), byte(v), 1))...)
				case XLSFormula:
					val := make([]byte, 8)
					var after []byte
					switch res := v.Value.(type) {
					case float64:
						le.PutUint64(val, math.Float64bits(res))
					case bool:
						val[0], val[6], val[7] = 1, 0xFF, 0xFF
						if res {
							val[2] = 1
						}
					case string:
						val[6], val[7] = 0xFF, 0xFF
						f, chars := xlsString(res)
						after = xlsRecord(0x0207, append(append(le.AppendUint16(nil, uint16(len([]rune(res)))), f), chars...))
					}
					body := append(cell(15), val...)
					body = append(body, 0, 0, 0, 0, 0, 0)       // grbit, chn
					body = append(body, 3, 0, 0x1E, 0x01, 0x00) // cce 3: PtgInt 1
					g = append(append(g, xlsRecord(0x0006, body)...), after...)
				}
			}
		}
		g = append(g, xlsRecord(0x000A, nil)...)
	}
	return CFB(t, CFBStream{"Workbook", g})
}
