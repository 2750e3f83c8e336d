package textenc

import (
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/encoding/charmap"
)

// singleByteCharsets are every ASCII-compatible single-byte charset of
// golang.org/x/text, in order of prior likelihood (which breaks exact ties:
// Windows-1252 before ISO-8859-1, Windows-1254 before ISO-8859-9, Windows-1255
// before ISO-8859-8, whose bytes often decode the same). Left out: the EBCDIC
// code pages (IBM037, IBM1047, IBM1140), which are not ASCII-compatible and
// which no repository holds as text, and X-User-Defined, which maps to the
// private use area.
var singleByteCharsets = []charset{
	// Common: the legacy charsets most text in these scripts was written in.
	{"windows-1252", charmap.Windows1252},
	{"windows-1251", charmap.Windows1251},
	{"koi8-r", charmap.KOI8R},
	{"iso-8859-7", charmap.ISO8859_7},
	{"windows-1250", charmap.Windows1250},
	{"iso-8859-2", charmap.ISO8859_2},
	{"iso-8859-1", charmap.ISO8859_1},
	// Less common.
	{"windows-1254", charmap.Windows1254},
	{"windows-1255", charmap.Windows1255},
	{"windows-1256", charmap.Windows1256},
	{"windows-1253", charmap.Windows1253},
	{"windows-1257", charmap.Windows1257},
	{"windows-874", charmap.Windows874},
	{"iso-8859-5", charmap.ISO8859_5},
	{"ibm866", charmap.CodePage866},
	{"koi8-u", charmap.KOI8U},
	{"x-mac-cyrillic", charmap.MacintoshCyrillic},
	{"iso-8859-15", charmap.ISO8859_15},
	{"iso-8859-9", charmap.ISO8859_9},
	{"iso-8859-8", charmap.ISO8859_8},
	{"iso-8859-6", charmap.ISO8859_6},
	{"iso-8859-13", charmap.ISO8859_13},
	// Rare: obsolete ISO-8859 parts, DOS code pages, Mac Roman, and
	// Windows-1258 (Vietnamese text was mostly VISCII, VNI or TCVN3, which
	// x/text lacks, before UTF-8).
	{"windows-1258", charmap.Windows1258},
	{"iso-8859-16", charmap.ISO8859_16},
	{"iso-8859-4", charmap.ISO8859_4},
	{"macintosh", charmap.Macintosh},
	{"ibm855", charmap.CodePage855},
	{"ibm852", charmap.CodePage852},
	{"ibm850", charmap.CodePage850},
	{"ibm437", charmap.CodePage437},
	{"ibm862", charmap.CodePage862},
	{"iso-8859-3", charmap.ISO8859_3},
	{"iso-8859-10", charmap.ISO8859_10},
	{"iso-8859-14", charmap.ISO8859_14},
	{"ibm865", charmap.CodePage865},
	{"ibm860", charmap.CodePage860},
	{"ibm863", charmap.CodePage863},
	{"ibm00858", charmap.CodePage858},
}

// priorBits is the prior cost of the charset at index i of
// singleByteCharsets, in bits, paid once per file: 0 for Windows-1252 and
// ISO-8859-1, westernLeadBits more for every other charset, and on top of
// that 0 for the other common ones, 3 for the less common, 12 for the
// rare. It matters when a file holds few non-ASCII bytes: "niño" read as
// ISO-8859-4 is Latvian-looking "niņo", and only the prior says that
// Windows-1252 is far more likely. 8 bits for the rare ones was too
// little: hunspell's Norwegian nb_NO.dic (Latin-1, one "è" among 783
// non-ASCII bytes) read as ISO-8859-4's "č" at the same total, and was
// refused.
func priorBits(i int) int {
	switch {
	case i == 0 || singleByteCharsets[i].name == "iso-8859-1":
		return 0
	case i < 7:
		return westernLeadBits
	case i < 22:
		return westernLeadBits + 3
	}
	return westernLeadBits + 12
}

// westernLeadBits is how much more likely, a priori, Windows-1252 (and
// Latin-1, which reads its letters alike) is than any other charset: the
// charset of Western Europe, the Americas and every English Windows
// system, by far the most common legacy charset in the files we read. A
// factor of four. It decides what no letter does: an English web page
// whose one accented letter ("Jon Breitenbèucher") reads as Czech "č" in
// Windows-1250 at the same cost, the curly quotes, dashes and no-break
// spaces around it being the same bytes in both.
const westernLeadBits = 2

// sbTable is a single-byte charset's upper half, with what the scorer needs
// of each byte precomputed.
type sbTable struct {
	langs []int // the models whose letters the charset can write (minCoverage)
	runes [256]rune
	ids   [256]uint16 // letter id (langSet.id)
	sym   [256]uint16 // cost in quarter bits of a byte that is not a letter (0 for letters)
	flags [256]uint8
}

const (
	flagLetter = 1 << iota
	flagUpper
	flagLower
	flagUndefined // the charset maps no character to this byte
	flagMark      // a combining mark no model knows (Hebrew points): see markCost
)

var sbTables = sync.OnceValue(func() []*sbTable {
	s := langs()
	tables := make([]*sbTable, len(singleByteCharsets))
	for i, c := range singleByteCharsets {
		cm := c.enc.(*charmap.Charmap)
		t := new(sbTable)
		for b := range 256 {
			r := cm.DecodeByte(byte(b))
			t.runes[b] = r
			t.ids[b] = s.id(r)
			switch {
			case r == utf8.RuneError:
				t.flags[b] |= flagUndefined
			case isUnknownMark(r, t.ids[b]):
				t.flags[b] |= flagMark
			case isWordLetter(r):
				t.flags[b] |= flagLetter
				if unicode.IsUpper(r) || unicode.IsTitle(r) {
					t.flags[b] |= flagUpper
				}
				if unicode.IsLower(r) {
					t.flags[b] |= flagLower
				}
			case b >= 0x80:
				t.sym[b] = symbolCost(r)
			}
		}
		t.langs = compatibleLangs(s, t)
		tables[i] = t
	}
	return tables
})

// minCoverage is the share of a language's non-ASCII letters (weighted by
// how often they occur) that a charset must be able to write for its
// readings to be scored in that language. Text in a language is written
// in a charset made for it: Vietnamese only in Windows-1258, Hungarian in
// Windows-1250, ISO-8859-2 or -16, code page 852. Without this a language
// whose every syllable carries an accent (Vietnamese) explains the "è"
// and "à" of Italian read as Windows-1258 better than Italian does.
const minCoverage = 0.97

// compatibleLangs lists the models whose letters t can write.
func compatibleLangs(s *langSet, t *sbTable) []int {
	has := map[rune]bool{}
	for b := 0x80; b < 0x100; b++ {
		has[t.runes[b]] = true
	}
	var out []int
	for li, m := range s.models {
		total, covered := 0.0, 0.0
		for i, r := range m.alphabet {
			if r < utf8.RuneSelf {
				continue
			}
			total += m.freq[i]
			if has[r] || has[unicode.ToUpper(r)] || has[sameLetter[r]] {
				covered += m.freq[i]
			}
		}
		if total == 0 || covered >= minCoverage*total {
			out = append(out, li)
		}
	}
	return out
}

// Costs in quarter bits of what the language models do not see: symbols
// and case. They are the same for every language.
const (
	costCommonSymbol = 8 * langUnitsPerBit  // « » – — “ ” … € © °: real text has them
	costRareSymbol   = 13 * langUnitsPerBit // ¤ ¦ ¨ ¬ ¯ ´ ¸ ¹ ² ³ ¼: rare, and what letters misread as
	costDrawing      = 16 * langUnitsPerBit // box drawing, math: DOS letters read as another code page
	costC1Control    = 24 * langUnitsPerBit // C1 controls: an ISO-8859 reading of Windows bytes
	costInWord       = 8 * langUnitsPerBit  // a symbol between two letters
	costCaseFlip     = 10 * langUnitsPerBit // an upper-case letter right after a lower-case one
	costMark         = 4 * langUnitsPerBit  // a combining mark no model knows, on a non-ASCII letter
	costStrayMark    = 16 * langUnitsPerBit // the same anywhere else
	costMarkOnLatin  = 24 * langUnitsPerBit // the same on an ASCII letter: Latin-1 "Sören" read as Windows-1256
	costScriptMix    = 8 * langUnitsPerBit  // a letter of another script beside an ASCII letter
	costBoxLine      = 1 * langUnitsPerBit  // box drawing beside no letter: a DOS menu or table
	costApostrophe   = 2 * langUnitsPerBit  // ’ or ´ between two letters
	costCapsText     = 16 * langUnitsPerBit // once, for Cyrillic or Greek mostly in capitals
	costLetterRun    = 8 * langUnitsPerBit  // a letter repeating the one or two before it a third time: a line drawn with another charset's bytes
)

// isUnknownMark reports a combining mark that is in no model's alphabet:
// Hebrew points, Arabic harakat, Yiddish's. The dictionaries write words
// without them, so the models skip them: a mark on a letter of a
// non-Latin script costs costMark, on an ASCII letter costMarkOnLatin
// (no text puts Arabic or Hebrew marks there; a Latin-1 letter read as
// Windows-1256 or -1255 does), anywhere else costStrayMark.
func isUnknownMark(r rune, id uint16) bool { return id == 1 && unicode.Is(unicode.Mn, r) }

// markCost is the cost of an unknown mark after prev.
func markCost(prev rune) int {
	switch {
	case prev >= 0x370 && isWordLetter(prev):
		return costMark
	case isASCIILetter(prev):
		return costMarkOnLatin
	}
	return costStrayMark
}

func symbolCost(r rune) uint16 {
	switch {
	case r >= 0x80 && r < 0xa0:
		return costC1Control
	case strings.ContainsRune("\u00a0«»–—‘’‚“”„…•·°€©®™§¿¡£¥¢×±‰′″№†", r):
		return costCommonSymbol
	case r >= 0xa0 && r < 0x100:
		return costRareSymbol
	case r >= 0x2200 && r <= 0x22ff, r >= 0x2500 && r <= 0x25ff, r >= 0x2320 && r <= 0x2321:
		return costDrawing
	}
	return costRareSymbol
}

// maxScoredBytes bounds the non-ASCII bytes of a sample the language
// models score: enough to tell charsets apart, and a fixed cost per file.
const maxScoredBytes = 2048

// sbScore is a single-byte decoding's cost in its most probable language.
type sbScore struct {
	charset int // index in singleByteCharsets
	lang    int // index in langs().models
	units   int // quarter bits: bigram costs in that language, plus symbols and case
	caps    int // quarter bits of units for a text of capitals (costCapsText)
	prior   int // quarter bits: the charset's prior cost
	total   int // units + prior + the language's handicap (typicalCost): what is ranked
	bytes   int // non-ASCII bytes scored
}

// bitsPerByte is the average cost of a scored non-ASCII byte.
func (s sbScore) bitsPerByte() float64 {
	if s.bytes == 0 {
		return 0
	}
	return float64(s.units) / langUnitsPerBit / float64(s.bytes)
}

// nonASCIIPositions returns the offsets of the first maxScoredBytes
// non-ASCII bytes of head.
func nonASCIIPositions(head []byte) []int {
	var pos []int
	for i, c := range head {
		if c >= 0x80 {
			pos = append(pos, i)
			if len(pos) == maxScoredBytes {
				break
			}
		}
	}
	return pos
}

// scoreSingleByte scores head read as singleByteCharsets[ci]: every
// bigram that touches a non-ASCII byte, in each language model, plus the
// symbol and case costs, and picks the language with the lowest total.
// ok is false if a byte has no character in the charset, or no language is
// written in it. Only bytes next to the positions are read, so the cost
// does not depend on the file's size.
func scoreSingleByte(ci int, head []byte, pos []int, atEOF bool, ctx []int) (sbScore, bool) {
	t := sbTables()[ci]
	s := langs()
	res := sbScore{charset: ci, lang: -1, bytes: len(pos)}
	if len(t.langs) == 0 {
		return res, false // no language is written in it
	}

	// The language-free part, and the bigrams as letter-id pairs.
	type pair struct{ a, b uint16 }
	pairs := make([]pair, 0, 2*len(pos))
	type wordEnd struct {
		a, c     uint16 // what precedes the letter, and the letter
		stressed bool   // isStressAccent
	}
	var ends []wordEnd // letters ending a word
	extra := 0
	capsRun, lowerOther := 0, 0 // non-Latin capitals after a capital, and lower-case letters
	for k, i := range pos {
		c := head[i]
		if t.flags[c]&flagUndefined != 0 {
			return res, false
		}
		var prev, next byte = ' ', ' '
		if i > 0 {
			prev = head[i-1]
		}
		j := i + 1
		for j < len(head) && t.flags[head[j]]&flagMark != 0 {
			j++ // a mark sits on this letter; the bigram is with the letter after it
		}
		if j < len(head) {
			next = head[j]
		} else if !atEOF {
			next = 0 // unknown: scored as a boundary, like the start of a word
		}
		if t.flags[c]&flagMark != 0 {
			extra += markCost(t.runes[prev])
			continue // the letters on either side are scored without it
		}
		if t.flags[c]&flagLetter == 0 {
			switch {
			case t.runes[c] == '\u00a0' && (prev < 0x80 || prev == c) && (next < 0x80 || next == c) &&
				(t.flags[prev]&flagLetter == 0 || t.flags[next]&flagLetter == 0):
				// A no-break space among ASCII or other no-break spaces, not
				// between two letters: as common as a space in text from
				// Word or HTML (">\u00a0\u00a0\u00a0<input"), and the same
				// byte in every Windows and ISO charset; KOI8-R reads it as
				// "═", code page 850 as "á". (Code page 866's "а" among
				// other Cyrillic bytes is not this.)
			case boxShape(t, head, i):
				// A line or corner of a box, beside other box drawing,
				// spaces or ASCII: what DOS text draws its menus and tables
				// with ("║ 1. Открыть ║"). The same bytes in a Windows or
				// ISO charset are letters, which pay for the run they make.
				extra += costBoxLine
			case isApostrophe(t.runes[c]) && t.flags[prev]&flagLetter != 0 && t.flags[next]&flagLetter != 0:
				// "Writer’s", "don´t": as common in English text as any
				// letter, and the same byte in every Windows charset.
				extra += costApostrophe
			default:
				extra += int(t.sym[c])
				if i >= 5 && head[i-1] != c && repeats(head, i) {
					// The third of a pair of symbols in a row ("°¥°¥°¥"):
					// a drawing made of Big5's "●●●" read as Mac Roman.
					// (A run of one symbol is real: no-break spaces, dashes.)
					extra += costLetterRun
				}
			}
			if t.flags[prev]&flagLetter != 0 && t.flags[next]&flagLetter != 0 && !isApostrophe(t.runes[c]) {
				extra += costInWord
			}
		} else if layoutTypo(t, head, i) {
			// A Cyrillic letter that looks Latin, starting a token of
			// ASCII ("С++", "РHP"): a Russian layout's typo, priced as
			// the one-letter word it is in the language, not as a
			// foreign word among Latin ones; glued to a Latin letter it
			// still pays for that ("Île" is not "Оle").
			if isASCIILetter(rune(next)) {
				extra += costScriptMix
			}
			ends = append(ends, wordEnd{0, t.ids[c], false})
			continue
		} else {
			if t.flags[c]&flagUpper != 0 && t.flags[prev]&flagLower != 0 {
				extra += costCaseFlip
			}
			if t.runes[c] >= 0x370 && t.flags[prev]&flagLetter == 0 && foreignWord(t, head, i) {
				extra += costForeignWord
			}
			if t.runes[c] >= 0x370 {
				switch {
				case t.flags[c]&flagLower != 0:
					lowerOther++
				case t.flags[c]&flagUpper != 0 && t.flags[prev]&flagUpper != 0:
					capsRun++
				}
			}
			if repeats(head, i) {
				// The third of a letter, or of a pair of letters, in a row:
				// no language writes that, but a box's line in code page 866
				// read as Windows-1251 does ("ЙНННННН»"), and a row of Big5's
				// "●" read as Windows-874 ("กดกดกด").
				extra += costLetterRun
			}
			if t.runes[c] >= 0x370 && (isASCIILetter(rune(prev)) || isASCIILetter(rune(next))) {
				// Cyrillic, Greek, Arabic... glued to a Latin letter: what
				// Estonian "äõbüoöf" is as Windows-1251 ("дхbьoцf").
				extra += costScriptMix
			}
		}
		afterASCII := k == 0 || pos[k-1] != i-1
		if t.flags[c]&flagLetter != 0 && afterASCII && t.ids[next] == 0 {
			// A word ends in it (or it is the word): weighed as a whole,
			// see wordEnd.
			ends = append(ends, wordEnd{t.ids[prev], t.ids[c], isStressAccent(t.runes[c])})
			continue
		}
		if afterASCII { // the pair before, unless the previous byte already added it
			pairs = append(pairs, pair{t.ids[prev], t.ids[c]})
		}
		pairs = append(pairs, pair{t.ids[c], t.ids[next]})
	}

	if capsRun > lowerOther {
		// More capitals after capitals than lower-case letters: Russian or
		// Greek text in capitals (a Forth file's constants, a heading) is
		// real but rare, and it is all that Hangul or Han bytes read as
		// ISO-8859-5, KOI8-R or Windows-1251 ever are ("БМИВ" for 굴림,
		// "ЛЮМЁ" for 擂台). Paid once, like a prior: a few such letters
		// are doubtful, a file of them is judged by its words.
		res.caps = costCapsText
		extra += costCapsText
	}

	// The language is the one that explains the non-ASCII letters best
	// (res.lang and res.units, which say how probable the text is); the
	// rank adds what each language makes of the words around them (ctx),
	// so that Italian "più" and "è", which the dictionaries hold once each,
	// are weighed with the Italian words they sit among.
	best, ranked := -1, -1
	for _, li := range t.langs {
		m := &s.models[li]
		units := 0
		for _, p := range pairs {
			a, b := m.class[p.a], m.class[p.b]
			if a|b != 0 {
				units += int(m.cost[int(a)*m.n+int(b)])
			}
		}
		for _, p := range ends {
			units += m.wordEnd(p.a, p.c, p.stressed)
		}
		own := units + m.handicap*len(pos)
		if res.lang < 0 || own < best {
			best, res.lang, res.units = own, li, units+extra
		}
		if ctx != nil {
			own += ctx[li]
		}
		if ranked < 0 || own < ranked {
			ranked = own
		}
	}
	res.prior = priorBits(ci) * langUnitsPerBit
	res.total = ranked + extra + res.prior
	return res, true
}

// Thresholds of the single-byte decision.
const (
	// maxBitsLatin and maxBitsOther are the average costs per non-ASCII
	// byte above which a decoding is improbable in every language, for a
	// best language written in Latin letters and in another script. Right
	// decodings of real text cost 6-10 bits in Latin-script languages (a
	// non-ASCII letter is one among many in a word) and 4-6.5 in
	// Cyrillic, Greek, Hebrew, Arabic and Thai; what no language explains
	// costs more.
	maxBitsLatin = 14.0
	maxBitsOther = 9.0
	// goodBitsLatin and goodBitsOther are the costs that map to a
	// plausibility of 1.
	goodBitsLatin = 9.0
	goodBitsOther = 5.5
	// minMarginBits is how much cheaper, per byte that reads differently,
	// the best decoding must be than the next one that gives other text,
	// and minMarginTotal how much cheaper at least.
	minMarginBits  = 1.0
	minMarginTotal = 2.0
)

// bestSingleByte scores every single-byte charset on the sample and
// returns the one whose text is most probable in some language, with a
// plausibility on plausibility()'s scale, so it can be weighed against the
// multi-byte candidates. It refuses (ErrUndecodable) when the best text is
// improbable in every language or when another charset that reads the
// bytes differently comes within the margin; ErrMojibake when the best
// text is already garbled.
func bestSingleByte(head []byte, atEOF bool) (charset, float64, error) {
	pos := nonASCIIPositions(head)
	if len(pos) == 0 || codeTable(head, pos) {
		return charset{}, 0, ErrUndecodable
	}
	var scores []sbScore
	ctx := contextCosts(head, pos)
	for ci := range singleByteCharsets {
		if s, ok := scoreSingleByte(ci, head, pos, atEOF, ctx); ok {
			scores = append(scores, s)
		}
	}
	slices.SortStableFunc(scores, func(a, b sbScore) int { return a.total - b.total })
	tables := sbTables()
	for k, best := range scores {
		text, ok := decodeSample(singleByteCharsets[best.charset].enc, head, atEOF)
		if !ok {
			continue
		}
		switch err := checkText(text); {
		case err == ErrMojibake && k == 0:
			return charset{}, 0, ErrMojibake
		case err == ErrMojibake:
			// Not the cheapest reading, but no other may be taken after it
			// (a double-encoded "Ã©" is also "Ă©" in Windows-1250).
			return charset{}, 0, ErrUndecodable
		case err != nil:
			continue
		}
		p := best.plausibility()
		if !hasLetter(tables[best.charset], head, pos) && !mostlyBoxes(tables[best.charset], head, pos) {
			// Symbols only: the language models, whose limits are set for
			// letters, have nothing to judge, and "±¼¸²" (굴림 in EUC-KR
			// read as Windows-1252) would pass them. Judged symbol by
			// symbol: “quotes”, dashes, no-break spaces are text, ¼ ¸ ² are
			// not. (A DOS box is judged by its shape, boxShape.)
			p = plausibility(text, profileAny)
		}
		if p < minScore && westernLatin[singleByteCharsets[best.charset].name] && best.bytes <= maxNameBytes && lettersOrCommon(text) {
			// A few accented letters in English text are names from
			// several languages ("Christophe Bué", "Marko Käärämees",
			// "Marcos Vinícius"), which no one language model explains;
			// the letter-by-letter score says whether they sit in Latin
			// words. Debian's Latin-1 changelogs were refused without it.
			p = max(p, plausibility(text, profileAny))
		}
		if p < minScore {
			// Improbable in its script, however cheap: Cyrillic letters
			// inside Latin words cost less, in bits, than the accents of
			// a Latin language, but no Russian reads like that.
			continue
		}
		// The margin, against the next charset whose text differs, probable
		// or not: "Où" in Windows-1252 must beat "Oł" in Windows-1257 by more
		// than a Cyrillic reading that no language explains.
		for _, next := range scores[k+1:] {
			differ, twins := 0, 0
			for _, i := range pos {
				a, b := tables[best.charset].runes[head[i]], tables[next.charset].runes[head[i]]
				switch {
				case a == b:
				case sameLetter[a] == b:
					twins++
				default:
					differ++
				}
			}
			if differ == 0 && twins == 0 {
				continue // the same text: either is right
			}
			if differ == 0 {
				// Only ş for ș: Romanian in Windows-1250 and ISO-8859-16 are
				// the same bytes, and the models count both as one letter.
				return charset{}, 0, ErrUndecodable
			}
			gap := float64(next.total-best.total) / langUnitsPerBit
			if gap < minMarginBits*float64(differ) || gap < minMarginTotal {
				return charset{}, 0, ErrUndecodable
			}
			break
		}
		return singleByteCharsets[best.charset], p, nil
	}
	return charset{}, 0, ErrUndecodable
}

// westernLatin are the charsets of Western European text, and
// maxNameBytes the most non-ASCII bytes a text in one of them may hold for
// its accented letters to be taken one by one (bestSingleByte).
var westernLatin = map[string]bool{"windows-1252": true, "iso-8859-1": true, "iso-8859-15": true}

const maxNameBytes = 32

// lettersOrCommon reports text whose every non-ASCII character is a letter
// or a symbol the models count as common (symbolCost): ISO-8859-2's "ł"
// read as Windows-1252 is "³", a superscript inside a name
// ("Micha³kiewicz").
func lettersOrCommon(text string) bool {
	for _, r := range text {
		if r >= utf8.RuneSelf && !unicode.IsLetter(r) && symbolCost(r) != costCommonSymbol {
			return false
		}
	}
	return true
}

// plausibility maps the score onto plausibility()'s 0-1 scale.
func (s sbScore) plausibility() float64 {
	return langPlausibility(s.bitsPerByte(), langs().models[s.lang].script)
}

// langPlausibility maps a cost per non-ASCII character in a language of
// the given script onto plausibility()'s 0-1 scale: 1 at the good cost,
// minScore at the highest cost accepted, 0 beyond twice that distance.
func langPlausibility(bits float64, script string) float64 {
	good, worst := goodBitsOther, maxBitsOther
	if script == "Latin" {
		good, worst = goodBitsLatin, maxBitsLatin
	}
	p := 1 - (1-minScore)*(bits-good)/(worst-good)
	return max(0, min(1, p))
}

// utf8WithErrors reports a sample that is UTF-8 but for a few bytes: at
// least minValidSeqs multi-byte sequences, and at most one invalid byte per
// invalidShare of them. Legacy text rarely forms even one valid sequence
// (a lead byte 0xC2-0xF4 followed by the right number of 0x80-0xBF bytes);
// GBK text forms one for every ten or so characters that do not.
func utf8WithErrors(head []byte, atEOF bool) bool {
	const (
		minValidSeqs = 2
		invalidShare = 4
	)
	valid, invalid := 0, 0
	for i := 0; i < len(head); {
		if head[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRune(head[i:])
		switch {
		case r != utf8.RuneError || size > 1:
			valid++
		case !atEOF && !utf8.FullRune(head[i:]):
			// cut by the end of the sample, not by the author
		default:
			invalid++
		}
		i += size
	}
	return valid >= minValidSeqs && invalid > 0 && invalid*invalidShare <= valid
}

// textLangPlausibility scores any decoded text with the language models,
// on plausibility()'s scale: the text of its first maxScoredBytes non-ASCII
// characters in its most probable language. It is how UTF-16 and UTF-32
// text of the scripts the CJK-minded plausibility() does not know (Hebrew,
// Arabic, Thai, accented Latin) is recognised as text.
func textLangPlausibility(text string) float64 {
	s := langs()
	type pair struct{ a, b uint16 }
	var pairs []pair
	extra, n := 0, 0
	var prev, prevPrev rune = ' ', ' '
	prevNonASCII := false
	for _, r := range text {
		if n >= maxScoredBytes && !prevNonASCII {
			break
		}
		if id := s.id(r); isUnknownMark(r, id) {
			extra += markCost(prev)
			n++
			continue
		}
		nonASCII := r >= utf8.RuneSelf
		if nonASCII || prevNonASCII {
			pairs = append(pairs, pair{s.id(prev), s.id(r)})
		}
		if prevNonASCII && !isWordLetter(prev) {
			extra += int(symbolCost(prev))
			if isWordLetter(prevPrev) && isWordLetter(r) && prev != '’' {
				extra += costInWord
			}
		}
		if nonASCII {
			n++
			if isWordLetter(r) && (unicode.IsUpper(r) || unicode.IsTitle(r)) && unicode.IsLower(prev) {
				extra += costCaseFlip
			}
		}
		prevPrev, prev, prevNonASCII = prev, r, nonASCII
	}
	if prevNonASCII {
		pairs = append(pairs, pair{s.id(prev), 0})
		if !isWordLetter(prev) {
			extra += int(symbolCost(prev))
		}
	}
	if n == 0 {
		return 1
	}
	best, lang := -1, 0
	for li := range s.models {
		m := &s.models[li]
		units := 0
		for _, p := range pairs {
			a, b := m.class[p.a], m.class[p.b]
			if a|b != 0 {
				units += int(m.cost[int(a)*m.n+int(b)])
			}
		}
		if best < 0 || units < best {
			best, lang = units, li
		}
	}
	return langPlausibility(float64(best+extra)/langUnitsPerBit/float64(n), s.models[lang].script)
}
