package extract

import (
	"bufio"
	"bytes"
	"io"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/korean"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/traditionalchinese"
)

// maxRTFDepth bounds group nesting; the stack lives on the heap, but no
// real document nests hundreds deep.
const maxRTFDepth = 1000

// rtfSkip are destinations whose content is not the document's text:
// tables of fonts, colours and styles, metadata, pictures, field
// instructions (the field's result is read). Headers and footers are
// read: RTF writes them once, and some documents keep their text there.
var rtfSkip = map[string]bool{
	"fonttbl": true, "colortbl": true, "stylesheet": true, "info": true, "pict": true,
	"object": true, "objdata": true, "fldinst": true, "listtable": true, "listoverridetable": true,
	"revtbl": true, "rsidtbl": true, "generator": true, "xmlnstbl": true, "themedata": true,
	"colorschememapping": true, "datastore": true, "latentstyles": true, "pgdsctbl": true,
	"filetbl":   true,
	"bkmkstart": true,
	"bkmkend":   true, "private": true, "nonshppict": true, "shpinst": true, "mmathPr": true,
	"listtext": true, "pntext": true, "pntxta": true, "pntxtb": true, "protusertbl": true,
	"docvar": true, "template": true, "userprops": true, "wgrffmtfilter": true, "ftnsep": true,
	"ftnsepc": true, "aftnsep": true, "aftnsepc": true, "footnote": true, "annotation": true,
	"nonesttables": true, // plain-text copies of nested tables, for readers that skip \nestcell
}

// rtfCharsets maps \fcharset values to code pages.
var rtfCharsets = map[int]int{
	128: 932, 129: 949, 134: 936, 136: 950, 161: 1253, 162: 1254, 177: 1255,
	178: 1256, 186: 1257, 204: 1251, 222: 874, 238: 1250,
}

func codepage(cp int) encoding.Encoding {
	switch cp {
	case 932:
		return japanese.ShiftJIS
	case 936:
		return simplifiedchinese.GBK
	case 949:
		return korean.EUCKR
	case 950:
		return traditionalchinese.Big5
	case 874:
		return charmap.Windows874
	case 1250:
		return charmap.Windows1250
	case 1251:
		return charmap.Windows1251
	case 1253:
		return charmap.Windows1253
	case 1254:
		return charmap.Windows1254
	case 1255:
		return charmap.Windows1255
	case 1256:
		return charmap.Windows1256
	case 1257:
		return charmap.Windows1257
	case 10000:
		return charmap.Macintosh
	case 437:
		return charmap.CodePage437
	case 850:
		return charmap.CodePage850
	}
	return charmap.Windows1252
}

type rtfGroup struct {
	skip      bool
	nestProps bool // in \nesttableprops, where \trowd is a nested table's
	uc        int  // characters to skip after \uN
	cp        int  // code page of \'hh bytes and 8-bit text
}

// rtfParser is a streaming RTF reader: groups on a heap stack, text
// written a paragraph at a time, tables (\intbl ... \cell ... \row)
// collected and written as Markdown tables (rtftable.go).
type rtfParser struct {
	r       *bufio.Reader
	b       *budget
	out     *textWriter
	stack   []rtfGroup
	g       rtfGroup
	ansiCP  int
	fonts   map[int]int // font number -> code page, from the font table
	font    int         // font being defined in the font table
	bytes   []byte      // \'hh and 8-bit bytes not yet decoded
	high    rune        // a pending high surrogate from \uN
	skipN   int         // fallback characters still to skip after \uN
	para    []byte      // the current paragraph; its end says where it goes
	tbl     rtfTable
	nread   int
	inFonts bool
	fresh   bool // nothing read yet in the current group: where \* may mark a destination
}

func extractRTF(b *budget, src io.ReaderAt, size int64, out *textWriter) error {
	r := bufio.NewReaderSize(io.NewSectionReader(src, 0, size), 32<<10)
	head, _ := r.Peek(5)
	if !bytes.Equal(head, []byte(`{\rtf`)) {
		return unreadable(`no "{\rtf" header`)
	}
	p := &rtfParser{r: r, b: b, out: out, ansiCP: 1252, fonts: map[int]int{}, g: rtfGroup{uc: 1, cp: 1252}}
	if err := p.run(); err != nil {
		return err
	}
	p.flushBytes()
	if err := p.finish(); err != nil {
		return err
	}
	b.sections = 1
	return out.Err()
}

func (p *rtfParser) readByte() (byte, error) {
	if p.nread++; p.nread&4095 == 0 {
		if err := p.b.alive(); err != nil {
			return 0, err
		}
		if err := p.out.Err(); err != nil {
			return 0, err
		}
	}
	return p.r.ReadByte()
}

func (p *rtfParser) run() error {
	for {
		c, err := p.readByte()
		if err == io.EOF {
			return nil // a missing final brace is common; keep what was read
		}
		if err != nil {
			return err
		}
		if c != '\\' {
			p.fresh = false
		}
		switch c {
		case '{':
			p.flushBytes()
			if len(p.stack) >= maxRTFDepth {
				return overLimit("groups nested more than %d deep", maxRTFDepth)
			}
			p.stack = append(p.stack, p.g)
			p.fresh = true
			continue
		case '}':
			p.flushBytes()
			if len(p.stack) == 0 {
				return nil // the document's closing brace; anything after it is not RTF
			}
			p.g = p.stack[len(p.stack)-1]
			p.stack = p.stack[:len(p.stack)-1]
			if !p.g.skip {
				p.inFonts = false
			}
		case '\\':
			if err := p.control(); err != nil {
				return err
			}
		case '\r', '\n':
			// line breaks in the source are not text
		default:
			if p.skipN > 0 {
				p.skipN--
				continue
			}
			if p.g.skip {
				continue
			}
			if c >= 0x80 {
				p.bytes = append(p.bytes, c)
				continue
			}
			p.flushBytes()
			p.emitRune(rune(c))
		}
	}
}

// control reads a control word or symbol after a backslash.
func (p *rtfParser) control() error {
	c, err := p.readByte()
	if err != nil {
		return nil
	}
	fresh := p.fresh
	p.fresh = false
	if !isASCIILetter(c) {
		if c == '*' && !fresh {
			return nil // \* means "ignorable destination" only right after '{'
		}
		return p.symbol(c)
	}
	word := []byte{c}
	for len(word) < 32 {
		c, err = p.readByte()
		if err != nil || !isASCIILetter(c) {
			break
		}
		word = append(word, c)
	}
	num, hasNum := 0, false
	if err == nil && (c == '-' || c >= '0' && c <= '9') {
		digits := []byte{c}
		for len(digits) < 11 {
			c, err = p.readByte()
			if err != nil || c < '0' || c > '9' {
				break
			}
			digits = append(digits, c)
		}
		num, _ = strconv.Atoi(string(digits))
		hasNum = true
	}
	if err == nil && c != ' ' {
		p.r.UnreadByte()
	}
	return p.word(string(word), num, hasNum)
}

func isASCIILetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func (p *rtfParser) symbol(c byte) error {
	switch c {
	case '\'':
		h, err1 := p.readByte()
		l, err2 := p.readByte()
		if err1 != nil || err2 != nil {
			return nil
		}
		v, err := strconv.ParseUint(string([]byte{h, l}), 16, 8)
		if err != nil {
			return nil
		}
		if p.skipN > 0 {
			p.skipN--
			return nil
		}
		if !p.g.skip {
			p.bytes = append(p.bytes, byte(v))
		}
		return nil
	case '*':
		p.g.skip = true // an ignorable destination we do not know
		return nil
	}
	if p.skipN > 0 {
		p.skipN--
		return nil
	}
	if p.g.skip {
		return nil
	}
	p.flushBytes()
	switch c {
	case '\\', '{', '}':
		p.emitRune(rune(c))
	case '~':
		p.emitRune(' ')
	case '_':
		p.emitRune('-')
	case '\n', '\r':
		return p.par()
	case '\t':
		p.emitRune('\t')
	}
	return nil
}

func (p *rtfParser) word(w string, n int, hasNum bool) error {
	if w == "bin" && hasNum && n > 0 {
		// \binN: N bytes of raw binary data, braces and all.
		if _, err := p.r.Discard(n); err != nil {
			return nil
		}
		return nil
	}
	if rtfSkip[w] {
		if w == "fonttbl" {
			p.inFonts = true
		}
		p.g.skip = true
	}
	if p.inFonts {
		switch w {
		case "f":
			p.font = n
		case "fcharset":
			if cp, ok := rtfCharsets[n]; ok {
				p.fonts[p.font] = cp
			}
		}
		return nil
	}
	switch w {
	case "ansicpg":
		p.ansiCP, p.g.cp = n, n
	case "mac":
		p.ansiCP, p.g.cp = 10000, 10000
	case "pc":
		p.ansiCP, p.g.cp = 437, 437
	case "pca":
		p.ansiCP, p.g.cp = 850, 850
	case "f":
		p.flushBytes()
		if cp, ok := p.fonts[n]; ok {
			p.g.cp = cp
		} else {
			p.g.cp = p.ansiCP
		}
	case "uc":
		if hasNum && n >= 0 && n < 10 {
			p.g.uc = n
		}
	case "u":
		if !hasNum {
			return nil
		}
		p.skipN = p.g.uc
		if p.g.skip {
			return nil
		}
		p.flushBytes()
		if n < 0 {
			n += 65536
		}
		p.emitUnit(rune(n))
		return nil
	}
	if w == "nesttableprops" {
		// {\*\nesttableprops ...\nestrow}: the \* made the group
		// skipped, but it ends a row of a nested table.
		p.g.skip = len(p.stack) > 0 && p.stack[len(p.stack)-1].skip
		p.g.nestProps = true
	}
	if p.skipN > 0 {
		p.skipN-- // a control word counts as one fallback character
		return nil
	}
	if p.g.skip {
		return nil
	}
	p.flushBytes()
	if ok, err := p.tableWord(w, n, hasNum); ok {
		return err
	}
	switch w {
	case "par", "sect", "page", "line":
		return p.par()
	case "tab":
		p.emitRune('\t')
	case "emdash":
		p.emitRune('—')
	case "endash":
		p.emitRune('–')
	case "bullet":
		p.emitRune('•')
	case "lquote":
		p.emitRune('‘')
	case "rquote":
		p.emitRune('’')
	case "ldblquote":
		p.emitRune('“')
	case "rdblquote":
		p.emitRune('”')
	}
	return p.out.Err()
}

// emitUnit writes a UTF-16 code unit from \uN, pairing surrogates.
func (p *rtfParser) emitUnit(u rune) {
	switch {
	case utf16.IsSurrogate(u) && u < 0xDC00:
		p.high = u
	case utf16.IsSurrogate(u):
		if p.high != 0 {
			p.emitRune(utf16.DecodeRune(p.high, u))
		}
		p.high = 0
	default:
		p.high = 0
		p.emitRune(u)
	}
}

// emitRune adds a character to the current paragraph. A long paragraph
// outside tables is written as it grows (paraFlushBytes).
func (p *rtfParser) emitRune(r rune) {
	p.para = utf8.AppendRune(p.para, r)
	if len(p.para) < paraFlushBytes {
		return
	}
	if !p.tbl.inTbl {
		if err := p.endTable(); err == nil {
			p.out.Text(p.takePara())
		}
		return
	}
	if err := p.b.hold(len(p.para)); err != nil && p.out.err == nil {
		p.out.err = err // seen by readByte, as a write error would be
	}
}

// flushBytes decodes pending \'hh and 8-bit bytes in the group's code page.
func (p *rtfParser) flushBytes() {
	if len(p.bytes) == 0 {
		return
	}
	s, err := codepage(p.g.cp).NewDecoder().Bytes(p.bytes)
	p.bytes = p.bytes[:0]
	if err != nil {
		s = []byte(string(utf16.Decode([]uint16{0xFFFD})))
	}
	for _, r := range string(s) {
		p.emitRune(r)
	}
}
