package textenc

import (
	"math"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/encoding/korean"
)

// cjkPreferred settles a near tie between the best multi-byte reading mb
// and the best single-byte one in mb's favour when mb reads the sample as
// CJK text through and through: every non-ASCII character a Han
// character, kana, Hangul syllable, CJK punctuation or a symbol of the CJK
// charsets, none inside a Latin word. Then mb wins if it scored at least
// as well (ahead is true); and GBK, the charset most of the legacy text we
// read is in, wins even if it scored less, when its reading is plausible
// Chinese (minCJKScore): a 5-line config ("title = 用户手册"),
// whose few Han characters also read as a handful of Windows-1251 or
// KOI8-R letters. Neither holds when the bytes read as Korean as well
// (the EUC-KR reading is plausible Hangul syllables only) and mb is not
// EUC-KR: then Chinese and Korean explain the bytes alike.
func cjkPreferred(mb charset, ahead bool, head []byte, atEOF bool) bool {
	text, ok := decodeSample(mb.enc, head, atEOF)
	if !ok {
		return false
	}
	han, other := cjkShape(text)
	if han+other == 0 || han < 0 {
		return false
	}
	if mb.name != "euc-kr" {
		if kr, ok := decodeSample(korean.EUCKR, head, atEOF); ok && onlyHangul(kr) > 0 && plausibility(kr, profileKo) >= minScore {
			return false
		}
	}
	return ahead || mb.name == "gbk" && other == 0 && plausibility(text, profileZh) >= minCJKScore
}

// cjkShape counts a text's non-ASCII characters that are Han (han) and
// those that are other CJK characters (kana, Hangul, CJK punctuation,
// full-width forms, the CJK charsets' symbols); han is -1 when one is
// neither, or sits inside a Latin word.
func cjkShape(text string) (han, other int) {
	rs := []rune(text)
	for i, r := range rs {
		if r < utf8.RuneSelf {
			continue
		}
		var prev rune
		if i > 0 {
			prev = rs[i-1]
		}
		var next rune
		if i+1 < len(rs) {
			next = rs[i+1]
		}
		switch sc := scriptOf(r); {
		case sc != scriptOther && inLatinWord(prev, next), r >= 0xff61 && r <= 0xff9f:
			// In a Latin word; or half-width katakana, which Shift-JIS
			// makes of any byte from 0xA1 to 0xDF.
			return -1, 0
		case sc == scriptHan:
			han++
		case sc != scriptOther, isCJKSymbol(r):
			other++
		case r >= 0x3000 && r <= 0x303f, r >= 0xff01 && r <= 0xff5e:
			// CJK punctuation and full-width forms: any CJK text has them
		default:
			return -1, 0
		}
	}
	return han, other
}

// mostlyASCIIPairs reports a sample at least half of whose two-byte units
// are two ASCII characters. UTF-16 text without a NUL byte has no ASCII
// character at all (a space or a newline is 0x0020, 0x000A), and only some
// CJK ideographs (U+4E20-U+7E7E) are made of two ASCII bytes; 8-bit text
// with spaces, newlines and escape sequences is made of little else, and
// read as UTF-16 it is "†††᭛㌱" (a Big5 drawing from a BBS was staged so).
func mostlyASCIIPairs(head []byte) bool {
	units, ascii := 0, 0
	for i := 0; i+1 < len(head); i += 2 {
		units++
		if isASCIIText(head[i]) && isASCIIText(head[i+1]) {
			ascii++
		}
	}
	return ascii*2 >= units
}

// isASCIIText reports a printable ASCII byte or ASCII white space.
func isASCIIText(c byte) bool { return c >= 0x20 && c < 0x7f || c == '\t' || c == '\n' || c == '\r' }

// onlyHangul counts the different Hangul syllables of a text whose
// non-ASCII characters are all Hangul syllables; 0 if one is not. A word
// repeated (a font's name in every rule of a style sheet, a message
// printed twice) is one piece of evidence, not many.
func onlyHangul(text string) int {
	seen := make(map[rune]bool)
	for _, r := range text {
		if r >= utf8.RuneSelf {
			if scriptOf(r) != scriptHangul {
				return 0
			}
			seen[r] = true
		}
	}
	return len(seen)
}

// gbkHangulShare is the share of the characters of Chinese text in GBK
// whose bytes EUC-KR reads as a Hangul syllable (lead byte 0xB0-0xC8, the
// first 25 of GB2312's 72 rows of characters, where pinyin A to Q sits;
// punctuation and the rest of the alphabet are elsewhere): about six in
// ten. From minHangulShape such characters on, a GBK reading is weighed
// by the chance that all of them fall there, 0.6^n (n different
// characters); a word or two is, when the GBK reading is not plausible
// Chinese either (minCJKScore): "굴림" in a style sheet is "奔覆" in GBK,
// two common characters that make no word, but "代码" stays Chinese.
const (
	gbkHangulShare = 0.6
	minHangulShape = 4
)

// big5LowTrailShare is the share of Big5 characters whose second byte is
// in 0x40-0x7E: 63 of each row's 157 cells.
const big5LowTrailShare = 0.4

// big5ShapeLikelihood is how likely Big5 text is to have the byte shape of
// the sample, when the sample also reads as Hangul syllables only: the
// chance that none of its n double-byte characters has a second byte below
// 0x7F, (1-0.4)^n, or 1 if one has. Every EUC-KR byte is 0xA1 or above;
// four Big5 characters in ten are not. So "돋움" (B5B8 BFF2), which Big5
// reads as the common "絡遺", is Korean: two Big5 characters with high
// second bytes happen a third of the time, two Hangul syllables always.
func big5ShapeLikelihood(head []byte) float64 {
	n := 0
	for i := 0; i < len(head); i++ {
		c := head[i]
		if c < 0x81 || c == 0xff || i+1 == len(head) {
			continue
		}
		if head[i+1] < 0x7f {
			return 1
		}
		n++
		i++
	}
	return math.Pow(1-big5LowTrailShare, float64(n))
}

// hasLetterRune reports a non-ASCII letter in text: Han, kana, Hangul, or
// the accented Latin that GB18030's four-byte sequences encode (x/text's
// own test file is Candide in French, in GB18030).
func hasLetterRune(text string) bool {
	for _, r := range text {
		if r >= utf8.RuneSelf && unicode.IsLetter(r) {
			return true
		}
	}
	return false
}

// minDrawingShare is the share of a reading's non-ASCII characters that
// must be box drawing, blocks, shapes or arrows for it to be a drawing.
const minDrawingShare = 0.5

// minCaptionedDrawing is how many drawing characters a reading with
// letters needs to be a drawing with a caption: "【】" twice in a GBK
// script reads as Big5's "▽▼▽▼" beside three Han characters, a drawing
// by share alone.
const minCaptionedDrawing = 6

// drawingReading finds the one CJK charset in which a sample is a
// drawing: a BBS's ANSI art in Big5 is "◢◣▁▂▇█●" there, with a caption
// of a few Han characters ("招財狗") or none, and punctuation, Greek
// letters, brackets or random Han characters in GBK, EUC-KR or EUC-JP.
// When no charset or more than one reads a drawing, there is none. A
// drawing scores little as text (box drawing weighs 0.05), and a
// single-byte charset reads its bytes as symbols too ("¢®¢i¢©" in Mac
// Roman), so it is decided by this shape, not by the scores.
func drawingReading(head []byte, atEOF bool) (charset, bool) {
	var found charset
	n := 0
	for _, c := range multiByteCharsets {
		text, ok := decodeSample(c.enc, head, atEOF)
		if !ok || checkText(text) != nil {
			continue
		}
		all, drawing, letters := 0, 0, 0
		for _, r := range text {
			if r >= utf8.RuneSelf {
				all++
				switch {
				case isBoxDrawing(r) || isCJKSymbol(r):
					drawing++
				case unicode.IsLetter(r):
					letters++
				}
			}
		}
		if all > 0 && float64(drawing) >= minDrawingShare*float64(all) && (letters == 0 || drawing >= minCaptionedDrawing) {
			found = c
			n++
		}
	}
	return found, n == 1
}
