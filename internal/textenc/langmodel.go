package textenc

import (
	_ "embed"
	"encoding/binary"
	"fmt"
	"math"
	"sync"
	"unicode"
)

//go:generate go run ./internal/gen -out langmodels.bin -sources langmodels.txt

// langModelData holds one character bigram model per language, built by
// internal/gen from Debian's hunspell dictionaries (langmodels.txt lists
// them, docs/encoding.md says how to rebuild).
//
//go:embed langmodels.bin
var langModelData []byte

// langUnitsPerBit is the models' quantization: costs are quarter bits.
const langUnitsPerBit = 4

// langModel is one language: the cost in quarter bits of each class
// following each class, over the classes boundary (0), the alphabet
// (1..n) and any other letter (n+1).
type langModel struct {
	code   string
	script string
	n      int     // classes: alphabet + 2
	cost   []uint8 // n*n, row = previous class
	class  []uint8 // letter id (see letterIDs) → class

	alphabet []rune    // the letters of classes 1..n-2, lower case
	freq     []float64 // how often each of them occurs, estimated from the model (letterFreq)
	typical  int       // quarter bits per non-ASCII letter of the language's own words (typicalCost)
	handicap int       // quarter bits per scored byte: the script's highest typical cost less this one's
}

// langSet is every model with the letter ids they share: a letter that
// is in some model's alphabet has an id ≥ 2, in upper and lower case; any
// other letter is 1, and anything else 0.
type langSet struct {
	models []langModel
	ids    map[rune]uint16
	low    []uint16 // ids of runes below lowRunes, for speed
}

const lowRunes = 0x3000

var langs = sync.OnceValue(func() *langSet {
	s, err := parseLangModels(langModelData)
	if err != nil {
		panic(fmt.Sprintf("textenc: embedded language models: %v", err)) // a build defect, caught by every test
	}
	return s
})

func parseLangModels(data []byte) (*langSet, error) {
	const magic = "RPLM\x01"
	if len(data) < len(magic) || string(data[:len(magic)]) != magic {
		return nil, fmt.Errorf("bad header")
	}
	p := data[len(magic):]
	uv := func() (uint64, error) {
		v, n := binary.Uvarint(p)
		if n <= 0 {
			return 0, fmt.Errorf("truncated")
		}
		p = p[n:]
		return v, nil
	}
	str := func() (string, error) {
		n, err := uv()
		if err != nil || n > uint64(len(p)) {
			return "", fmt.Errorf("truncated string")
		}
		s := string(p[:n])
		p = p[n:]
		return s, nil
	}
	count, err := uv()
	if err != nil {
		return nil, err
	}
	s := &langSet{ids: map[rune]uint16{}}
	alphabets := make([][]rune, 0, count)
	for range count {
		var m langModel
		if m.code, err = str(); err != nil {
			return nil, err
		}
		if m.script, err = str(); err != nil {
			return nil, err
		}
		n, err := uv()
		if err != nil || n > 250 {
			return nil, fmt.Errorf("%s: bad alphabet size", m.code)
		}
		alpha := make([]rune, n)
		for i := range alpha {
			r, err := uv()
			if err != nil || r > unicode.MaxRune {
				return nil, fmt.Errorf("%s: bad letter", m.code)
			}
			alpha[i] = rune(r)
		}
		m.n = int(n) + 2
		if len(p) < m.n*m.n {
			return nil, fmt.Errorf("%s: truncated table", m.code)
		}
		m.cost, p = p[:m.n*m.n], p[m.n*m.n:]
		m.alphabet = alpha
		m.freq = letterFreq(m.cost, m.n)
		m.typical = typicalCost(m.cost, m.n, alpha)
		s.models = append(s.models, m)
		alphabets = append(alphabets, alpha)
	}
	if len(p) != 0 {
		return nil, fmt.Errorf("%d trailing bytes", len(p))
	}
	highest := map[string]int{}
	for _, m := range s.models {
		highest[m.script] = max(highest[m.script], m.typical)
	}
	for i := range s.models {
		s.models[i].handicap = highest[s.models[i].script] - s.models[i].typical
	}
	// Letter ids: 2.. in first-seen order, so the same file always gives
	// the same ids; the upper and title case of a letter share its id, and
	// so do the letters of sameLetter.
	next := uint16(2)
	for _, alpha := range alphabets {
		for _, r := range alpha {
			if _, ok := s.ids[r]; !ok {
				s.ids[r] = next
				if twin, ok := sameLetter[r]; ok {
					s.ids[twin] = next
				}
				next++
			}
		}
	}
	for _, alpha := range alphabets {
		for _, r := range alpha {
			for _, v := range []rune{unicode.ToUpper(r), unicode.ToTitle(r)} {
				if _, ok := s.ids[v]; !ok && v != r {
					s.ids[v] = s.ids[r]
				}
			}
		}
	}
	for i := range s.models {
		m := &s.models[i]
		m.class = make([]uint8, next)
		m.class[1] = uint8(m.n - 1)
		for id := 2; id < int(next); id++ {
			m.class[id] = uint8(m.n - 1)
		}
		for j, r := range alphabets[i] {
			m.class[s.ids[r]] = uint8(j + 1)
		}
	}
	s.low = make([]uint16, lowRunes)
	for r := range rune(lowRunes) {
		s.low[r] = s.slowID(r)
	}
	return s, nil
}

// letterFreq estimates how often each alphabet letter occurs in the
// language's words: the stationary distribution of the model's chain
// (P = 2^-cost), which needs no counts beside the model.
func letterFreq(cost []uint8, n int) []float64 {
	return stationary(cost, n)[1 : n-1]
}

// stationary is the stationary distribution over the classes of the chain
// P(b | a) = 2^-cost (rows renormalized after quantization).
func stationary(cost []uint8, n int) []float64 {
	p := make([]float64, n*n)
	for a := range n {
		sum := 0.0
		for b := range n {
			p[a*n+b] = math.Exp2(-float64(cost[a*n+b]) / langUnitsPerBit)
			sum += p[a*n+b]
		}
		for b := range n {
			p[a*n+b] /= sum
		}
	}
	pi := make([]float64, n)
	next := make([]float64, n)
	for i := range pi {
		pi[i] = 1 / float64(n)
	}
	for range 60 {
		clear(next)
		for a := range n {
			for b := range n {
				next[b] += pi[a] * p[a*n+b]
			}
		}
		pi, next = next, pi
	}
	return pi
}

// typicalCost is what a non-ASCII letter of the language costs on average
// in the language's own words, by the model's chain: the bigrams that touch
// non-ASCII letters, per non-ASCII letter. A language whose words are full
// of accented letters (Vietnamese) finds them cheap in any text, so each
// language is handicapped by how much cheaper its typical cost is than the
// highest of its script: among languages of one script a reading is then
// ranked by how typical it is of each, not by how many accents each has.
// (Across scripts the raw costs stand: handicapping every language to one
// level made Arabic read as Latin-1 look as typical of some Latin language
// as it is of Arabic.)
func typicalCost(cost []uint8, n int, alpha []rune) int {
	pi := stationary(cost, n)
	nonASCII := func(c int) bool { return c >= 1 && c <= len(alpha) && alpha[c-1] >= 0x80 }
	var sum, letters float64
	for a := range n {
		if nonASCII(a) {
			letters += pi[a]
		}
		for b := range n {
			if nonASCII(a) || nonASCII(b) {
				p := math.Exp2(-float64(cost[a*n+b]) / langUnitsPerBit)
				sum += pi[a] * p * float64(cost[a*n+b])
			}
		}
	}
	if letters == 0 {
		return 0
	}
	return int(math.Round(sum / letters))
}

// sameLetter pairs letters that text writes either way: Romanian ș and ț
// with a comma below, and the ş and ţ with a cedilla that Windows-1250 and
// ISO-8859-2 have in their place; Persian ی and ک, and the Arabic ي and ك
// that Windows-1256 has in their place (the dictionaries know only one of
// each).
var sameLetter = map[rune]rune{
	'ș': 'ş', 'ş': 'ș', 'ț': 'ţ', 'ţ': 'ț',
	'Ș': 'Ş', 'Ş': 'Ș', 'Ț': 'Ţ', 'Ţ': 'Ț',
	'ی': 'ي', 'ي': 'ی', 'ک': 'ك', 'ك': 'ک',
}

func (s *langSet) slowID(r rune) uint16 {
	if id, ok := s.ids[r]; ok {
		return id
	}
	if isWordLetter(r) {
		if id, ok := s.ids[unicode.ToLower(r)]; ok {
			return id
		}
		return 1
	}
	return 0
}

// id is r's letter id.
func (s *langSet) id(r rune) uint16 {
	if r >= 0 && r < lowRunes {
		return s.low[r]
	}
	return s.slowID(r)
}

// isWordLetter is what counts as part of a word: letters and the
// combining marks of Thai, Hebrew, Arabic and Vietnamese in Windows-1258.
func isWordLetter(r rune) bool { return unicode.IsLetter(r) || unicode.Is(unicode.Mn, r) }
