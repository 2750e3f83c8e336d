package textenc

import (
	"bytes"
	"errors"
	"maps"
	"slices"
	"unicode/utf8"

	"github.com/saintfish/chardet"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
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

// legacyCharsets are always tried on a sample that is not UTF-8, in this
// order, which is also the tie-break order: the CJK double-byte charsets
// first (GBK ahead, as SPEC.md prefers it), then the single-byte charsets
// of the languages repoprep meets most. GB18030 decodes all of GBK and is
// reported as "gbk" unless a four-byte sequence shows up (normalize.go).
var legacyCharsets = []charset{
	{"gbk", simplifiedchinese.GB18030},
	{"big5", traditionalchinese.Big5},
	{"shift_jis", japanese.ShiftJIS},
	{"euc-jp", japanese.EUCJP},
	{"euc-kr", korean.EUCKR},
	{"windows-1252", charmap.Windows1252},
	{"windows-1251", charmap.Windows1251},
	{"koi8-r", charmap.KOI8R},
	{"iso-8859-7", charmap.ISO8859_7},
}

// fromChardet maps chardet's charset names to ours. chardet's names are not
// all names that x/text's htmlindex knows, so the mapping is explicit; a
// name missing here (EBCDIC, ISO-2022-KR/CN) is not a candidate. ISO-8859-1
// is decoded as its superset Windows-1252, as the WHATWG encoding standard
// does, and reported under that name.
var fromChardet = map[string]charset{
	"UTF-8":        {"utf-8", nil},
	"ISO-8859-1":   {"windows-1252", charmap.Windows1252},
	"windows-1252": {"windows-1252", charmap.Windows1252},
	"ISO-8859-2":   {"iso-8859-2", charmap.ISO8859_2},
	"windows-1250": {"windows-1250", charmap.Windows1250},
	"ISO-8859-5":   {"iso-8859-5", charmap.ISO8859_5},
	"windows-1251": {"windows-1251", charmap.Windows1251},
	"KOI8-R":       {"koi8-r", charmap.KOI8R},
	"ISO-8859-6":   {"iso-8859-6", charmap.ISO8859_6},
	"windows-1256": {"windows-1256", charmap.Windows1256},
	"ISO-8859-7":   {"iso-8859-7", charmap.ISO8859_7},
	"windows-1253": {"windows-1253", charmap.Windows1253},
	"ISO-8859-8":   {"iso-8859-8", charmap.ISO8859_8},
	"ISO-8859-8-I": {"iso-8859-8-i", charmap.ISO8859_8I},
	"windows-1255": {"windows-1255", charmap.Windows1255},
	"ISO-8859-9":   {"iso-8859-9", charmap.ISO8859_9},
	"windows-1254": {"windows-1254", charmap.Windows1254},
	"Shift_JIS":    {"shift_jis", japanese.ShiftJIS},
	"EUC-JP":       {"euc-jp", japanese.EUCJP},
	"EUC-KR":       {"euc-kr", korean.EUCKR},
	"GB-18030":     {"gbk", simplifiedchinese.GB18030},
	"Big5":         {"big5", traditionalchinese.Big5},
	"ISO-2022-JP":  iso2022,
	"UTF-16LE":     utf16LE,
	"UTF-16BE":     utf16BE,
	"UTF-32LE":     utf32LE,
	"UTF-32BE":     utf32BE,
}

const (
	// minScore is the plausibility below which even the best candidate is
	// refused as undecodable: nothing reads like text a person wrote.
	minScore = 0.5
	// chardetWeight scales chardet's confidence (1-100) into a bonus that
	// only settles near ties between candidates; it cannot outvote the score.
	chardetWeight = 0.1 / 100
	// chardetSampleBytes is what chardet reads anyway (NOTES.md).
	chardetSampleBytes = 8 << 10
)

// decision is the charset chosen for a sample, or the refusal.
type decision struct {
	charset
	err error
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
	c, err := bestCandidate(cands, head, atEOF, nil)
	return c, err == nil
}

// decide picks the charset of a sample that starts with a non-ASCII byte or
// an ISO-2022-JP escape. atStart says the sample starts the file, so UTF-16
// without a BOM (and without NULs: pure CJK text) is still possible.
func decide(head []byte, atEOF, atStart bool) decision {
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
		return decision{charset: charset{"utf-8", nil}}
	}

	cands := slices.Clone(legacyCharsets)
	if atStart {
		cands = append(cands, utf16LE, utf16BE)
	}
	bonus := chardetBonus(head)
	for _, name := range slices.Sorted(maps.Keys(bonus)) {
		if c, ok := chardetCharset(name); ok && c.enc != nil &&
			!slices.ContainsFunc(cands, func(x charset) bool { return x.name == c.name }) {
			cands = append(cands, c)
		}
	}

	c, err := bestCandidate(cands, head, atEOF, bonus)
	switch {
	case err == nil:
		return decision{charset: c}
	case err == ErrMojibake:
		return decision{err: ErrMojibake}
	case err == ErrBinary || controlShareHigh(head):
		return decision{err: ErrBinary}
	}
	return decision{err: ErrUndecodable}
}

// bestCandidate decodes the sample with every candidate and returns the
// most plausible one that passes checkText, if it reaches minScore; bonus
// adds chardet's confidence per name, and ties go to the earlier candidate.
// When none passes, the error is the check failed by the most plausible
// decoding: a GBK file with one broken byte pair is undecodable, not
// mojibake because it also reads as "ÅäÖÃ" in Windows-1252.
func bestCandidate(cands []charset, head []byte, atEOF bool, bonus map[string]int) (charset, error) {
	best, bestScore := -1, 0.0
	failErr, failScore := ErrUndecodable, -1.0
	for i, c := range cands {
		text, decoded := decodeSample(c.enc, head, atEOF)
		if !decoded {
			continue
		}
		score := plausibility(text, profileOf(c.name)) + float64(bonus[c.name])*chardetWeight
		if err := checkText(text); err != nil {
			if score > failScore {
				failErr, failScore = err, score
			}
			continue
		}
		if score > bestScore { // strictly greater: ties go to the earlier candidate
			best, bestScore = i, score
		}
	}
	switch {
	case best >= 0 && bestScore >= minScore:
		return cands[best], nil
	case best >= 0 && bestScore >= failScore:
		return charset{}, ErrUndecodable // decodes, but reads as no language
	}
	return charset{}, failErr
}

// chardetBonus runs chardet on the sample and returns its confidence per
// charset name of ours. chardet breaks confidence ties between recognisers
// differently from run to run (NOTES.md), but the confidences themselves are
// a function of the bytes: keyed by name, they are deterministic.
func chardetBonus(head []byte) map[string]int {
	results, err := chardet.NewTextDetector().DetectAll(head[:min(len(head), chardetSampleBytes)])
	bonus := make(map[string]int)
	if err != nil {
		return bonus
	}
	for _, r := range results {
		if c, ok := fromChardet[r.Charset]; ok {
			bonus[c.name] = max(bonus[c.name], r.Confidence)
		}
	}
	return bonus
}

// chardetCharset finds the charset of ours with the given name among those
// chardet can name.
func chardetCharset(name string) (charset, bool) {
	for _, k := range slices.Sorted(maps.Keys(fromChardet)) {
		if c := fromChardet[k]; c.name == name {
			return c, true
		}
	}
	return charset{}, false
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
// known mojibake.
func checkText(text string) error {
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
	if controls*maxControlShare > runes {
		return ErrBinary
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
