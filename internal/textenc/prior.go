package textenc

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A repository's legacy files are mostly written in one charset. A file
// whose own evidence is weak (a few characters, a drawing of symbols, two
// readings about as plausible, a refusal while some reading decodes) says
// little about its charset; the charset the repository's other files were
// decided in on strong evidence says more. The pipeline finds that charset
// after its per-file loop and hands it back as Options.Prior for the weak
// files (stages/encoding_prior.go).

const (
	// minStrongNonASCII is the fewest non-ASCII bytes a sample needs for its
	// choice to stand on its own: below it (about a dozen double-byte
	// characters) chardet's CJK recognisers tie, and a BBS drawing of
	// Big5's "◢█◣" is as readable as Mac Roman's "¢®¢i¢©".
	minStrongNonASCII = 24
	// weakMargin: a choice whose runner-up (another reading that gives
	// other text and passes the checks) scores within this much
	// plausibility is weak. Below minFamilyMargin, the margin at which two
	// families' readings are refused as a near tie: a tie the decision
	// settled (a CJK preference) or a reading of one family that wins by
	// less than this over another of the same is what it means.
	weakMargin = 0.2
	// priorMargin is how much less plausible than the weak choice the
	// prior's reading may be and still take its place: the margin two
	// readings must be apart for the decision to tell them apart at all
	// (minFamilyMargin). Within it, the repository's charset decides.
	priorMargin = minFamilyMargin
	// priorMarginShort is priorMargin for a short sample (fewer than
	// minStrongNonASCII non-ASCII bytes), whose scores say little: "標籤"
	// in Big5 is 0.62 as Chinese and 0.9 as the Thai of Windows-874.
	priorMarginShort = 0.5
)

// priorCharset maps Options.Prior to a candidate; ok is false for a name
// no candidate has (the prior is then ignored) and for UTF-8, UTF-16 and
// UTF-32, whose own evidence is never weak.
func priorCharset(name string) (charset, bool) {
	name = strings.ToLower(name)
	if name == "gb18030" {
		name = "gbk" // one decoder reads both (normalize.go)
	}
	for _, cs := range [][]charset{multiByteCharsets, singleByteCharsets} {
		for _, c := range cs {
			if c.name == name {
				return c, true
			}
		}
	}
	return charset{}, false
}

// weighPrior judges a decision and lets the prior (Options.Prior, "" for
// none) take the place of a weak one, or of a single-byte choice its
// reading of the same script nearly equals (contested). weak reports
// that the file's own evidence was weak, so that another prior might
// change its result; byPrior that the prior did. A declaration the bytes
// agree with is never weak, nor is valid UTF-8, UTF-16/32, ISO-2022-JP,
// or a refusal as binary, mojibake or invalid UTF-8.
//
// inName says the choice is a declaration in the file's name alone
// (declaredInName): evidence about the file, but a converter's name
// ("koi8-r.f") says what the file is about rather than how it is
// written, so a single-byte prior may contest it, as it contests a
// choice of the bytes', and the name is then a declaration the bytes
// contradict. A declaration in the file's head agreed with by the bytes
// is never contested.
func weighPrior(d decision, head []byte, atEOF bool, prior string, inName bool) (_ decision, weak, byPrior bool) {
	weak, score, short := judgeChoice(d, head, atEOF)
	if prior == "" || !weak && !Contests(prior, d.name) {
		return d, weak, false
	}
	pc, ok := priorCharset(prior)
	if !ok || d.err == nil && sameReading(d.charset, pc, head, atEOF) {
		return d, weak, false
	}
	if !weak {
		if contested(d, pc, head, atEOF, score, inName) {
			return decision{charset: pc, declared: d.declared, declaredIgnored: d.declaredIgnored || inName}, false, true
		}
		return d, false, false
	}
	margin := priorMargin
	if short {
		margin = priorMarginShort
	}
	fits := func(p float64, ok bool) bool { return ok && p >= minScore && p >= score-margin }
	switch {
	case d.err != nil && profileOf(pc.name) == profileAny && nearlyDoubleByte(head, atEOF):
		// Refused for pairs cut by colour codes or line ends: the bytes
		// are a double-byte charset's (Big5 art's "\xa2\xa8" is
		// Windows-1252's "¢¨"), and a single-byte prior would garble them.
		return d, weak, false
	case fits(priorPlausibility(pc, head, atEOF)):
		return decision{charset: pc, declared: d.declared, declaredIgnored: d.declaredIgnored}, weak, true
	case profileOf(pc.name) != profileAny && fits(multiBytePlausibility(pc, head, atEOF, true)):
		// The repository's double-byte charset reads the file but for a
		// few broken pairs (ANSI art whose colour codes split a
		// character): the weak single-byte or other reading, or the
		// refusal, is not the author's. When every break is a pair cut by
		// an escape sequence or a line end (brokenpairs.go), it is staged
		// in the prior with U+FFFD there; otherwise nothing reads it
		// whole: refused, not garbled.
		if slices.Contains(brokenPairCharsets, pc.name) {
			if _, tolerated := blankBroken(pc.name, head, atEOF, priorBrokenRatio); tolerated {
				return decision{charset: pc, broken: true, brokenRatio: priorBrokenRatio,
					declared: d.declared, declaredIgnored: d.declaredIgnored}, weak, true
			}
		}
		if d.err == nil {
			return decision{err: ErrUndecodable, declared: d.declared, declaredIgnored: d.declaredIgnored}, weak, true
		}
	case d.err == nil && foreignToPrior(d.charset, pc, head, atEOF):
		// A weak single-byte reading in another script than the
		// repository's single-byte charset, which does not read the file
		// either: a DOS drawing in code page 866 read as Windows-1252's
		// "ÉÍÍ»" in a Windows-1251 repository. Refused, not garbled.
		return decision{err: ErrUndecodable, declared: d.declared, declaredIgnored: d.declaredIgnored}, weak, true
	}
	return d, weak, false
}

// foreignToPrior reports a weak single-byte reading c whose script (the
// language the models find in it) is not that of the prior pc's reading,
// a single-byte charset too, and whose letters stand apart from the
// sample's ASCII words: Western text in a Cyrillic repository ("café",
// "Müller") puts its accented letters inside words, and is left to the
// reading that chose it; a Cyrillic or DOS text misread as Latin-1 puts
// them in runs of their own ("Ïðèâåò", "ÉÍÍ»").
func foreignToPrior(c, pc charset, head []byte, atEOF bool) bool {
	if profileOf(c.name) != profileAny || profileOf(pc.name) != profileAny {
		return false
	}
	text, ok := decodeSample(c.enc, head, atEOF)
	if !ok {
		return false
	}
	if inWord, letters := lettersInASCIIWords(text); letters > 0 && 2*inWord >= letters {
		return false
	}
	a, okA := singleByteScript(c, head, atEOF)
	b, okB := singleByteScript(pc, head, atEOF)
	return okA && okB && a != b
}

// lettersInASCIIWords counts text's non-ASCII letters, and those of them
// next to an ASCII letter.
func lettersInASCIIWords(text string) (inWord, letters int) {
	asciiLetter := func(r rune) bool { return r < utf8.RuneSelf && unicode.IsLetter(r) }
	prev := ' '
	rs := []rune(text)
	for i, r := range rs {
		if r >= utf8.RuneSelf && unicode.IsLetter(r) {
			letters++
			if asciiLetter(prev) || i+1 < len(rs) && asciiLetter(rs[i+1]) {
				inWord++
			}
		}
		prev = r
	}
	return inWord, letters
}

// nearlyDoubleByte reports a sample that a charset of brokenPairCharsets
// reads as plausible text but for broken pairs of a tolerated shape
// (within priorBrokenRatio).
func nearlyDoubleByte(head []byte, atEOF bool) bool {
	for _, name := range brokenPairCharsets {
		if _, tolerated := blankBroken(name, head, atEOF, priorBrokenRatio); !tolerated {
			continue
		}
		c, _ := priorCharset(name)
		if p, ok := multiBytePlausibility(c, head, atEOF, true); ok && p >= minScore {
			return true
		}
	}
	return false
}

// priorBrokenRatio bounds the broken pairs of a file the prior decides
// (weighPrior): at most one per this many double-byte characters, where a
// file decided alone may have one per brokenPairRatio. A BBS's animal
// drawings colour nearly every block apart ("\xa2\x1b[33m\xa9", up to one
// cut per 1.6 characters in pttbbs's chickens), and what the ratio
// guards against, another charset's text that happens to break only at
// line ends and escapes, is ruled out here by the other evidence: the
// repository's charset, a weak or refused reading of the file's own, a
// plausible reading in the prior, and no break of any other shape.
const priorBrokenRatio = 1

// contestMargin is how much less plausible than a strong single-byte
// choice the prior's reading of the same script may be and still take
// its place (contested): the margin the decision needs between families
// (minFamilyMargin). Two single-byte readings of one script within it
// differ in a few letters of a short text, or in a drawing's symbols
// (Windows-1251 "Ђ" against KOI8-R "─"), which the language models weigh
// little; the repository's charset knows better.
const contestMargin = minFamilyMargin

// Contests reports whether a repository prior may contest a text decided
// on strong evidence as the charset strong: both single-byte charsets,
// and not the same. Only such texts (and weak ones) are decided again
// under a prior, so the cost is bounded by the files that differ from
// it.
func Contests(prior, strong string) bool {
	if prior == "" || strong == "" || prior == strong {
		return false
	}
	pc, ok1 := priorCharset(prior)
	sc, ok2 := priorCharset(strong)
	return ok1 && ok2 && profileOf(pc.name) == profileAny && profileOf(sc.name) == profileAny
}

// contested reports whether the prior pc, a single-byte charset, takes
// the place of d, a single-byte choice made on strong evidence with the
// plausibility score: a declaration the bytes agree with is never
// contested unless only the name makes it (inName); the prior's reading must be of the same script (the
// language the models find in it), within contestMargin, and have as
// many letters. A reading that turns the choice's letters into symbols
// is another text, not a closer look at the same one: Ukrainian's "і" in
// KOI8-U is KOI8-R's "╕", and Windows-1251's capitals are Mac
// Cyrillic's dashes and signs, and both readings score within the
// margin of the right one.
func contested(d decision, pc charset, head []byte, atEOF bool, score float64, inName bool) bool {
	declared := d.declared != "" && !d.declaredIgnored
	if d.err != nil || declared && !inName || !Contests(pc.name, d.name) {
		return false
	}
	if declared {
		// judgeChoice does not score a declaration: score it as the
		// decision scores a single-byte reading.
		text, ok := decodeSample(d.enc, head, atEOF)
		if !ok {
			return false
		}
		if score, ok = singleBytePlausibility(d.charset, head, atEOF, text); !ok {
			return false
		}
	}
	p, ok := priorPlausibility(pc, head, atEOF)
	if !ok || p < minScore || p < score-contestMargin {
		return false
	}
	own, okOwn := decodeSample(d.enc, head, atEOF)
	theirs, okTheirs := decodeSample(pc.enc, head, atEOF)
	if !okOwn || !okTheirs || nonASCIILetters(theirs) < nonASCIILetters(own) {
		return false
	}
	a, okA := singleByteScript(d.charset, head, atEOF)
	b, okB := singleByteScript(pc, head, atEOF)
	return okA && okB && a == b
}

// nonASCIILetters counts the letters of text beyond ASCII.
func nonASCIILetters(text string) int {
	n := 0
	for _, r := range text {
		if r >= utf8.RuneSelf && unicode.IsLetter(r) {
			n++
		}
	}
	return n
}

// singleByteScript is the script of the language the models read c's
// reading of the sample in.
func singleByteScript(c charset, head []byte, atEOF bool) (string, bool) {
	pos := nonASCIIPositions(head)
	for ci, sc := range singleByteCharsets {
		if sc.name == c.name {
			s, ok := scoreSingleByte(ci, head, pos, atEOF, contextCosts(head, pos))
			if !ok || s.lang < 0 {
				return "", false
			}
			return langs().models[s.lang].script, true
		}
	}
	return "", false
}

// judgeChoice reports whether a decision is weak, with the plausibility
// of its reading (0 for a refusal) and whether its sample is short.
func judgeChoice(d decision, head []byte, atEOF bool) (weak bool, score float64, short bool) {
	switch {
	case d.declared != "" && !d.declaredIgnored:
		return false, 0, false // the file said, and the bytes agree
	case d.err == ErrUndecodable:
		return anyCleanReading(head, atEOF), 0, nonASCIIBytes(head) < minStrongNonASCII
	case d.err != nil, d.enc == nil, d.name == iso2022.name, profileOf(d.name) == profileWide:
		return false, 0, false
	}
	short = nonASCIIBytes(head) < minStrongNonASCII
	// Judged on the sample's first judgeBytes, as chardet judges: the
	// judgement would otherwise cost a third of the decision.
	jh, jEOF := head, atEOF
	if len(head) > judgeBytes {
		jh, jEOF = head[:judgeBytes], false
	}
	text, ok := decodeSample(d.enc, jh, jEOF)
	if !ok {
		return false, 0, false // cannot happen: the decision decoded it
	}
	weak = short || !hasLetterRune(text)
	if p := profileOf(d.name); p != profileAny {
		score = plausibility(text, p)
	} else if score, ok = singleBytePlausibility(d.charset, jh, jEOF, text); !ok {
		return false, 0, false // cannot happen: the decision scored it
	}
	if weak {
		return true, score, short
	}
	// The runner-up among the other multi-byte readings, each with its
	// drawing characters weighed as shapes (letterPlausibility): a
	// drawing in Big5 is as good a reading as a Mac Roman text. The best single-byte reading is not
	// weighed again (it would double the decision's cost): against a
	// single-byte choice, bestSingleByte refused any near tie already, and
	// a multi-byte choice within minFamilyMargin of it is a tie the
	// decision settled for a CJK reading, which is short text in practice
	// ("title = 用户手册"), weak already.
	runnerUp := 0.0
	for _, c := range multiByteCharsets {
		if c.name == d.name {
			continue
		}
		if p, ok := multiBytePlausibility(c, jh, jEOF, true); ok {
			runnerUp = max(runnerUp, p)
		}
	}
	return runnerUp >= minScore && runnerUp > score-weakMargin, score, false
}

// judgeBytes bounds the part of the sample a choice is judged on.
const judgeBytes = 8 << 10

// maxBrokenShare bounds the broken pairs a multi-byte reading may have
// and still nearly read a sample: at most one of every this many of its
// non-ASCII characters is a U+FFFD that is not a pair cut by an escape
// sequence or a line end (brokenPairs). Latin-1 text read as GBK or Big5
// breaks about every other pair (an accented letter before a space or a
// punctuation mark).
const maxBrokenShare = 8

// brokenPairs counts a reading's U+FFFD: those right before an escape
// sequence or a line end (cut), which is how ANSI art whose colour codes
// split a character ("\xa2\x1b[1;33m\xa9") and text wrapped in the middle
// of a character read, and the others; and its other non-ASCII
// characters.
func brokenPairs(text string) (cut, other, nonASCII int) {
	for i, r := range text {
		switch {
		case r == utf8.RuneError:
			if next := text[i+utf8.RuneLen(r):]; next == "" || next[0] == 0x1b || next[0] == '\n' || next[0] == '\r' {
				cut++
			} else {
				other++
			}
		case r >= utf8.RuneSelf:
			nonASCII++
		}
	}
	return cut, other, nonASCII
}

// multiBytePlausibility is letterPlausibility of c's reading of the
// sample; ok is false when it does not decode or fails the checks. With
// nearly, a reading with broken pairs (U+FFFD) is judged on the rest of
// its characters, if they are pairs cut by escape sequences or line ends
// or few (maxBrokenShare), and it has some.
func multiBytePlausibility(c charset, head []byte, atEOF, nearly bool) (float64, bool) {
	text, ok := decodeSample(c.enc, head, atEOF)
	if !ok {
		return 0, false
	}
	if err := checkText(text); err != nil {
		if !nearly || err != ErrUndecodable {
			return 0, false
		}
		cut, other, nonASCII := brokenPairs(text)
		if cut+other == 0 || nonASCII == 0 || other*maxBrokenShare > other+nonASCII {
			return 0, false
		}
		text = strings.ReplaceAll(text, "\ufffd", " ")
		if checkText(text) != nil {
			return 0, false
		}
	}
	return letterPlausibility(text, profileOf(c.name)), true
}

// anyCleanReading reports whether some candidate reads the sample without
// error and passes the checks: a refusal then is a doubt, not a verdict on
// bytes no charset reads.
func anyCleanReading(head []byte, atEOF bool) bool {
	for _, cs := range [][]charset{multiByteCharsets, singleByteCharsets} {
		for _, c := range cs {
			if text, ok := decodeSample(c.enc, head, atEOF); ok && checkText(text) == nil {
				return true
			}
		}
	}
	return false
}

// nonASCIIBytes counts the sample's bytes of 0x80 and above.
func nonASCIIBytes(head []byte) int {
	n := 0
	for _, c := range head {
		if c >= utf8.RuneSelf {
			n++
		}
	}
	return n
}

// priorPlausibility is how plausible the prior's reading of the sample is,
// on plausibility()'s scale; ok is false when it does not decode or fails
// the checks every reading must pass.
//
// A multi-byte reading is judged with its drawing characters weighed as
// shapes (letterPlausibility): a BBS's ANSI art is made of them, and a
// repository of such art holds them in its charset. A single-byte reading
// is judged as the decision judges one (singleBytePlausibility), and it
// does not fit bytes that pair up into CJK text.
func priorPlausibility(c charset, head []byte, atEOF bool) (float64, bool) {
	text, ok := decodeSample(c.enc, head, atEOF)
	if !ok || checkText(text) != nil {
		return 0, false
	}
	if profileOf(c.name) != profileAny {
		return multiBytePlausibility(c, head, atEOF, false)
	}
	if cjkText(head, atEOF) {
		return 0, false
	}
	return singleBytePlausibility(c, head, atEOF, text)
}

// singleBytePlausibility is the plausibility bestSingleByte gives c's
// reading (text) of the sample, scoring that charset alone: by the
// language models; symbol by symbol when it has no letter; and letter by
// letter too for a few accented letters in a Western charset.
func singleBytePlausibility(c charset, head []byte, atEOF bool, text string) (float64, bool) {
	pos := nonASCIIPositions(head)
	for ci, sc := range singleByteCharsets {
		if sc.name != c.name {
			continue
		}
		s, ok := scoreSingleByte(ci, head, pos, atEOF, contextCosts(head, pos))
		if !ok {
			return 0, false
		}
		p := s.plausibility()
		if t := sbTables()[ci]; !hasLetter(t, head, pos) && !mostlyBoxes(t, head, pos) {
			p = plausibility(text, profileAny)
		}
		if p < minScore && westernLatin[c.name] && s.bytes <= maxNameBytes && lettersOrCommon(text) {
			p = max(p, plausibility(text, profileAny))
		}
		return p, true
	}
	return 0, false
}

// letterPlausibility is the plausibility of a multi-byte reading with
// every character of the CJK charsets' symbol rows (box drawing, blocks,
// arrows, shapes, mathematical signs, vertical brackets, the Greek,
// Cyrillic and bopomofo letters art uses as shapes) weighed as the arrows
// and shapes are (0.8): in text they weigh little, but they are what a
// BBS's ANSI art is made of ("◢█◣", "⊙﹏⊙", "︵︵"), and one rare
// character among them ("㷷", a colour code's neighbour) must not decide
// it.
func letterPlausibility(text string, p profile) float64 {
	shapes := strings.Map(func(r rune) rune {
		if isDrawingRune(r) {
			return '○' // isCJKSymbol
		}
		return r
	}, text)
	return plausibility(shapes, p)
}

// isDrawingRune reports a non-ASCII character that is not a letter of
// the CJK scripts or of Latin, nor U+FFFD, a C1 control or private use:
// what letterPlausibility weighs as a shape.
func isDrawingRune(r rune) bool {
	switch {
	case r < 0xa0, r >= 0xc0 && r <= 0x24f && r != 0xd7 && r != 0xf7, r == utf8.RuneError,
		r >= 0xe000 && r <= 0xf8ff, r >= 0xff61 && r <= 0xff9f:
		return false
	}
	return scriptOf(r) == scriptOther && !unicode.Is(unicode.Han, r)
}

// declaredInName reports that the charset was decided by the file's name
// alone (vim's menu_de_de.latin1.vim): evidence about that file, not
// about the repository's other files.
func declaredInName(d decision, decls []declaration, name string) bool {
	if d.declared == "" || d.declaredIgnored {
		return false
	}
	nd, ok := nameDeclaration(name)
	if !ok || nd.label != d.declared {
		return false
	}
	for _, dc := range decls[:len(decls)-1] { // the head's; the name's comes last
		if dc.label == d.declared {
			return false
		}
	}
	return true
}
