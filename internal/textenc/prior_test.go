package textenc

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/traditionalchinese"
)

// Shapes of a Taiwanese BBS's files (pttbbs), written for the test:
// a comment of two Big5 characters, which alone read as the Thai of
// Windows-874; ANSI art of Big5's symbol rows between colour codes, which
// alone is refused or read as Mac Roman ("¢®¢i¢©" for "◢█◣").
const (
	bbsTag   = "/* Tag List 標籤 */\n"
	bbsSit   = "\n\x1b[1m坐起來嘍~\x1b[m\n\n\n\n              ▄▅▆▅▄\n"
	bbsGrass = "             \x1b[1;32m◢◢◢                \x1b[37m  ◢\n"
	bbsChick = "\n  \x1b[1m哇哇\x1b[m\n          \x1b[1;33;40m◢█◣\x1b[m\n         \x1b[1;33;40m◢███◣\x1b[m\n          \x1b[33m◥  ◤\x1b[m\n"
)

// runPrior normalizes the bytes of text in enc with a prior.
func runPrior(t *testing.T, enc encoding.Encoding, text, prior string) (Result, string, error) {
	t.Helper()
	in := []byte(text)
	if enc != nil {
		var err error
		if in, err = enc.NewEncoder().Bytes(in); err != nil {
			t.Fatalf("encode %q: %v", text, err)
		}
	}
	var n Normalizer
	var out bytes.Buffer
	res, err := n.Normalize(bytes.NewReader(in), &out, Options{Prior: prior})
	return res, out.String(), err
}

// TestRepoPrior: a weak choice gives way to the repository's charset; a strong
// one, a declaration and valid UTF-8 never do. Each "want by prior" row
// is garbled or refused without the prior (checked here, and it was so
// before Options.Prior existed).
func TestRepoPrior(t *testing.T) {
	big5, gbk, latin1 := traditionalchinese.Big5, simplifiedchinese.GBK, charmap.Windows1252
	chinese := strings.Repeat("这是一个用于测试的中文文档，编码转换应当准确无误。\n", 4)
	cases := []struct {
		name    string
		enc     encoding.Encoding
		text    string
		prior   string
		byPrior bool   // the prior decides, and without it the file is not read right
		weak    bool   // Result.Weak
		want    string // Result.Encoding when staged right; "" when not read right (refused or garbled)
	}{
		{"a Big5 comment, Big5 repository", big5, bbsTag, "big5", true, true, "big5"},
		{"a Big5 drawing and a word, Big5 repository", big5, bbsSit, "big5", true, true, "big5"},
		{"a Big5 drawing, Big5 repository", big5, bbsGrass, "big5", true, true, "big5"},
		{"long GBK Chinese, Big5 repository", gbk, chinese, "big5", false, false, "gbk"},
		{"long GBK Chinese, Windows-1252 repository", gbk, chinese, "windows-1252", false, false, "gbk"},
		{"short Latin-1, GBK repository (GBK breaks pairs)", latin1, "caf\u00e9 cr\u00e8me br\u00fbl\u00e9e\n", "gbk", false, true, "windows-1252"},
		{"short Latin-1, GBK repository (GBK reads Han inside words)", latin1, "Herr M\u00fcller, Stra\u00dfe 5\n", "gbk", false, true, "windows-1252"},
		{"declared Latin-1, GBK repository", latin1, "<meta charset=\"iso-8859-1\">\n<p>Caf\u00e9</p>\n", "gbk", false, false, "windows-1252"},
		{"valid UTF-8, Big5 repository", nil, "// 中文註解 ◢█◣\n", "big5", false, false, "utf-8"},
		{"valid UTF-8, Windows-1252 repository", nil, "caf\u00e9\n", "windows-1252", false, false, "utf-8"},
		{"an unknown prior is no prior", big5, bbsTag, "x-unknown", false, true, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, out, err := runPrior(t, tc.enc, tc.text, tc.prior)
			if res.Weak != tc.weak || res.ByPrior != tc.byPrior {
				t.Errorf("weak %v, by prior %v; want %v, %v (%s, %v)", res.Weak, res.ByPrior, tc.weak, tc.byPrior, res.Encoding, err)
			}
			switch {
			case tc.want == "" && err == nil && out == tc.text:
				t.Errorf("staged right as %s; want it not read right", res.Encoding)
			case tc.want != "" && err != nil:
				t.Errorf("refused: %v; want %s", err, tc.want)
			case tc.want != "" && (res.Encoding != tc.want || out != tc.text):
				t.Errorf("staged as %s: %q; want %s: %q", res.Encoding, out, tc.want, tc.text)
			}
			if tc.byPrior {
				// Without the prior, the file alone is not read right.
				res, out, err := runPrior(t, tc.enc, tc.text, "")
				if err == nil && out == tc.text {
					t.Errorf("without the prior it is staged right already (%s): the prior decides nothing here", res.Encoding)
				}
			}
		})
	}
}

// TestWeighPrior: the prior against the decision's own choice, whatever
// the decision makes of the bytes: a weak single-byte reading of Big5 art
// gives way to Big5; art whose colour code cuts a Big5 character (a lead
// byte, ESC[...m, the trail byte) is refused rather than staged as that
// reading; a strong choice and a declaration stand.
func TestWeighPrior(t *testing.T) {
	enc := func(text string) []byte {
		b, err := traditionalchinese.Big5.NewEncoder().Bytes([]byte(text))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	art := enc(bbsChick + "          \x1b[31m▲▲▲▲\x1b[m\n")
	i := bytes.LastIndex(art, []byte("\xa2\xa8")) // the last ◢
	if i < 0 {
		t.Fatalf("no ◢ in %q", art)
	}
	cut := append(append(append([]byte{}, art[:i+1]...), "\x1b[1;37m"...), art[i+1:]...)
	// A lead byte before a space: a break of no tolerated shape.
	badCut := append(append([]byte{}, cut...), "\xa2 \n"...)
	gbkText, err := simplifiedchinese.GBK.NewEncoder().Bytes([]byte(strings.Repeat("这是一个用于测试的中文文档，编码转换应当准确无误。\n", 4)))
	if err != nil {
		t.Fatal(err)
	}
	mac, _ := priorCharset("macintosh")
	gbk, _ := priorCharset("gbk")
	cases := []struct {
		name    string
		head    []byte
		d       decision
		prior   string
		want    string // the charset after; "" for a refusal
		weak    bool
		byPrior bool
	}{
		{"Big5 art read as Mac Roman, Big5 repository", art, decision{charset: mac}, "big5", "big5", true, true},
		{"Big5 art read as Mac Roman, no prior", art, decision{charset: mac}, "", "macintosh", true, false},
		{"Big5 art refused, Big5 repository", art, decision{err: ErrUndecodable}, "big5", "big5", true, true},
		{"Big5 art with a cut pair read as Mac Roman, Big5 repository", cut, decision{charset: mac}, "big5", "big5", true, true},
		{"Big5 art with a cut pair refused, Big5 repository", cut, decision{err: ErrUndecodable}, "big5", "big5", true, true},
		{"Big5 art with a cut pair and a lone lead read as Mac Roman, Big5 repository", badCut, decision{charset: mac}, "big5", "", true, true},
		{"Big5 art with a cut pair and a lone lead refused, Big5 repository", badCut, decision{err: ErrUndecodable}, "big5", "", true, false},
		{"Big5 art with a cut pair read as Mac Roman, GBK repository", cut, decision{charset: mac}, "gbk", "macintosh", true, false},
		{"long GBK text, Big5 repository", gbkText, decision{charset: gbk}, "big5", "gbk", false, false},
		{"declared Mac Roman, Big5 repository", art, decision{charset: mac, declared: "macintosh"}, "big5", "macintosh", false, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d, weak, byPrior := weighPrior(tc.d, tc.head, true, tc.prior, false)
			got := d.name
			if d.err != nil {
				got = ""
			}
			if got != tc.want || weak != tc.weak || byPrior != tc.byPrior {
				t.Errorf("%q (%v), weak %v, by prior %v; want %q, %v, %v", got, d.err, weak, byPrior, tc.want, tc.weak, tc.byPrior)
			}
			if wantBroken := bytes.Contains(tc.head, []byte("\x1b[1;37m")) && got == "big5"; d.broken != wantBroken {
				t.Errorf("broken %v; want %v", d.broken, wantBroken)
			}
		})
	}
}

// TestRepoPriorDeterministic: the same bytes and prior give the same result,
// run after run (the weakness judgement scores every candidate anew).
func TestRepoPriorDeterministic(t *testing.T) {
	for _, text := range []string{bbsTag, bbsSit, bbsChick, "Herr M\u00fcller\n"} {
		first, firstOut, firstErr := runPrior(t, traditionalchinese.Big5, text, "big5")
		for range 10 {
			res, out, err := runPrior(t, traditionalchinese.Big5, text, "big5")
			if res != first || out != firstOut || (err == nil) != (firstErr == nil) {
				t.Fatalf("%q: %+v %q %v, then %+v %q %v", text, first, firstOut, firstErr, res, out, err)
			}
		}
	}
}

// FuzzRepoPrior: whatever the bytes and the prior, the output is valid UTF-8,
// valid UTF-8 input is staged as without a prior, and a prior never turns
// a refusal as binary or invalid UTF-8 into a staged text. Inputs are
// bounded to 4 KiB: the judgement decodes the sample a few dozen times.
func FuzzRepoPrior(f *testing.F) {
	for _, s := range []string{bbsChick, bbsTag, "caf\xe9\n", "\xa2\xa8\xa2\xa9\xa2\xa9\n", "\xa2\x1b[1m\xa8\n", "plain\n"} {
		f.Add([]byte(s), uint8(0))
	}
	priors := []string{"", "big5", "gbk", "windows-1252", "shift_jis", "euc-kr", "koi8-r", "utf-8", "bogus"}
	f.Fuzz(func(t *testing.T, in []byte, k uint8) {
		if len(in) > 4<<10 {
			return
		}
		prior := priors[int(k)%len(priors)]
		var n Normalizer
		var alone, with bytes.Buffer
		resA, errA := n.Normalize(bytes.NewReader(in), &alone, Options{NoTokens: true})
		resP, errP := n.Normalize(bytes.NewReader(in), &with, Options{NoTokens: true, Prior: prior})
		if errP == nil && !utf8.Valid(with.Bytes()) {
			t.Fatalf("prior %q: invalid UTF-8 out", prior)
		}
		if resA.Encoding == "utf-8" && errA == nil && (errP != nil || !bytes.Equal(alone.Bytes(), with.Bytes())) {
			t.Fatalf("prior %q changed a UTF-8 text: %q, then %q (%v)", prior, alone.Bytes(), with.Bytes(), errP)
		}
		if (errors.Is(errA, ErrBinary) || errors.Is(errA, ErrInvalidUTF8)) && errP == nil {
			t.Fatalf("prior %q staged what alone was %v", prior, errA)
		}
		if !resP.Weak && (resP.ByPrior || errA == nil && errP == nil && resA.Encoding != resP.Encoding) && !Contests(prior, resA.Encoding) {
			t.Fatalf("prior %q changed a strong choice: %+v, then %+v", prior, resA, resP)
		}
	})
}

// chickArt is a BBS drawing of Big5 blocks whose colour codes split
// nearly every block (pttbbs's chickens): a lead byte, ESC[..m, the
// trail byte, which then reads as a lead of its own. n drawing rows.
func chickArt(t *testing.T, n int) []byte {
	t.Helper()
	head, err := traditionalchinese.Big5.NewEncoder().Bytes([]byte("\n  \x1b[1m小雞\x1b[m 哇哇叫，肚子餓了\n"))
	if err != nil {
		t.Fatal(err)
	}
	b := append([]byte{}, head...)
	for i := range n {
		b = append(b, "      \x1b[33m\xa2\xa8\xa1\xbd\xa2"...) // ◢█ and the lead of ◣
		b = append(b, fmt.Sprintf("\x1b[%dm", 31+i%6)...)
		b = append(b, "\xa9\xa1\xbd\x1b[m\n"...) // its trail, cut off, then █
	}
	return b
}

// TestPriorBrokenPairs: a file whose only undecodable bytes are Big5
// pairs cut by colour codes, more of them than a file decided alone may
// have (brokenPairRatio), is refused alone and staged in a Big5
// repository with U+FFFD where the decoder puts it; a break of any other
// shape (a lead byte before a space) still refuses it, and so does a
// prior of another charset. Before the prior's broken-pair branch, the
// Big5 repository refused it too.
func TestPriorBrokenPairs(t *testing.T) {
	art := chickArt(t, 6)
	p := newPairScanner("big5")
	p.Write(art)
	p.end()
	if p.bad != 0 || p.cuts*brokenPairRatio <= p.chars {
		t.Fatalf("sample: %d cuts, %d bad, %d characters; want cuts only, more than one per %d", p.cuts, p.bad, p.chars, brokenPairRatio)
	}
	want, err := traditionalchinese.Big5.NewDecoder().Bytes(art)
	if err != nil {
		t.Fatal(err)
	}
	bad := append(append([]byte{}, art...), "  \xa2 \n"...)
	cases := []struct {
		name     string
		in       []byte
		prior    string
		staged   bool
		replaced bool
	}{
		{"cut pairs, no prior", art, "", false, false},
		{"cut pairs, Big5 repository", art, "big5", true, true},
		{"cut pairs, GBK repository", art, "gbk", false, false},
		{"cut pairs, Windows-1252 repository", art, "windows-1252", false, false},
		{"cut pairs and a lone lead, Big5 repository", bad, "big5", false, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var n Normalizer
			var out bytes.Buffer
			res, err := n.Normalize(bytes.NewReader(tc.in), &out, Options{Prior: tc.prior, NoTokens: true})
			if (err == nil) != tc.staged {
				t.Fatalf("%s, %v (by prior %v); want staged %v", res.Encoding, err, res.ByPrior, tc.staged)
			}
			if !tc.staged {
				return
			}
			if res.Encoding != "big5" || !res.ByPrior || (res.Replaced > 0) != tc.replaced {
				t.Errorf("%+v; want big5 by prior, replaced %v", res, tc.replaced)
			}
			if got := strings.ReplaceAll(string(want), "\r\n", "\n"); out.String() != got {
				t.Errorf("staged %q; want the decoder's %q", out.String(), got)
			}
		})
	}
}

// TestContestedSingleByte: a single-byte choice made on strong evidence
// gives way to a single-byte prior of the same script whose reading is
// about as plausible and has as many letters (a Cyrillic text the
// decision read in the wrong Cyrillic charset); never to a prior whose
// reading turns letters into symbols (Ukrainian KOI8-U under KOI8-R,
// Windows-1251 capitals under Mac Cyrillic), nor of another script, nor
// against a declaration, nor a multi-byte choice. Before the rule a
// strong choice never changed.
func TestContestedSingleByte(t *testing.T) {
	enc := func(e encoding.Encoding, text string) []byte { return []byte(encode(t, e, text)) }
	cs := func(name string) charset { return mustCharset(t, name) }
	russian := "Съешь же ещё этих мягких французских булок, да выпей чаю. Широкая электрификация южных губерний.\n"
	ukrainian := "Ласкаво просимо до програми. Її автор Євген, і він з України. Щастя, їжак, є.\n"
	cases := []struct {
		name    string
		head    []byte
		d       decision
		prior   string
		want    string
		byPrior bool
	}{
		{"ISO-8859-5 Russian read as Windows-1251, ISO-8859-5 repository", enc(charmap.ISO8859_5, russian), decision{charset: cs("windows-1251")}, "iso-8859-5", "iso-8859-5", true},
		{"Windows-1251 Russian read as Mac Cyrillic, Windows-1251 repository", enc(charmap.Windows1251, strings.ToLower(russian)+"Москва"), decision{charset: cs("x-mac-cyrillic")}, "windows-1251", "windows-1251", true},
		{"Windows-1251 Russian, Mac Cyrillic repository", enc(charmap.Windows1251, russian), decision{charset: cs("windows-1251")}, "x-mac-cyrillic", "windows-1251", false},
		{"KOI8-U Ukrainian, KOI8-R repository", enc(charmap.KOI8U, ukrainian), decision{charset: cs("koi8-u")}, "koi8-r", "koi8-u", false},
		{"KOI8-R Russian, Windows-1251 repository", enc(charmap.KOI8R, russian), decision{charset: cs("koi8-r")}, "windows-1251", "koi8-r", false},
		{"Windows-1251 Russian, Windows-1252 repository", enc(charmap.Windows1251, russian), decision{charset: cs("windows-1251")}, "windows-1252", "windows-1251", false},
		{"declared Windows-1251, ISO-8859-5 repository", enc(charmap.ISO8859_5, russian), decision{charset: cs("windows-1251"), declared: "windows-1251"}, "iso-8859-5", "windows-1251", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if weak, _, _ := judgeChoice(tc.d, tc.head, true); weak {
				t.Fatalf("the choice is weak: this case is about strong ones")
			}
			d, weak, byPrior := weighPrior(tc.d, tc.head, true, tc.prior, false)
			if d.err != nil || d.name != tc.want || weak || byPrior != tc.byPrior {
				t.Errorf("%s (%v), weak %v, by prior %v; want %s, by prior %v", d.name, d.err, weak, byPrior, tc.want, tc.byPrior)
			}
		})
	}
	for _, c := range []struct {
		prior, strong string
		want          bool
	}{
		{"windows-1251", "koi8-r", true}, {"windows-1251", "windows-1251", false}, {"big5", "windows-1252", false},
		{"windows-1252", "gbk", false}, {"", "koi8-r", false}, {"windows-1251", "", false}, {"bogus", "koi8-r", false},
	} {
		if got := Contests(c.prior, c.strong); got != c.want {
			t.Errorf("Contests(%q, %q) = %v; want %v", c.prior, c.strong, got, c.want)
		}
	}
}

// TestContestedNameDeclaration: a charset named only by the file's name
// ("iso-8859-5.f", a Forth converter written in the repository's
// Windows-1251) gives way to a single-byte prior of the same script that
// reads the bytes about as well, and the name is then reported as a
// declaration the bytes contradict; a file really in the charset its
// name says keeps it, and so does one without a prior. Before, the
// name's charset always stood (garbling the first two rows).
func TestContestedNameDeclaration(t *testing.T) {
	forth := "\\ Перекодировка символов для почты\n\\ Конвертирует строку на месте\n"
	caps := "ПЕРЕКОДИРОВКА ТЕКСТА ИЗ ОДНОЙ КОДИРОВКИ В ДРУГУЮ\n"
	menu := "\" Меню на русском языке\nmenutrans &File &Файл\nmenutrans &Edit П&равка\nmenutrans &Help &Справка\n"
	cases := []struct {
		name, file string
		enc        encoding.Encoding
		text       string
		prior      string
		want       string
		ignored    bool // Result.DeclaredIgnored
	}{
		{"Windows-1251 named iso-8859-5, Windows-1251 repository", "iso-8859-5.f", charmap.Windows1251, forth, "windows-1251", "windows-1251", true},
		{"Windows-1251 capitals named koi8-r, Windows-1251 repository", "koi8-r.f", charmap.Windows1251, caps, "windows-1251", "windows-1251", true},
		{"Windows-1251 named iso-8859-5, no prior", "iso-8859-5.f", charmap.Windows1251, forth, "", "iso-8859-5", false},
		{"KOI8-R menu named koi8-r, Windows-1251 repository", "menu_ru_ru.koi8-r.vim", charmap.KOI8R, menu, "windows-1251", "koi8-r", false},
		{"ISO-8859-5 named iso-8859-5, Windows-1251 repository", "iso-8859-5.f", charmap.ISO8859_5, forth, "windows-1251", "iso-8859-5", false},
		{"Latin-1 menu named latin1, Windows-1251 repository", "menu_de_de.latin1.vim", charmap.Windows1252, "menutrans &Help &Hilfe\nmenutrans Über Über\nmenutrans Schließen Schließen\n", "windows-1251", "windows-1252", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in, err := tc.enc.NewEncoder().Bytes([]byte(tc.text))
			if err != nil {
				t.Fatal(err)
			}
			var n Normalizer
			var out bytes.Buffer
			res, err := n.Normalize(bytes.NewReader(in), &out, Options{Name: tc.file, Prior: tc.prior, NoTokens: true})
			if err != nil {
				t.Fatal(err)
			}
			if res.Encoding != tc.want || res.DeclaredIgnored != tc.ignored || res.ByPrior != tc.ignored {
				t.Errorf("%s (declared %q ignored %v, by prior %v); want %s, ignored %v", res.Encoding, res.Declared, res.DeclaredIgnored, res.ByPrior, tc.want, tc.ignored)
			}
			if tc.prior != "" && out.String() != tc.text {
				t.Errorf("staged %q; want %q", out.String(), tc.text)
			}
		})
	}
}

// TestForeignToPrior: under a single-byte prior, a weak single-byte
// reading of another script whose letters stand apart from ASCII words
// (code page 866 Russian and box drawing read as Windows-1252 in a
// Windows-1251 repository), which the prior does not read either, is
// refused rather than staged garbled; Western words with accented
// letters inside them stay as read, and so does a reading of the
// prior's own script. Before, the weak reading was staged.
func TestForeignToPrior(t *testing.T) {
	enc := func(e encoding.Encoding, text string) []byte { return []byte(encode(t, e, text)) }
	cs := func(name string) charset { return mustCharset(t, name) }
	dos := enc(charmap.CodePage866, "\\ ╔════╗ Меню\n")
	cafe := enc(charmap.Windows1252, "caf\u00e9 cr\u00e8me, M\u00fcller\n")
	cases := []struct {
		name  string
		head  []byte
		d     decision
		prior string
		want  string // "" refused
	}{
		{"code page 866 read as Windows-1252, Windows-1251 repository", dos, decision{charset: cs("windows-1252")}, "windows-1251", ""},
		{"code page 866 read as Windows-1252, no prior", dos, decision{charset: cs("windows-1252")}, "", "windows-1252"},
		{"code page 866 read as Windows-1252, GBK repository", dos, decision{charset: cs("windows-1252")}, "gbk", "windows-1252"},
		{"Western words, Windows-1251 repository", cafe, decision{charset: cs("windows-1252")}, "windows-1251", "windows-1252"},
		{"code page 866 read as KOI8-R, Windows-1251 repository", dos, decision{charset: cs("koi8-r")}, "windows-1251", "koi8-r"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if weak, _, _ := judgeChoice(tc.d, tc.head, true); !weak {
				t.Fatal("the choice is strong: this case is about weak ones")
			}
			d, _, _ := weighPrior(tc.d, tc.head, true, tc.prior, false)
			got := d.name
			if d.err != nil {
				got = ""
			}
			if got != tc.want {
				t.Errorf("%q (%v); want %q", got, d.err, tc.want)
			}
		})
	}
}

// mustCharset is the candidate named name, as a prior names it.
func mustCharset(t testing.TB, name string) charset {
	t.Helper()
	c, ok := priorCharset(name)
	if !ok {
		t.Fatalf("no charset %q", name)
	}
	return c
}
