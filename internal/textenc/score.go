package textenc

import (
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/encoding/japanese"
)

// plausibility scores decoded text from 0 to 1: the average, over its
// non-ASCII runes, of how likely a human author is to have written that rune
// in that place. It is what decides between charsets that all decode a
// sample without error (GBK, Big5, Shift-JIS, EUC-KR and Windows-1252 often
// all do), so it only looks at the decoded text, never at a detector's
// opinion, and it is a pure function: same text, same score.
//
// The weights are coarse on purpose. A right decoding of real text scores
// 0.8-1.0; a wrong one lands on rare characters, on the private use area,
// on mixed-script or mixed-case words, and scores well under 0.6.
func plausibility(text string, p profile) float64 {
	rs := []rune(text)
	mixed := mixedCaseWords(rs)
	var sum float64
	n, kana, han := 0, 0, 0
	level1 := true // every kanji of a Shift-JIS reading is in JIS level 1
	for i, r := range rs {
		if r < 0x80 {
			continue
		}
		var prev, next rune
		if i > 0 {
			prev = rs[i-1]
		}
		if i+1 < len(rs) {
			next = rs[i+1]
		}
		w := runeWeight(r, prev, next)
		if mixed[i] && (unicode.IsUpper(r) || unicode.IsLower(r)) {
			w = min(w, 0.2)
		}
		script := scriptOf(r)
		if script != scriptOther && inLatinWord(prev, next) {
			w = min(w, 0.1)
		}
		switch {
		case script == scriptKana:
			kana++
			if p == profileZh || p == profileKo {
				w = min(w, 0.3) // GB2312 and KS X 1001 have kana, Chinese and Korean text rarely does
			}
		case script == scriptHan:
			han++
			if p == profileSJIS {
				if isJISLevel1(r) {
					w = max(w, jisLevel1Weight)
				} else {
					level1 = false
				}
			}
			if p == profileKo {
				w *= 0.5 // Korean text is written in Hangul; hanja are the exception
			}
		case script == scriptHangul && (p == profileZh || p == profileJa || p == profileSJIS):
			w = min(w, 0.3) // GBK and EUC-JP bytes hold no Hangul; decoders that yield it misread
		}
		sum += w
		n++
	}
	if n == 0 {
		return 1
	}
	score := sum / float64(n)

	if p == profileWide {
		// A UTF-16 or UTF-32 reading has its own evidence: the byte
		// structure (NULs where ASCII is, valid surrogate pairs), which a
		// wrong byte order or a binary file rarely keeps. What remains to
		// judge is its text: in a language the models know (Hebrew,
		// Arabic, Thai, accented Latin), or mostly ASCII, or made of
		// supplementary-plane characters that only a surrogate pair or a
		// UTF-32 unit reaches.
		score = max(score, textLangPlausibility(text), wideShape(rs))
	}
	if (p == profileJa || p == profileSJIS && !level1) && han > 0 && kana == 0 {
		// Japanese prose without a single kana is rare; Chinese or Korean
		// bytes read as Shift-JIS or EUC-JP give exactly that: kanji only.
		// Not so a Shift-JIS reading whose kanji are all in JIS level 1
		// (lead bytes 0x88-0x98), where no Chinese or Korean byte pair
		// lands (theirs start at 0xA1): a name in a comment ("亀井哲弥")
		// is Japanese without kana.
		score *= 0.7
	}
	return score
}

// inLatinWord reports a CJK character with ASCII on both sides, a letter
// right after it and no space before it: "L間er", "Th關eny", "Martin-宁ic".
// That is how a Latin-1 or Windows-1252 letter inside a Latin word reads as
// GBK, Big5 or Shift-JIS, the letter's byte and the next letter's making
// one character. Real Chinese or Japanese text puts a lone character
// between Latin letters now and then ("设x为y"), never most of them.
func inLatinWord(prev, next rune) bool {
	return isASCIILetter(next) && prev > ' ' && prev < utf8.RuneSelf
}

// wideShape scores a UTF-16 or UTF-32 reading by its shape: 1 when at least
// wideASCIIShare of its characters are printable ASCII or whitespace (a
// wrong byte order turns those into CJK ideographs), or when its non-ASCII
// characters are mostly beyond the BMP in assigned, printable code points.
func wideShape(rs []rune) float64 {
	const wideASCIIShare = 0.6
	ascii, supp, nonASCII := 0, 0, 0
	for _, r := range rs {
		switch {
		case r == '\t' || r == '\n' || r == '\r' || r >= 0x20 && r < 0x7f:
			ascii++
		case r >= utf8.RuneSelf:
			nonASCII++
			if r > 0xffff && unicode.IsPrint(r) {
				supp++
			}
		}
	}
	if len(rs) > 0 && float64(ascii) >= wideASCIIShare*float64(len(rs)) || nonASCII > 0 && supp*2 > nonASCII {
		return 1
	}
	return 0
}

// wideTextOK is the extra check on a UTF-16 or UTF-32 reading, whose bytes
// carry no ASCII to vouch for them: nearly every character must be
// assigned and visible (or white space). Binary data read as UTF-16 gives
// noncharacters (U+FFFE), unassigned code points and controls.
func wideTextOK(text string) bool {
	limit := utf8.RuneCountInString(text) / maxControlShare
	bad := 0
	for _, r := range text {
		if r >= 0x20 && r < 0x7f || r == '\n' || r == '\t' || r == '\r' {
			continue
		}
		if !unicode.IsGraphic(r) && !unicode.IsSpace(r) && r != 0x1b {
			if bad++; bad > limit {
				return false // binary fails within its first few hundred characters
			}
		}
	}
	return true
}

// mixedCaseWords marks the runes of words that turn from lower to upper case
// inside the word ("еДжц"): the shape a cased alphabet takes when bytes of
// another script are read as it. ASCII-only words ("iPhone") are not scored
// anyway.
func mixedCaseWords(rs []rune) []bool {
	mixed := make([]bool, len(rs))
	for i := 0; i < len(rs); {
		if !unicode.IsLetter(rs[i]) {
			i++
			continue
		}
		j, isMixed := i+1, false
		for ; j < len(rs) && unicode.IsLetter(rs[j]); j++ {
			isMixed = isMixed || unicode.IsUpper(rs[j]) && unicode.IsLower(rs[j-1])
		}
		if isMixed {
			for k := i; k < j; k++ {
				mixed[k] = true
			}
		}
		i = j
	}
	return mixed
}

// profile is what a candidate charset says about the language of the text.
type profile int

const (
	profileAny  profile = iota
	profileZh           // GBK, GB18030, Big5
	profileJa           // EUC-JP, ISO-2022-JP
	profileSJIS         // Shift-JIS: Japanese, whose lead byte tells its frequent kanji
	profileKo           // EUC-KR
	profileWide         // UTF-16 and UTF-32
)

func profileOf(charsetName string) profile {
	switch charsetName {
	case "gbk", "gb18030", "big5":
		return profileZh
	case "shift_jis":
		return profileSJIS
	case "euc-jp", "iso-2022-jp":
		return profileJa
	case "euc-kr":
		return profileKo
	case "utf-16le", "utf-16be", "utf-32le", "utf-32be":
		return profileWide
	}
	return profileAny
}

type script int

const (
	scriptOther script = iota
	scriptHan
	scriptKana
	scriptHangul
)

func scriptOf(r rune) script {
	switch {
	case r >= 0x4e00 && r <= 0x9fff:
		return scriptHan
	case r >= 0x3041 && r <= 0x30ff, r >= 0xff61 && r <= 0xff9f:
		return scriptKana
	case r >= 0xac00 && r <= 0xd7a3:
		return scriptHangul
	}
	return scriptOther
}

// runeWeight is the weight of r given its neighbours.
func runeWeight(r, prev, next rune) float64 {
	switch {
	case r >= 0x4e00 && r <= 0x9fff: // CJK unified ideographs
		if isCommonHan(r) {
			return 1
		}
		return 0.25
	case r >= 0x3041 && r <= 0x3093, r == 0x30fc: // hiragana, prolonged sound mark
		return 1
	case r >= 0x30a1 && r <= 0x30f6: // katakana
		return 0.9
	case r >= 0xac00 && r <= 0xd7a3: // Hangul syllables
		if isCommonHangul(r) {
			return 1
		}
		return 0.3
	case r >= 0x3000 && r <= 0x303f: // CJK punctuation
		if strings.ContainsRune("、。〈〉《》「」『』【】〔〕　", r) {
			return 1
		}
		return 0.3
	case r >= 0xff01 && r <= 0xff5e: // fullwidth forms
		if strings.ContainsRune("，！？：；（）％＃＆＊＋－／＝", r) {
			return 1
		}
		return 0.5
	case r >= 0xff61 && r <= 0xff9f: // halfwidth katakana: real, but rare today
		return 0.3
	case r >= 0x0400 && r <= 0x04ff: // Cyrillic
		if !(r >= 0x0410 && r <= 0x044f) && r != 'ё' && r != 'Ё' {
			return alphabetWeight(r, prev, next) * 0.5 // Ukrainian, Serbian, ... letters
		}
		return alphabetWeight(r, prev, next) * letterFrequency(r, "хжшюцщэфъё")
	case r >= 0x0370 && r <= 0x03ff: // Greek
		switch {
		case !unicode.IsLetter(r):
			return 0.3
		case r == 'ΰ' || r == 'ΐ':
			return 0.2 // rare; but Windows-1251's а and А read as ISO-8859-7
		case r == 'ς' && unicode.IsLetter(next):
			return 0.1 // final sigma inside a word: Windows-1251's т
		}
		return alphabetWeight(r, prev, next) * letterFrequency(r, "δγχθφβξζψ")
	case r >= 0xc0 && r <= 0x24f && r != 0xd7 && r != 0xf7: // accented Latin letters
		return latinWeight(r, prev, next)
	case r >= 0xa0 && r <= 0xbf, r == 0xd7, r == 0xf7: // Latin-1 symbols
		switch {
		case strings.ContainsRune("\u00a0«»°©®±×÷·§¿¡£¥¢", r):
			return 0.8
		case r == '´' && isASCIILetter(prev) && isASCIILetter(next):
			return 0.9 // an apostrophe, as many typed it: "user´s"
		}
		return 0.15
	case r >= 0x2010 && r <= 0x206f: // general punctuation
		if strings.ContainsRune("‐–—‘’‚“”„†‡•…‰‹›", r) {
			return 0.9
		}
		return 0.3
	case r == '€', r == '™':
		return 0.8
	case isCJKSymbol(r):
		// Arrows and shapes that GB2312, Big5, KS X 1001 and JIS hold
		// among their first symbols, and lists and menus in those
		// charsets use ("※ ↑ ○ ● △ ▲").
		return 0.8
	case r >= 0x2500 && r <= 0x259f: // box drawing and block elements: what
		// KOI8-R and code page 866 make of CJK bytes; real in their own files,
		// but never most of a text
		return 0.05
	case r < 0xa0, r >= 0xe000 && r <= 0xf8ff, r == 0xfffd: // C1 controls, private use
		return 0
	case unicode.IsLetter(r):
		return 0.4 // another script: possible, but nothing vouches for it
	}
	return 0.2
}

// alphabetWeight scores a Cyrillic or Greek letter. Words of a cased
// alphabet are lower case after their first letter, and do not mix with
// ASCII letters: KOI8-R read as Windows-1251 (or the reverse) swaps the case
// of nearly every letter, and Latin-1 text read as Cyrillic puts Cyrillic
// letters inside Latin words.
func alphabetWeight(r, prev, next rune) float64 {
	if isASCIIAlnum(prev) || isASCIIAlnum(next) {
		return 0.05
	}
	if unicode.IsLower(r) {
		return 1
	}
	if unicode.IsLetter(prev) {
		return 0.15 // upper case inside a word
	}
	return 0.9
}

// letterFrequency lowers the weight of an alphabet's less frequent letters
// (given in lower case), which is what separates Russian from Greek when
// both read as plausible words: Windows-1251 "Привет" is ISO-8859-7 "Οπθβες".
func letterFrequency(r rune, rare string) float64 {
	if strings.ContainsRune(rare, unicode.ToLower(r)) {
		return 0.7
	}
	return 1
}

// latinWeight scores an accented Latin letter. In French, German, Spanish
// and their neighbours an accented letter sits in a word of mostly plain
// letters; a run of accented letters with no ASCII letter beside it is what
// Cyrillic, Greek or Chinese bytes look like when read as Windows-1252.
func latinWeight(r, prev, next rune) float64 {
	weight := 1.0
	if !strings.ContainsRune("àâäçéèêëîïôöùûüÿñáíóúßœæãõåøÀÂÄÇÉÈÊËÎÏÔÖÙÛÜŸÑÁÍÓÚŒÆÃÕÅØ", r) {
		weight = 0.5 // ì ò ý ð þ, Latin Extended-A: real, but less common
	}
	if unicode.IsUpper(r) && unicode.IsLower(prev) {
		return 0.15 // upper case inside a word
	}
	switch {
	case isASCIILetter(prev) || isASCIILetter(next):
		return weight
	case !unicode.IsLetter(prev) && !unicode.IsLetter(next):
		return weight * 0.9 // a one-letter word: French "à", Spanish "ñ" rarely
	}
	return weight * 0.35
}

func isASCIIAlnum(r rune) bool {
	return isASCIILetter(r) || r >= '0' && r <= '9'
}

func isASCIILetter(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
}

// hanBits and hangulBits are bit sets over the CJK unified ideographs and
// the Hangul syllables, built once from tables.go.
var (
	hanBits    = runeBits(commonHan, 0x4e00, 0x9fff)
	hangulBits = runeBits(commonHangul, 0xac00, 0xd7a3)
)

func runeBits(s string, lo, hi rune) []uint64 {
	bits := make([]uint64, (hi-lo)/64+1)
	for _, r := range s {
		if r >= lo && r <= hi {
			bits[(r-lo)/64] |= 1 << ((r - lo) % 64)
		}
	}
	return bits
}

func isCommonHan(r rune) bool    { return hanBits[(r-0x4e00)/64]&(1<<((r-0x4e00)%64)) != 0 }
func isCommonHangul(r rune) bool { return hangulBits[(r-0xac00)/64]&(1<<((r-0xac00)%64)) != 0 }

// jisLevel1Weight is the weight of a kanji of JIS X 0208 level 1, the
// 2,965 in everyday use, read as Shift-JIS.
const jisLevel1Weight = 0.6

// jisLevel1 holds the runes of JIS X 0208 level 1 (Shift-JIS
// 0x889F-0x9872), as a bit set over the CJK ideographs, built once by
// decoding that byte range with x/text's table.
var jisLevel1 = sync.OnceValue(func() []uint64 {
	bits := make([]uint64, (0x9fff-0x4e00)/64+1)
	dec := japanese.ShiftJIS.NewDecoder()
	for lead := 0x88; lead <= 0x98; lead++ {
		for trail := 0x40; trail <= 0xfc; trail++ {
			b, err := dec.Bytes([]byte{byte(lead), byte(trail)})
			if err != nil {
				continue
			}
			if r, _ := utf8.DecodeRune(b); r >= 0x4e00 && r <= 0x9fff {
				bits[(r-0x4e00)/64] |= 1 << ((r - 0x4e00) % 64)
			}
		}
	}
	return bits
})

func isJISLevel1(r rune) bool {
	return r >= 0x4e00 && r <= 0x9fff && jisLevel1()[(r-0x4e00)/64]&(1<<((r-0x4e00)%64)) != 0
}

// isCJKSymbol reports the arrows and shapes that GB2312, Big5, KS X 1001
// and JIS hold among their first symbols.
func isCJKSymbol(r rune) bool {
	return r >= 0x2190 && r <= 0x2199 || r >= 0x25a0 && r <= 0x25ff || strings.ContainsRune("※☆★♀♂〓", r)
}
