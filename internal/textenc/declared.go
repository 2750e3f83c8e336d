package textenc

import (
	"bytes"
	"encoding/binary"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/encoding/htmlindex"
)

// declaration is a charset a file names for itself: in its head (an HTML
// meta, an XML prolog, an Emacs or vim coding line, vim's scriptencoding,
// a po header) or in its file name (menu_de_de.latin1.vim).
type declaration struct {
	label string  // as written, lower-cased: "latin1", "iso-8859-1", "cp936"
	c     charset // ours; for UTF-8 the name "utf-8" and a nil decoder
}

// declHeadBytes bounds the head searched for a declaration. vim's po
// headers name their charset within the first 7.2 KB (the longest copyright
// block); HTML, XML, Emacs and vim put theirs in the first lines.
const declHeadBytes = 8 << 10

// maxDeclarations bounds how many declarations are weighed: the first two
// in the head and the file name's.
const maxDeclarations = 3

// findDeclarations lists the charsets a file declares, the head's first (in
// the order they appear), then the file name's. name is the file's base
// name; head is the start of the file. Labels no decoder of ours reads
// ("CHARSET" in a po template, cp737) are left out.
func findDeclarations(head []byte, name string) []declaration {
	var out []declaration
	if len(head) > declHeadBytes {
		head = head[:declHeadBytes]
	}
	var buf [declHeadBytes]byte // on the stack: this runs for every file with a non-ASCII byte
	lower := lowerInto(buf[:len(head)], head)
	codingEnd := 0 // the end of the first maxCodingLine lines
	for n := 0; n < maxCodingLine && codingEnd < len(lower); n++ {
		if i := bytes.IndexByte(lower[codingEnd:], '\n'); i >= 0 {
			codingEnd += i + 1
		} else {
			codingEnd = len(lower)
		}
	}
	var next [len(declMarkers)]int // where each marker occurs next, at or after from; -1: nowhere
	for m := range next {
		next[m] = markerFrom(head, lower, codingEnd, m, 0)
	}
	for from := 0; len(out) < maxDeclarations-1; {
		// The earliest marker: "scriptencoding" is found where it starts,
		// before the "coding" inside it. Each marker's next place is
		// searched for only once it is passed, so the head is scanned once
		// per marker however many "set"s and "encoding"s it holds.
		m := -1
		for k, at := range next {
			if at >= 0 && (m < 0 || at < next[m]) {
				m = k
			}
		}
		if m < 0 {
			break
		}
		at := next[m]
		from = at + len(declMarkers[m])
		if label, ok := declaredLabelAt(head, lower, at, from, codingEnd, declMarkers[m]); ok {
			if c, ok := lookupCharset(label, false); ok {
				out = append(out, declaration{label: label, c: c})
			}
		}
		for k := range next {
			if next[k] >= 0 && next[k] < from {
				next[k] = markerFrom(head, lower, codingEnd, k, from)
			}
		}
	}
	if d, ok := nameDeclaration(name); ok {
		out = append(out, d)
	}
	return out
}

// markerFrom is where declMarkers[m] occurs next in lower, at or after
// from, or -1, skipping the places declaredLabelAt refuses on sight: a
// "coding" past the coding lines (from codingEnd on) and a "set" not in
// capitals in head. Skipping them changes nothing else: no marker starts
// inside "coding" or "set", so passing one never hides another.
func markerFrom(head, lower []byte, codingEnd, m, from int) int {
	if searchEveryMarker {
		return indexFrom(lower, declMarkers[m], from)
	}
	switch declMarkers[m] {
	case "coding":
		end := min(len(lower), codingEnd+len("coding")-1)
		if from >= end {
			return -1
		}
		return indexFrom(lower[:end], "coding", from)
	case "set":
		return indexFrom(head, "SET", from)
	}
	return indexFrom(lower, declMarkers[m], from)
}

// searchEveryMarker turns markerFrom's skipping off: the tests' reference.
var searchEveryMarker = false

// lowerInto writes src with ASCII capitals lower-cased into dst, of
// src's length, eight bytes at a time, and returns dst. Only ASCII: the
// labels and markers are ASCII, other bytes stay.
func lowerInto(dst, src []byte) []byte {
	const (
		ones = 0x0101010101010101
		high = 0x8080808080808080
	)
	i := 0
	for ; i+8 <= len(src); i += 8 {
		x := binary.LittleEndian.Uint64(src[i:])
		low := x | high // each byte's low seven bits over a set top bit: no borrow crosses it
		upper := (low - ones*'A') & ^(low - ones*('Z'+1)) & ^x & high
		binary.LittleEndian.PutUint64(dst[i:], x|upper>>2) // 0x80>>2 is 'a'-'A'
	}
	for ; i < len(src); i++ {
		c := src[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst[i] = c
	}
	return dst
}

// declMarkers are what introduces a declared label in a lower-cased head:
//
//   - "charset": `<meta charset="x">`, `content="text/html; charset=x"`, a po
//     header's "Content-Type: text/plain; charset=x", CSS's `@charset "x"`;
//   - "coding", in the first five lines (where Emacs, Python and vim look,
//     and where an XML prolog is): Emacs's `-*- coding: x -*-`, Python's
//     `# coding=x`, vim's `fileencoding=x` and XML's `encoding="x"`, which
//     end in it;
//   - "scriptencoding": vim's `scriptencoding x`, at the start of a line;
//   - "code_page": a Windows resource script's `#pragma code_page(1252)`;
//   - "set": a hunspell affix file's `SET ISO8859-1`, in capitals at the
//     start of a line (or of a diff's line: vim keeps its spell files'
//     changes as diffs);
//   - "languagecodepage": an Inno Setup message file's
//     `LanguageCodePage=1257`, at the start of a line (0 there means
//     Unicode, a label no charset has).
var declMarkers = [...]string{"charset", "coding", "scriptencoding", "code_page", "set", "languagecodepage"}

// declaredLabelAt reads the label after a marker found at lower[at:end]
// (head is the same bytes before lower-casing), if the marker stands where
// its syntax puts it; codingEnd is where the lines a coding line may be on
// end.
func declaredLabelAt(head, lower []byte, at, end, codingEnd int, marker string) (string, bool) {
	rest := lower[end:]
	switch marker {
	case "charset":
		rest = bytes.TrimLeft(rest, " \t")
		switch {
		case bytes.HasPrefix(rest, []byte("=")):
			rest = rest[1:]
		case at > 0 && lower[at-1] == '@': // CSS: @charset "x";
		default:
			return "", false
		}
	case "coding":
		if at >= codingEnd {
			return "", false
		}
		rest = bytes.TrimLeft(rest, " \t")
		if len(rest) == 0 || rest[0] != ':' && rest[0] != '=' {
			return "", false
		}
		rest = rest[1:]
	case "scriptencoding":
		if !atLineStart(lower, at, " \t:") || len(rest) == 0 || rest[0] != ' ' && rest[0] != '\t' {
			return "", false
		}
	case "set":
		if !atLineStart(lower, at, " \t+-!<>") || string(head[at:end]) != "SET" || len(rest) == 0 || rest[0] != ' ' {
			return "", false
		}
	case "languagecodepage":
		rest = bytes.TrimLeft(rest, " \t")
		if !atLineStart(lower, at, " \t") || len(rest) == 0 || rest[0] != '=' {
			return "", false
		}
		rest = rest[1:]
	case "code_page":
		if !bytes.HasSuffix(bytes.TrimRight(lower[:at], " \t"), []byte("#pragma")) || !bytes.HasPrefix(rest, []byte("(")) {
			return "", false
		}
		rest = rest[1:]
	}
	rest = bytes.TrimLeft(rest, " \t\"'")
	n := 0
	for n < len(rest) && n < maxLabelBytes && isLabelByte(rest[n]) {
		n++
	}
	if n == 0 || n == maxLabelBytes {
		return "", false
	}
	return string(rest[:n]), true
}

// atLineStart reports that only bytes of allowed stand between the line's
// start and b[at]; it reads back no further than those bytes.
func atLineStart(b []byte, at int, allowed string) bool {
	for at > 0 && strings.IndexByte(allowed, b[at-1]) >= 0 {
		at--
	}
	return at == 0 || b[at-1] == '\n'
}

// maxCodingLine is how many lines a coding line may follow: vim reads
// modelines in the first five, Emacs and Python look at the first two.
const maxCodingLine = 5

// maxLabelBytes bounds a charset label: the longest WHATWG label is 24
// bytes ("unicode-1-1-utf-8", "csiso2022kr", "iso_8859-1:1987").
const maxLabelBytes = 40

func isLabelByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.' || c == ':'
}

// nameDeclaration reads a charset in a file name, as vim names its menus,
// keymaps and translations (menu_de_de.latin1.vim, greek_cp1253.vim,
// menu_chinese_gb.936.vim, ja.sjis.po, menu_cs_cz.iso_8859-2.vim). Each
// dot-separated part is tried whole, then by its pieces between
// underscores; a word alone ("greek", "korean", "chinese") is a language,
// not a charset, so a part must hold a digit or be a charset's own name.
func nameDeclaration(name string) (declaration, bool) {
	parts := strings.Split(strings.ToLower(name), ".")
	for i, part := range parts {
		if i == len(parts)-1 && len(parts) > 1 {
			break // the extension
		}
		pieces := []string{part}
		if strings.Contains(part, "_") {
			pieces = append(pieces, strings.Split(part, "_")...)
			for j := strings.IndexByte(part, '_'); j >= 0; j = indexByteFrom(part, '_', j+1) {
				pieces = append(pieces, part[j+1:], part[:j])
			}
		}
		for _, p := range pieces {
			if c, ok := lookupCharset(p, true); ok {
				return declaration{label: p, c: c}, true
			}
		}
	}
	return declaration{}, false
}

// indexByteFrom is strings.IndexByte from an offset.
func indexByteFrom(s string, c byte, from int) int {
	if i := strings.IndexByte(s[from:], c); i >= 0 {
		return from + i
	}
	return -1
}

// indexFrom is bytes.Index of marker in b from an offset.
func indexFrom(b []byte, marker string, from int) int {
	if i := bytes.Index(b[from:], []byte(marker)); i >= 0 {
		return from + i
	}
	return -1
}

// charsetAliases are labels in use that WHATWG's list (htmlindex) lacks:
// Python's and iconv's names, Windows code page numbers as vim writes them
// in file names, and the DOS code pages, which WHATWG leaves out but for
// 866.
var charsetAliases = map[string]string{
	"latin-1": "windows-1252", "latin-2": "iso-8859-2", "latin9": "iso-8859-15", "latin-9": "iso-8859-15",
	"koi8r": "koi8-r", "koi8u": "koi8-u",
	"euckr": "euc-kr", "cp949": "euc-kr", "uhc": "euc-kr", "949": "euc-kr",
	"eucjp": "euc-jp", "ujis": "euc-jp",
	"cp932": "shift_jis", "932": "shift_jis", "shiftjis": "shift_jis",
	"cp936": "gbk", "936": "gbk", "ms936": "gbk", "euc-cn": "gbk", "euccn": "gbk", "18030": "gb18030",
	"cp950": "big5", "950": "big5",
	"1250": "windows-1250", "1251": "windows-1251", "1252": "windows-1252", "1253": "windows-1253",
	"1254": "windows-1254", "1255": "windows-1255", "1256": "windows-1256", "1257": "windows-1257",
	"1258": "windows-1258", "874": "windows-874", "cp874": "windows-874",
	"437": "ibm437", "cp437": "ibm437", "ibm437": "ibm437",
	"850": "ibm850", "cp850": "ibm850", "ibm850": "ibm850",
	"852": "ibm852", "cp852": "ibm852", "ibm852": "ibm852",
	"855": "ibm855", "cp855": "ibm855", "ibm855": "ibm855",
	"858": "ibm00858", "cp858": "ibm00858", "ibm858": "ibm00858",
	"860": "ibm860", "cp860": "ibm860", "ibm860": "ibm860",
	"862": "ibm862", "cp862": "ibm862", "ibm862": "ibm862",
	"863": "ibm863", "cp863": "ibm863", "ibm863": "ibm863",
	"865": "ibm865", "cp865": "ibm865", "ibm865": "ibm865",
	"macroman": "macintosh", "mac-roman": "macintosh", "maccyrillic": "x-mac-cyrillic",
	"microsoft-cp1251": "windows-1251", "microsoft-cp1250": "windows-1250", "microsoft-cp1252": "windows-1252",
}

// nameWords are the charset labels without a digit that a file name may
// carry; any other word in a name is taken for a language or a topic.
var nameWords = map[string]bool{
	"gbk": true, "sjis": true, "shiftjis": true, "shift_jis": true, "euckr": true, "euc-kr": true,
	"eucjp": true, "euc-jp": true, "ujis": true, "euccn": true, "euc-cn": true, "uhc": true, "macroman": true,
}

// lookupCharset maps a declared label to one of our charsets: WHATWG's
// labels through htmlindex (so "iso-8859-1", "latin1" and "ascii" are
// Windows-1252, as browsers read them), then charsetAliases. inName
// restricts the labels to those a file name can be trusted with.
func lookupCharset(label string, inName bool) (charset, bool) {
	label = strings.Trim(label, ".:-_")
	if inName {
		hasDigit := strings.ContainsAny(label, "0123456789")
		if len(label) < 3 || !hasDigit && !nameWords[label] || label[0] == 'l' && len(label) <= 3 {
			return charset{}, false // "l1", "l2": WHATWG labels, but also any name's piece
		}
	}
	name := charsetAliases[label]
	if name == "" {
		enc, err := htmlindex.Get(label)
		if err != nil {
			return charset{}, false
		}
		if name, err = htmlindex.Name(enc); err != nil {
			return charset{}, false
		}
	}
	switch name {
	case "utf-8":
		return charset{name: "utf-8"}, true
	case "gb18030":
		name = "gbk" // our GBK candidate is the GB18030 decoder; it reports gb18030 when it sees one
	case "iso-8859-8-i":
		name = "iso-8859-8"
	}
	for _, cs := range [][]charset{multiByteCharsets, singleByteCharsets} {
		for _, c := range cs {
			if c.name == name {
				return c, true
			}
		}
	}
	return charset{}, false // UTF-16 without a BOM, ISO-2022, replacement, x-user-defined
}

// decideDeclared is decide with the file's declarations weighed first: the
// first one the bytes agree with decides the charset, whether or not it is
// the reading detection would score best (a Finnish menu in Latin-1, which
// no language model of ours explains, is as its scriptencoding says). When
// the bytes contradict every declaration, detection decides and the first
// declaration is reported ignored. Valid UTF-8 is never read as another
// declared charset: its multi-byte sequences are stronger evidence than
// any label.
func decideDeclared(head []byte, atEOF, atStart bool, decls []declaration) decision {
	if len(decls) == 0 {
		return decide(head, atEOF, atStart)
	}
	isUTF8 := validUTF8Sample(head, atEOF)
	for _, dc := range decls {
		if dc.c.enc == nil && !isUTF8 || dc.c.enc != nil && (isUTF8 || !declaredFits(dc.c, head, atEOF)) {
			continue
		}
		if dc.c.enc == nil {
			d := decide(head, atEOF, atStart) // valid UTF-8, and the mojibake flag
			d.declared = dc.label
			return d
		}
		return decision{charset: dc.c, declared: dc.label}
	}
	d := decide(head, atEOF, atStart)
	d.declared, d.declaredIgnored = decls[0].label, true
	if d.err == nil && sameReading(d.charset, decls[0].c, head, atEOF) {
		d.declaredIgnored = false // detection read it as declared, by another name
	}
	return d
}

// declaredFits reports whether the bytes agree with a declared charset:
// they decode without error, pass the checks every decoding passes, and
// the text is plausible, though not necessarily the most plausible reading
// there is: by the language models or letter by letter (a name or two in
// English text); or it is a list of lone letters (a keymap: "a <char-249>
// " ש") or a table of codes in order (codeTable), which no model can
// judge; or it has too few non-ASCII characters to contradict anything.
func declaredFits(c charset, head []byte, atEOF bool) bool {
	text, ok := decodeSample(c.enc, head, atEOF)
	// As many controls as valid UTF-8 may hold: the file says it is text
	// in c (a vim keymap holds a literal ^V on every line).
	if !ok || checkTextShare(text, maxUTF8ControlShare) != nil {
		return false
	}
	if p := profileOf(c.name); p != profileAny {
		return plausibility(text, p) >= minScore || unjudgeable(text)
	}
	if cjkText(head, atEOF) {
		return false
	}
	pos := nonASCIIPositions(head)
	if plausibility(text, profileAny) >= minScore || unjudgeable(text) || codeTable(head, pos) {
		return true
	}
	for ci, sc := range singleByteCharsets {
		if sc.name == c.name {
			s, ok := scoreSingleByte(ci, head, pos, atEOF, nil)
			// Capitals cost nothing here: they tell CJK bytes from Russian
			// ones, and a declared Windows-1251 "ОШИБКА" is Russian.
			s.units -= s.caps
			return ok && s.plausibility() >= minScore
		}
	}
	return false
}

// Shapes of text whose letters no model judges.
const (
	// maxUnjudgedRunes is how many non-ASCII characters a text may have and
	// still be too little to contradict a declaration.
	maxUnjudgedRunes = 3
	// minLoneShare is the share of non-ASCII characters that must be letters
	// standing alone (no letter on either side) for a text to be a list of
	// letters.
	minLoneShare = 0.8
)

// unjudgeable reports a text with at most maxUnjudgedRunes non-ASCII
// characters, or one whose non-ASCII characters are all letters or marks,
// most of them standing alone: a keymap, a character table.
func unjudgeable(text string) bool {
	rs := []rune(text)
	nonASCII, lone, other := 0, 0, 0
	for i, r := range rs {
		if r < utf8.RuneSelf {
			continue
		}
		nonASCII++
		switch {
		case !isWordLetter(r):
			other++
		case (i == 0 || !isWordLetter(rs[i-1])) && (i+1 == len(rs) || !isWordLetter(rs[i+1])):
			lone++
		}
	}
	if nonASCII <= maxUnjudgedRunes {
		return true
	}
	return other == 0 && float64(lone) >= minLoneShare*float64(nonASCII)
}

// sameReading reports whether two charsets read the sample's bytes alike.
func sameReading(a, b charset, head []byte, atEOF bool) bool {
	if a.name == b.name {
		return true
	}
	if a.enc == nil || b.enc == nil {
		return false
	}
	ta, oka := decodeSample(a.enc, head, atEOF)
	tb, okb := decodeSample(b.enc, head, atEOF)
	return oka && okb && ta == tb
}

// minCJKScore is the plausibility from which a multi-byte reading that is
// CJK through and through contradicts a single-byte declaration.
const minCJKScore = 0.75

// cjkText reports bytes that pair up into CJK text: a GBK, Big5,
// Shift-JIS, EUC-JP or EUC-KR reading that is Han, kana, Hangul and CJK
// punctuation only, and plausible (minCJKScore). Latin-1 text never does;
// a Big5 Python script that says "coding: latin1" to get its bytes past
// Python 2 does.
func cjkText(head []byte, atEOF bool) bool {
	for _, c := range multiByteCharsets {
		text, ok := decodeSample(c.enc, head, atEOF)
		if !ok || checkText(text) != nil {
			continue
		}
		if han, other := cjkShape(text); han+other > 0 && han >= 0 && plausibility(text, profileOf(c.name)) >= minCJKScore {
			return true
		}
	}
	return false
}
