package extract

import (
	"encoding/binary"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf16"
)

// The values of BIFF records: numbers, dates, booleans and errors, and
// strings a CONTINUE record cuts.

// rkValue decodes an RK number: a float64's top 30 bits or a 30-bit
// integer, either perhaps divided by 100.
func rkValue(rk uint32) float64 {
	var v float64
	if rk&2 != 0 {
		v = float64(int32(rk) >> 2)
	} else {
		v = math.Float64frombits(uint64(rk&^3) << 32)
	}
	if rk&1 != 0 {
		v /= 100
	}
	return v
}

// boolErr is a BOOLERR value: TRUE or FALSE, or an error code as Excel
// shows it.
func boolErr(v byte, isErr bool) string {
	if !isErr {
		if v != 0 {
			return "TRUE"
		}
		return "FALSE"
	}
	switch v {
	case 0x00:
		return "#NULL!"
	case 0x07:
		return "#DIV/0!"
	case 0x0F:
		return "#VALUE!"
	case 0x17:
		return "#REF!"
	case 0x1D:
		return "#NAME?"
	case 0x24:
		return "#NUM!"
	case 0x2A:
		return "#N/A"
	}
	return "#ERROR!"
}

// number writes a cell's number: as a date when its format is one, else
// with every digit the double holds (fixed notation unless the exponent
// is extreme).
func (x *xlsReader) number(v float64, ixfe uint16) string {
	if int(ixfe) < len(x.xfs) && x.isDate(x.xfs[ixfe]) {
		if s, ok := xlsDate(v, x.date1904); ok {
			return s
		}
	}
	if a := math.Abs(v); a != 0 && (a < 1e-7 || a >= 1e21) {
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// isDate reports a number format that shows a date or time: the
// built-in ones, and any whose codes (quoted text, escapes and [colour]
// brackets aside) use d, m, y, h or s.
func (x *xlsReader) isDate(ifmt uint16) bool {
	switch {
	case ifmt >= 14 && ifmt <= 22, ifmt >= 27 && ifmt <= 36, ifmt >= 45 && ifmt <= 47, ifmt >= 50 && ifmt <= 58:
		return true
	}
	f, ok := x.formats[ifmt]
	if !ok {
		return false
	}
	quoted, bracket := false, false
	for i := 0; i < len(f); i++ {
		switch c := f[i]; {
		case quoted:
			quoted = c != '"'
		case bracket:
			bracket = c != ']'
		case c == '"':
			quoted = true
		case c == '[':
			bracket = true
		case c == '\\' || c == '_' || c == '*':
			i++ // the next character is literal, or padding
		case c == ';':
			return false // only the first section, for positive numbers
		case strings.IndexByte("dmyhsDMYHS", c) >= 0:
			return true
		}
	}
	return false
}

// xlsDate writes a date serial as ISO 8601: a date, a time of day, or
// both; serials outside years 1900-9999 are not dates.
func xlsDate(v float64, date1904 bool) (string, bool) {
	if v < 0 || v >= 2958466 {
		return "", false
	}
	base := time.Date(1899, 12, 30, 0, 0, 0, 0, time.UTC)
	switch {
	case date1904:
		base = time.Date(1904, 1, 1, 0, 0, 0, 0, time.UTC)
	case v < 61:
		// Excel counts a 29 February 1900 that never was: serials
		// before it are a day off from those after.
		base = base.AddDate(0, 0, 1)
	}
	days := math.Floor(v)
	secs := math.Round((v - days) * 86400)
	t := base.AddDate(0, 0, int(days)).Add(time.Duration(secs) * time.Second)
	switch {
	case secs == 0:
		return t.Format("2006-01-02"), true
	case days == 0 && !date1904:
		return t.Format("15:04:05"), true
	}
	return t.Format("2006-01-02 15:04:05"), true
}

// xlsSegments reads a record's body and its CONTINUE records as one run
// of bytes, except that characters cut by a CONTINUE go on after a new
// flags byte (their width may change there).
type xlsSegments struct {
	segs [][]byte
	i    int // current segment
	pos  int // in it
}

func (s *xlsSegments) done() bool {
	for s.i < len(s.segs) && s.pos >= len(s.segs[s.i]) {
		s.i, s.pos = s.i+1, 0
	}
	return s.i >= len(s.segs)
}

func (s *xlsSegments) byte() (byte, bool) {
	if s.done() {
		return 0, false
	}
	c := s.segs[s.i][s.pos]
	s.pos++
	return c, true
}

// uint reads an n-byte little-endian integer.
func (s *xlsSegments) uint(n int) (uint32, bool) {
	var v uint32
	for i := range n {
		c, ok := s.byte()
		if !ok {
			return 0, false
		}
		v |= uint32(c) << (8 * i)
	}
	return v, true
}

// bytes reads up to n bytes.
func (s *xlsSegments) bytes(n int) []byte {
	var out []byte
	for len(out) < n && !s.done() {
		seg := s.segs[s.i][s.pos:]
		take := min(len(seg), n-len(out))
		out = append(out, seg[:take]...)
		s.pos += take
	}
	return out
}

// skip passes n bytes.
func (s *xlsSegments) skip(n int64) {
	for n > 0 && !s.done() {
		take := min(int64(len(s.segs[s.i])-s.pos), n)
		s.pos += int(take)
		n -= take
	}
}

// chars reads n characters, UTF-16LE when wide, else 8-bit (the low
// bytes of UTF-16: Latin-1). At the end of a segment the next one starts
// with a flags byte giving the width from there on.
func (s *xlsSegments) chars(n int, wide bool) string {
	var u []uint16
	for len(u) < n {
		if s.i < len(s.segs) && s.pos >= len(s.segs[s.i]) {
			s.i, s.pos = s.i+1, 0
			c, ok := s.byte()
			if !ok {
				break
			}
			wide = c&1 != 0
			continue
		}
		if s.i >= len(s.segs) {
			break
		}
		seg := s.segs[s.i]
		if !wide {
			u = append(u, uint16(seg[s.pos]))
			s.pos++
			continue
		}
		if s.pos+2 > len(seg) {
			s.pos = len(seg) // a cut code unit: there is no good answer
			continue
		}
		u = append(u, binary.LittleEndian.Uint16(seg[s.pos:]))
		s.pos += 2
	}
	return string(utf16.Decode(u))
}
