// Command gen builds the character bigram language models that textenc
// embeds (internal/textenc/langmodels.bin) from the hunspell dictionaries
// Debian ships. Rebuild them with
//
//	apt-get install hunspell-tools hunspell-cs hunspell-pl ... (see docs/encoding.md)
//	go generate ./internal/textenc/
//
// For each language it reads the dictionary's word stems and, when
// hunspell-tools' unmunch is installed, a deterministic sample of the
// inflected forms unmunch expands them to (so Polish "-ą" and Czech "-ý"
// endings count as much as they do in running text), lowercases every word,
// and counts the character bigrams of " word " (a space standing for the
// word boundary), short words weighing more (wordWeight). The letters that
// make at least minLetterShare of the letters of the stems form its
// alphabet; words with any other letter are left out. Each model is the
// table of -log2 P(next | previous) over boundary, alphabet and "other
// letter" (whose costs are fixed), with add-k smoothing, in quarter bits on
// one byte. Nothing here reads text that the models are later checked on.
package main

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"flag"
	"fmt"
	"io"
	"log"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"unicode"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/ianaindex"
	"golang.org/x/text/unicode/norm"
)

// languages lists the models built: the language's code and its
// dictionary's name under /usr/share/hunspell. They are the languages
// whose text the single-byte charsets of golang.org/x/text were made for.
var languages = []struct{ code, dic string }{
	{"af", "af_ZA"}, {"ar", "ar"}, {"be", "be_BY"}, {"bg", "bg_BG"}, {"bs", "bs_BA"},
	{"ca", "ca"}, {"cs", "cs_CZ"}, {"da", "da_DK"}, {"de", "de_DE"}, {"el", "el_GR"},
	{"eo", "eo"}, {"es", "es_ES"}, {"et", "et_EE"}, {"eu", "eu"}, {"fa", "fa"},
	{"fr", "fr"}, {"gl", "gl_ES"}, {"he", "he_IL"}, {"hr", "hr_HR"}, {"hu", "hu_HU"},
	{"is", "is_IS"}, {"it", "it_IT"}, {"kk", "kk_KZ"}, {"lt", "lt_LT"}, {"lv", "lv_LV"},
	{"nb", "nb_NO"}, {"nl", "nl"}, {"pl", "pl_PL"}, {"pt", "pt_PT"}, {"pt-br", "pt_BR"},
	{"ro", "ro_RO"}, {"ru", "ru_RU"}, {"sk", "sk_SK"}, {"sl", "sl_SI"}, {"sr", "sr_RS"},
	{"sv", "sv_SE"}, {"th", "th_TH"}, {"tr", "tr_TR"}, {"uk", "uk_UA"}, {"vi", "vi_VN"},
}

const (
	// minLetterShare is the share of a language's letters a letter needs to
	// be in its alphabet: "é" in German loanwords is in, a Cyrillic letter
	// in one Polish entry is not.
	minLetterShare = 2e-5
	// maxAlphabet bounds a model's table ((maxAlphabet+2)² bytes).
	maxAlphabet = 120
	// maxFormLines bounds the lines of unmunch's output read per language,
	// and every formsEvery-th form read is counted.
	maxFormLines = 4_000_000
	formsEvery   = 2
	// costOtherIn, costOtherOut and costOtherEnd are the fixed costs, in
	// bits, of going into a letter outside the alphabet, from it into a
	// letter of the alphabet, and from it to the end of a word or another
	// such letter: a word that mixes them is not of this language (a
	// Cyrillic letter between Latin ones is Latin-1 read as Windows-1251),
	// and the dictionaries' rare foreign entries say nothing about it, so
	// they are left out.
	costOtherIn  = 16
	costOtherOut = 12
	costOtherEnd = 2
	// smoothing is the k of add-k smoothing, and unseenBits the least a
	// bigram that fewer than minSeen words of the dictionary have costs: a
	// dictionary of a few thousand Vietnamese syllables is complete, so no
	// smoothing of its small counts may make an impossible pair cheap, and
	// one or two words are typos and foreign entries.
	smoothing  = 0.01
	unseenBits = 18
	minSeen    = 3
	// unitsPerBit is the quantization: a cost byte is quarter bits.
	unitsPerBit = 4
)

func main() {
	dir := flag.String("dicts", "/usr/share/hunspell", "folder of the hunspell .dic/.aff files")
	out := flag.String("out", "langmodels.bin", "model file to write")
	sources := flag.String("sources", "langmodels.txt", "list of the dictionaries and package versions used")
	flag.Parse()

	var bin bytes.Buffer
	bin.WriteString("RPLM\x01")
	var models []model
	for _, l := range languages {
		m, err := build(l.code, filepath.Join(*dir, l.dic))
		if err != nil {
			log.Fatalf("%s: %v", l.code, err)
		}
		models = append(models, m)
		log.Printf("%-6s %-8s %9d stems %9d forms, %3d letters", l.code, m.script, m.stems, m.forms, len(m.alphabet))
	}
	putUvarint(&bin, uint64(len(models)))
	var src strings.Builder
	src.WriteString("# Dictionaries the language models in langmodels.bin were built from\n" +
		"# (go generate ./internal/textenc/; see docs/encoding.md).\n" +
		"# code script dictionary package version stems forms letters\n")
	for _, m := range models {
		m.write(&bin)
		fmt.Fprintf(&src, "%s %s %s %s %s %d %d %d\n", m.code, m.script, filepath.Base(m.dic), m.pkg, m.version, m.stems, m.forms, len(m.alphabet))
	}
	if err := os.WriteFile(*out, bin.Bytes(), 0o644); err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(*sources, []byte(src.String()), 0o644); err != nil {
		log.Fatal(err)
	}
	log.Printf("wrote %s: %d bytes, %d languages", *out, bin.Len(), len(models))
}

type model struct {
	code, dic, script, pkg, version string
	stems, forms                    int
	alphabet                        []rune
	cost                            []byte // (len(alphabet)+2)², row = previous class
}

// build counts one language's bigrams and turns them into a model.
func build(code, dicBase string) (model, error) {
	m := model{code: code, dic: dicBase + ".dic"}
	enc, err := dictEncoding(dicBase + ".aff")
	if err != nil {
		return m, err
	}
	m.pkg, m.version = debianPackage(m.dic)

	var words []string
	addWords := func(r io.Reader, each int, isStem bool) error {
		sc := bufio.NewScanner(enc.NewDecoder().Reader(r))
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		first := isStem
		n := 0
		for sc.Scan() {
			line := sc.Text()
			if first { // the .dic's first line is its entry count
				first = false
				continue
			}
			n++
			if each > 1 && n%each != 0 {
				continue
			}
			w := line
			if i := strings.IndexAny(w, "/\t "); i >= 0 {
				w = w[:i]
			}
			if w = strings.TrimPrefix(w, "\ufeff"); w == "" {
				continue
			}
			w = norm.NFC.String(strings.ToLower(w))
			if code == "vi" {
				w = windows1258Form(w)
			}
			words = append(words, w)
			if isStem {
				m.stems++
			} else {
				m.forms++
			}
		}
		return sc.Err()
	}
	f, err := os.Open(m.dic)
	if err != nil {
		return m, err
	}
	err = addWords(f, 1, true)
	f.Close()
	if err != nil {
		return m, err
	}
	if err := addForms(dicBase, func(r io.Reader) error { return addWords(r, formsEvery, false) }); err != nil {
		return m, err
	}

	// Letter counts over the stems decide the alphabet: the forms would
	// drown letters that few words have but running text uses all the
	// time (Italian "è", "perché", "più" are 70 stems each).
	letters := map[rune]int{}
	total := 0
	for _, w := range words[:m.stems] {
		for _, r := range w {
			if isLetter(r) {
				letters[r]++
				total++
			}
		}
	}
	for r, n := range letters {
		if float64(n) >= minLetterShare*float64(total) {
			m.alphabet = append(m.alphabet, r)
		}
	}
	slices.SortFunc(m.alphabet, func(a, b rune) int { return letters[b] - letters[a] })
	if len(m.alphabet) > maxAlphabet {
		m.alphabet = m.alphabet[:maxAlphabet]
	}
	slices.Sort(m.alphabet)
	m.script = scriptOf(m.alphabet, letters)

	// Bigram counts over classes: 0 boundary, 1..n alphabet, n+1 other letter.
	n := len(m.alphabet) + 2
	class := func(r rune) int {
		if !isLetter(r) {
			return 0
		}
		if i, ok := slices.BinarySearch(m.alphabet, r); ok {
			return i + 1
		}
		return n - 1
	}
	counts := make([]float64, n*n)
	seen := make([]int, n*n) // words with the bigram, unweighted
words:
	for _, w := range words {
		for _, r := range w {
			if class(r) == n-1 {
				continue words
			}
		}
		weight := wordWeight(w)
		prev := 0
		for _, r := range w {
			c := class(r)
			if c == 0 && prev == 0 {
				continue
			}
			counts[prev*n+c] += weight
			seen[prev*n+c]++
			prev = c
		}
		if prev != 0 {
			counts[prev*n] += weight
			seen[prev*n]++
		}
	}
	m.cost = make([]byte, n*n)
	for a := range n {
		row := counts[a*n : (a+1)*n]
		sum := 0.0
		for _, c := range row {
			sum += c
		}
		for b, c := range row {
			p := (c + smoothing) / (sum + smoothing*float64(n))
			bits := -math.Log2(p)
			if seen[a*n+b] < minSeen {
				bits = max(bits, unseenBits)
			}
			switch {
			case b == n-1:
				bits = costOtherIn
			case a == n-1 && b == 0:
				bits = costOtherEnd
			case a == n-1:
				bits = costOtherOut
			}
			m.cost[a*n+b] = byte(min(math.Round(bits*unitsPerBit), 255))
		}
	}
	return m, nil
}

// wordWeight is how much a word counts: a dictionary lists each word once,
// but in running text the short words are the frequent ones (Zipf's law of
// abbreviation): Italian "è", "più", "già", French "où", "à" are among the
// commonest words and carry the accents a charset decision turns on. So a
// word of n letters weighs (4/n)^1.5, capped at 8.
func wordWeight(w string) float64 {
	n := 0
	for _, r := range w {
		if isLetter(r) && !unicode.Is(unicode.Mn, r) {
			n++
		}
	}
	return min(8, math.Pow(4/float64(max(n, 1)), 1.5))
}

// windows1258Form writes a Vietnamese word the way Windows-1258 holds it,
// which is the only legacy charset of x/text that can: the letters the code
// page has whole (ă, â, ê, ô, ơ, ư, đ and the Latin-1 ones such as á) stay
// precomposed, and the tone marks it lacks follow as combining marks
// (ấ = â + U+0301), as a converter writes them.
func windows1258Form(w string) string {
	var b strings.Builder
	for _, r := range w {
		b.WriteString(windows1258Rune(r))
	}
	return b.String()
}

// windows1258Rune is r as Windows-1258 can hold it: itself, or a letter
// it has followed by combining marks.
func windows1258Rune(r rune) string {
	if _, ok := charmap.Windows1258.EncodeRune(r); ok {
		return string(r)
	}
	d := []rune(norm.NFD.String(string(r)))
	for j := 1; j < len(d); j++ {
		c := []rune(norm.NFC.String(string([]rune{d[0], d[j]})))
		if _, ok := charmap.Windows1258.EncodeRune(c[0]); len(c) == 1 && ok {
			rest := slices.Delete(slices.Clone(d[1:]), j-1, j)
			return string(c[0]) + string(rest)
		}
	}
	return string(d)
}

// isLetter is what counts as part of a word: letters and the combining
// marks of Thai, Hebrew and Arabic (vowel signs, points, harakat).
func isLetter(r rune) bool { return unicode.IsLetter(r) || unicode.Is(unicode.Mn, r) }

// addForms feeds unmunch's expansion of a dictionary to add, reading at
// most maxFormLines lines of it (Basque and Hebrew expand to tens of
// millions); without hunspell-tools only the stems are counted.
func addForms(dicBase string, add func(io.Reader) error) error {
	if _, err := exec.LookPath("unmunch"); err != nil {
		log.Printf("unmunch not found (hunspell-tools): counting stems only")
		return nil
	}
	cmd := exec.Command("unmunch", dicBase+".dic", dicBase+".aff")
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	err = add(&lineLimit{r: bufio.NewReaderSize(out, 1<<16), left: maxFormLines})
	cmd.Process.Kill() // stop an expansion cut short; the forms read so far are kept
	cmd.Wait()
	return err
}

// lineLimit reads whole lines from r until left lines have been read.
type lineLimit struct {
	r    *bufio.Reader
	left int
	buf  []byte
}

func (l *lineLimit) Read(p []byte) (int, error) {
	for len(l.buf) == 0 {
		if l.left == 0 {
			return 0, io.EOF
		}
		line, err := l.r.ReadBytes('\n')
		if len(line) > 0 {
			l.left--
			l.buf = line
			break
		}
		if err != nil {
			return 0, err
		}
	}
	n := copy(p, l.buf)
	l.buf = l.buf[n:]
	return n, nil
}

// dictEncoding reads the SET line of a .aff file (ISO-8859-1 when absent,
// as hunspell assumes).
func dictEncoding(aff string) (encoding.Encoding, error) {
	data, err := os.ReadFile(aff)
	if err != nil {
		return nil, err
	}
	name := "ISO-8859-1"
	for line := range strings.Lines(string(data)) {
		f := strings.Fields(strings.TrimPrefix(line, "\ufeff"))
		if len(f) >= 2 && f[0] == "SET" {
			name = f[1]
			break
		}
	}
	if strings.HasPrefix(name, "ISO8859") {
		name = "ISO-8859" + strings.TrimPrefix(name, "ISO8859")
	}
	enc, err := ianaindex.IANA.Encoding(name)
	if err != nil || enc == nil {
		return nil, fmt.Errorf("%s: charset %q: %v", aff, name, err)
	}
	return enc, nil
}

// debianPackage names the package that installed a file, and its version.
func debianPackage(file string) (string, string) {
	out, err := exec.Command("dpkg", "-S", file).Output()
	if err != nil {
		return "?", "?"
	}
	pkg, _, _ := strings.Cut(strings.TrimSpace(string(out)), ":")
	ver, err := exec.Command("dpkg-query", "-W", "-f", "${Version}", pkg).Output()
	if err != nil {
		return pkg, "?"
	}
	return pkg, string(ver)
}

// scriptOf names the script of most of an alphabet's non-ASCII letters.
func scriptOf(alphabet []rune, counts map[rune]int) string {
	scripts := []string{"Latin", "Cyrillic", "Greek", "Hebrew", "Arabic", "Thai"}
	best, bestN := "Latin", -1
	for _, s := range scripts {
		n := 0
		for _, r := range alphabet {
			if r >= 0x80 && unicode.Is(unicode.Scripts[s], r) {
				n += counts[r]
			}
		}
		if n > bestN {
			best, bestN = s, n
		}
	}
	return best
}

// write appends the model in langmodels.bin's format: code, script,
// alphabet (runes as uvarints), then the cost table row by row.
func (m model) write(w *bytes.Buffer) {
	putString(w, m.code)
	putString(w, m.script)
	putUvarint(w, uint64(len(m.alphabet)))
	for _, r := range m.alphabet {
		putUvarint(w, uint64(r))
	}
	w.Write(m.cost)
}

func putString(w *bytes.Buffer, s string) {
	putUvarint(w, uint64(len(s)))
	w.WriteString(s)
}

func putUvarint(w *bytes.Buffer, v uint64) {
	w.Write(binary.AppendUvarint(nil, v))
}
