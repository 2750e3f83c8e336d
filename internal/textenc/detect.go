package textenc

import (
	"bytes"
	"errors"
	"math"
	"slices"
	"unicode/utf8"

	"github.com/saintfish/chardet"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/korean"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/traditionalchinese"
	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/encoding/unicode/utf32"
	"golang.org/x/text/transform"
)

// charset is a candidate: the name reported in Result.Encoding and the
// decoder behind it (nil for UTF-8, which is copied, not decoded).
type charset struct {
	name string
	enc  encoding.Encoding
}

var (
	utf16LE = charset{"utf-16le", unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM)}
	utf16BE = charset{"utf-16be", unicode.UTF16(unicode.BigEndian, unicode.IgnoreBOM)}
	utf32LE = charset{"utf-32le", utf32.UTF32(utf32.LittleEndian, utf32.IgnoreBOM)}
	utf32BE = charset{"utf-32be", utf32.UTF32(utf32.BigEndian, utf32.IgnoreBOM)}
	iso2022 = charset{"iso-2022-jp", japanese.ISO2022JP}
)

// multiByteCharsets are always tried on a sample that is not UTF-8, in
// this order, which is also the tie-break order (GBK ahead, the
// most common legacy charset in the repositories we read). GB18030 decodes all of GBK and is reported as "gbk" unless
// a four-byte sequence shows up (normalize.go). The single-byte charsets
// (singlebyte.go) are scored apart, by language models, and compared with
// the best of these.
var multiByteCharsets = []charset{
	{"gbk", simplifiedchinese.GB18030},
	{"big5", traditionalchinese.Big5},
	{"shift_jis", japanese.ShiftJIS},
	{"euc-jp", japanese.EUCJP},
	{"euc-kr", korean.EUCKR},
}

// fromChardet maps chardet's charset names to ours, for the bonus its
// confidence adds to a multi-byte candidate. chardet's names are not all
// names that x/text's htmlindex knows, so the mapping is explicit.
var fromChardet = map[string]string{
	"Shift_JIS": "shift_jis",
	"EUC-JP":    "euc-jp",
	"EUC-KR":    "euc-kr",
	"GB-18030":  "gbk",
	"Big5":      "big5",
	"UTF-16LE":  "utf-16le",
	"UTF-16BE":  "utf-16be",
}

const (
	// minScore is the plausibility below which even the best candidate is
	// refused as undecodable: nothing reads like text a person wrote.
	minScore = 0.5
	// chardetWeight scales chardet's confidence (1-100) into a bonus that
	// only settles near ties between candidates; it cannot outvote the score.
	chardetWeight = 0.1 / 100
	// minFamilyMargin is how much more plausible the best multi-byte or
	// the best single-byte reading must be than the other family's best,
	// when both read the sample as text.
	minFamilyMargin = 0.25
	// chardetSampleBytes is what chardet reads anyway: its first 8 KiB.
	chardetSampleBytes = 8 << 10
)

// decision is the charset chosen for a sample, or the refusal.
type decision struct {
	charset
	err             error
	mojibake        bool   // valid UTF-8 that looks double-encoded: kept as written, flagged
	declared        string // the label the file declares (Result.Declared)
	declaredIgnored bool   // ... and the bytes contradict it (Result.DeclaredIgnored)
	broken          bool   // a double-byte charset with a few broken pairs, staged with U+FFFD (brokenpairs.go)
	brokenRatio     int    // ... at most one per this many double-byte characters; 0 means brokenPairRatio
}

// sniffBOM recognises a byte-order mark; enc is nil for UTF-8.
func sniffBOM(head []byte) (enc encoding.Encoding, name string, n int) {
	switch {
	case bytes.HasPrefix(head, []byte{0xef, 0xbb, 0xbf}):
		return nil, "utf-8", 3
	case bytes.HasPrefix(head, []byte{0xff, 0xfe, 0, 0}):
		return utf32LE.enc, utf32LE.name, 4
	case bytes.HasPrefix(head, []byte{0, 0, 0xfe, 0xff}):
		return utf32BE.enc, utf32BE.name, 4
	case bytes.HasPrefix(head, []byte{0xff, 0xfe}):
		return utf16LE.enc, utf16LE.name, 2
	case bytes.HasPrefix(head, []byte{0xfe, 0xff}):
		return utf16BE.enc, utf16BE.name, 2
	}
	return nil, "", 0
}

// decideWide handles a sample with NUL bytes: UTF-32 or UTF-16 without a
// BOM, or binary. ASCII and Latin text in UTF-16LE has a NUL at every odd
// offset, in UTF-32LE at offsets 2 and 3 of every four; but CJK text in
// UTF-16 has NULs only here and there (一 is 00 4E), on either side, so
// both byte orders are decoded and the more plausible text wins.
func decideWide(head []byte, atEOF bool) (charset, bool) {
	var cands []charset
	if len(head) >= 4 && (!atEOF || len(head)%4 == 0) {
		le, be := true, true
		for g := head[:len(head)&^3]; len(g) >= 4; g = g[4:] {
			le = le && g[3] == 0 && g[2] <= 0x10
			be = be && g[0] == 0 && g[1] <= 0x10
		}
		if le {
			cands = append(cands, utf32LE)
		}
		if be {
			cands = append(cands, utf32BE)
		}
	}
	if !atEOF || len(head)%2 == 0 {
		cands = append(cands, utf16LE, utf16BE)
	}
	c, score, _, err := bestCandidate(cands, head, atEOF, nil)
	return c, err == nil && score >= minScore
}

// decide picks the charset of a sample that starts with a non-ASCII byte or
// an ISO-2022-JP escape. atStart says the sample starts the file, so UTF-16
// without a BOM (and without NULs: pure CJK text) is still possible.
func decide(head []byte, atEOF, atStart bool) decision {
	return decideSample(head, atEOF, atStart, true)
}

// decideSample is decide; tryBroken says a double-byte charset with a few
// broken pairs may be chosen (decideBroken, which decides its blanked
// sample without).
func decideSample(head []byte, atEOF, atStart, tryBroken bool) decision {
	if i := firstNonASCII(head); i >= 0 && head[i] == 0x1b {
		if !isISO2022JPEscape(head[i:]) {
			return decision{err: ErrUndecodable} // ISO-2022-KR/CN: no decoder
		}
		if text, ok := decodeSample(iso2022.enc, head, atEOF); ok && checkText(text) == nil {
			return decision{charset: iso2022}
		}
		return decision{err: ErrUndecodable}
	}
	if validUTF8Sample(head, atEOF) {
		// UTF-8 once read as a legacy charset and saved as UTF-8 is still
		// valid UTF-8: flagged, never refused.
		return decision{charset: charset{"utf-8", nil}, mojibake: isMisreadUTF8Bytes(head)}
	}
	if utf8WithErrors(head, atEOF) {
		return decision{err: ErrInvalidUTF8}
	}
	if tryBroken {
		if d, ok := decideBroken(head, atEOF, atStart); ok {
			return d
		}
	}

	cands := slices.Clone(multiByteCharsets)
	if atStart && !mostlyASCIIPairs(head) {
		cands = append(cands, utf16LE, utf16BE)
	}
	mb, mbScore, mbText, mbErr := bestCandidate(cands, head, atEOF, chardetBonus(head))
	// Only symbols and punctuation, which every CJK charset holds at other
	// places: a Big5 drawing made of "●" is GBK's "〔" and KS X 1001's
	// "·". Such a reading, without a letter, says the bytes are CJK, but
	// not which charset: it wins only as the one reading that draws
	// (drawingReading), and a single-byte reading must beat it clearly.
	symbolsOnly := mbErr == nil && profileOf(mb.name) != profileWide && !hasLetterRune(mbText)
	// A drawing scores little (box drawing weighs 0.05 in text) but is a
	// drawing in one charset only.
	if d, ok := drawingReading(head, atEOF); ok {
		return decision{charset: d}
	}
	sb, sbScore, sbErr := bestSingleByte(head, atEOF)
	if symbolsOnly {
		if sbErr == nil && sbScore >= minScore && sbScore >= mbScore+minFamilyMargin {
			return decision{charset: sb}
		}
		return decision{err: ErrUndecodable}
	}
	switch {
	case mbErr == nil && sbErr == nil && mbScore >= minScore && sbScore >= minScore &&
		math.Abs(mbScore-sbScore) < minFamilyMargin:
		// Both families read it as text and neither clearly better: a
		// line of Japanese in Shift-JIS ("名前", 0.70 with no kana) is
		// also Windows-1252 "–¼‘O" (0.79). Refused, not guessed, unless
		// the multi-byte reading is CJK text through and through
		// (cjkPreferred).
		if cjkPreferred(mb, mbScore >= sbScore, head, atEOF) {
			return decision{charset: mb}
		}
		return decision{err: ErrUndecodable}
	case mbErr == nil && mbScore >= minScore && (sbErr != nil || mbScore >= sbScore):
		return decision{charset: mb} // a tie goes to the multi-byte charset: GBK first
	case sbErr == nil && sbScore >= minScore:
		return decision{charset: sb}
	case mbErr == ErrMojibake || sbErr == ErrMojibake:
		return decision{err: ErrMojibake}
	case mbErr == ErrBinary && sbErr == ErrBinary, controlShareHigh(head):
		return decision{err: ErrBinary}
	}
	return decision{err: ErrUndecodable}
}

// bestCandidate decodes the sample with every candidate and returns the
// most plausible one that passes checkText, with its score; bonus adds
// chardet's confidence per name, and ties go to the earlier candidate.
// When none passes, the error is the check failed by the most plausible
// decoding: a GBK file with one broken byte pair is undecodable, not
// mojibake because it also reads as "ÅäÖÃ" in Windows-1252.
func bestCandidate(cands []charset, head []byte, atEOF bool, bonus map[string]int) (charset, float64, string, error) {
	best, bestScore := -1, 0.0
	failErr, failScore := ErrUndecodable, -1.0
	scores := make([]float64, len(cands))
	texts := make([]string, len(cands))
	ok := make([]bool, len(cands))
	hangul := 0 // the EUC-KR reading passed the checks, is plausible, and is this many Hangul syllables and nothing else
	for i, c := range cands {
		wide := profileOf(c.name) == profileWide
		if wide && len(head) > widePrefixBytes {
			// Binary data (every unknown file classify asks about) fails
			// within its first characters: look at those before decoding all.
			if prefix, ok := decodeSample(c.enc, head[:widePrefixBytes], false); ok && !wideTextOK(prefix) {
				if failScore < 0 {
					failErr, failScore = ErrBinary, 0
				}
				continue
			}
		}
		text, decoded := decodeSample(c.enc, head, atEOF)
		if !decoded {
			continue
		}
		if wide && !wideTextOK(text) {
			// Checked first: it is cheap, and it is what binary data (every
			// unknown file classify asks about) fails.
			if failScore < 0 {
				failErr, failScore = ErrBinary, 0
			}
			continue
		}
		score := plausibility(text, profileOf(c.name)) + float64(bonus[c.name])*chardetWeight
		if err := checkText(text); err != nil {
			if score > failScore {
				failErr, failScore = err, score
			}
			continue
		}
		scores[i], texts[i], ok[i] = score, text, true
		if c.name == "euc-kr" && score >= minScore {
			// Korean is another explanation of the bytes only if it reads
			// as Korean: random syllables are what any text in the Hangul
			// rows gives.
			hangul = onlyHangul(text)
		}
	}
	for i, c := range cands {
		if !ok[i] {
			continue
		}
		score := scores[i]
		switch {
		case c.name == "big5" && hangul > 0:
			score *= big5ShapeLikelihood(head)
		case c.name == "gbk" && (hangul >= minHangulShape || hangul >= 2 && score < minCJKScore):
			score *= math.Pow(gbkHangulShare, float64(hangul))
		}
		if score > bestScore { // strictly greater: ties go to the earlier candidate
			best, bestScore = i, score
		}
	}
	if best >= 0 && (bestScore >= minScore || bestScore >= failScore) {
		return cands[best], bestScore, texts[best], nil
	}
	return charset{}, 0, "", failErr
}

// widePrefixBytes is how much of a sample a UTF-16/32 candidate must read
// as text before the whole sample is decoded.
const widePrefixBytes = 1024

// chardetBonus runs chardet on the sample and returns its confidence per
// charset name of ours. chardet breaks confidence ties between recognisers
// differently from run to run (its recognisers tie on short text), but the confidences themselves are
// a function of the bytes: keyed by name, they are deterministic.
func chardetBonus(head []byte) map[string]int {
	results, err := chardet.NewTextDetector().DetectAll(head[:min(len(head), chardetSampleBytes)])
	bonus := make(map[string]int)
	if err != nil {
		return bonus
	}
	for _, r := range results {
		if name, ok := fromChardet[r.Charset]; ok {
			bonus[name] = max(bonus[name], r.Confidence)
		}
	}
	return bonus
}

// decodeSample decodes a sample; unless atEOF, an incomplete character at
// its end is dropped rather than decoded as an error.
func decodeSample(enc encoding.Encoding, head []byte, atEOF bool) (string, bool) {
	// Every charset here needs at most 3 output bytes per input byte
	// (a single-byte charset mapping to U+20AC), so one call suffices.
	buf := make([]byte, 3*len(head)+16)
	n, _, err := enc.NewDecoder().Transform(buf, head, atEOF)
	if err != nil && (atEOF || !errors.Is(err, transform.ErrShortSrc)) {
		return "", false
	}
	return string(buf[:n]), true
}

// checkText applies the checks every decoding must pass: no U+FFFD (which a
// decoder puts for bytes it cannot map), no NUL, few control characters, no
// known mojibake (mojibakeState's patterns, and UTF-8 misread as any of
// mojibakeCharsets).
func checkText(text string) error {
	return checkTextShare(text, maxControlShare)
}

// checkTextShare is checkText with one control character in share
// allowed.
func checkTextShare(text string, share int) error {
	var moji mojibakeState
	var runes, controls int
	for _, r := range text {
		runes++
		switch {
		case r == utf8.RuneError:
			return ErrUndecodable
		case r == 0:
			return ErrBinary
		case isControl(r):
			controls++
		}
		if r < utf8.RuneSelf {
			moji.ascii(byte(r))
		} else if moji.feed(r) {
			return ErrMojibake
		}
	}
	if controls*share > runes {
		return ErrBinary
	}
	if isMisreadUTF8(text) {
		return ErrMojibake
	}
	return nil
}

// validUTF8Sample reports whether the sample is UTF-8, allowing a character
// cut by the end of the sample when more input follows.
func validUTF8Sample(head []byte, atEOF bool) bool {
	if utf8.Valid(head) {
		return true
	}
	if atEOF {
		return false
	}
	for cut := 1; cut < utf8.UTFMax && cut <= len(head); cut++ {
		if tail := head[len(head)-cut:]; utf8.RuneStart(tail[0]) {
			return !utf8.FullRune(tail) && utf8.Valid(head[:len(head)-cut])
		}
	}
	return false
}

// controlShareHigh reports a raw sample with too many C0 control bytes.
func controlShareHigh(head []byte) bool {
	controls := 0
	for _, c := range head {
		if c < 0x80 && isControl(rune(c)) {
			controls++
		}
	}
	return controls*maxControlShare > len(head)
}

// isISO2022Escape reports an ISO-2022 designation escape at the start of b:
// JIS X 0208 (ESC $ B, ESC $ @), JIS X 0212 (ESC $ ( D), KS C 5601
// (ESC $ ) C) or GB 2312 (ESC $ A, ESC $ ) A).
func isISO2022Escape(b []byte) bool {
	for _, esc := range []string{"\x1b$B", "\x1b$@", "\x1b$(D", "\x1b$)C", "\x1b$A", "\x1b$)A"} {
		if bytes.HasPrefix(b, []byte(esc)) {
			return true
		}
	}
	return false
}

func isISO2022JPEscape(b []byte) bool {
	return bytes.HasPrefix(b, []byte("\x1b$B")) || bytes.HasPrefix(b, []byte("\x1b$@")) ||
		bytes.HasPrefix(b, []byte("\x1b$(D"))
}

// WideText reports whether head, the first bytes of a file (all of it when
// atEOF), is UTF-16 or UTF-32 text without a byte-order mark, and names the
// charset. mimetype calls such text application/octet-stream for its NUL
// bytes; the classify stage asks here, so that Hebrew, Arabic or
// supplementary-plane text in UTF-16 reaches normalize as text.
func WideText(head []byte, atEOF bool) (string, bool) {
	if bytes.IndexByte(head, 0) < 0 {
		return "", false
	}
	if _, _, n := sniffBOM(head); n > 0 {
		return "", false
	}
	c, ok := decideWide(head, atEOF)
	return c.name, ok
}
