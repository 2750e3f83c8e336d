package textenc

import (
	"strings"
	"testing"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
)

// sbTableOf is the scorer's table of a single-byte charset.
func sbTableOf(t testing.TB, name string) *sbTable {
	t.Helper()
	for ci, c := range singleByteCharsets {
		if c.name == name {
			return sbTables()[ci]
		}
	}
	t.Fatalf("no charset %s", name)
	return nil
}

// TestLayoutTypo is the cue alone: which letters start a token of ASCII
// as a Russian layout's typo does, in the reading of each charset.
func TestLayoutTypo(t *testing.T) {
	cases := []struct {
		name    string
		charset string
		text    string // encoded in charset, unless raw; the cue is asked about its first non-ASCII byte
		raw     bool
		want    bool
	}{
		{"С++", "windows-1251", "Speed optimizations in С++ LZMA Decoder", false, true},
		{"С#", "windows-1251", "ported to С# code", false, true},
		{"Сlass", "windows-1251", "the Сlass loader", false, true},
		{"РHP in brackets", "windows-1251", "bindings (РHP)", false, true},
		{"lower-case с", "windows-1251", "the сlass loader", false, true},
		{"KOI8-R С++", "koi8-r", "in С++ code", false, true},
		{"at the start of the sample", "windows-1251", "С++ code", false, true},
		{"not a lookalike", "windows-1251", "in Д++ code", false, false},
		{"in the middle of a word", "windows-1251", "made in Espaсa", false, false},
		{"a word of its own", "windows-1251", "Mise а jour", false, false},
		{"before a comma", "windows-1251", "Mise а, jour", false, false},
		{"two in one token", "windows-1251", "both С/С++ and Java", false, false},
		{"another non-ASCII byte in the token", "windows-1251", "in Сх++ code", false, false},
		{"after a letter", "windows-1251", "in xС++ code", false, false},
		{"at the end of the sample", "windows-1251", "in С", false, false},
		{"the same byte in Mac Cyrillic is a dash", "x-mac-cyrillic", "in \xd1++ code", true, false},
		{"the same byte in Windows-1252 is Ñ", "windows-1252", "in \xd1++ code", true, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tab := sbTableOf(t, tc.charset)
			head := []byte(tc.text)
			if !tc.raw {
				cs, _ := priorCharset(tc.charset)
				enc, err := cs.enc.NewEncoder().String(tc.text)
				if err != nil {
					t.Fatal(err)
				}
				head = []byte(enc)
			}
			i := firstNonASCII(head)
			if got := layoutTypo(tab, head, i); got != tc.want {
				t.Errorf("layoutTypo(%s, %q) = %v, want %v", tc.charset, head, got, tc.want)
			}
		})
	}
}

// TestLayoutTypoDecides runs whole texts: English with a Cyrillic С for
// the C of "C++" or "C#" is Windows-1251 (before: Mac Cyrillic's "—++",
// "—#"); in KOI8-R, whose С Windows-1251 reads as the lookalike "у", it
// is not garbled (before: Windows-1252's "ó++"); and Western text whose
// accented letters Windows-1251 reads as lookalikes starting a word
// ("Île" as "Оle") stays Western.
func TestLayoutTypoDecides(t *testing.T) {
	eng := "This release brings many fixes to the decoder and the encoder.\r\n"
	cases := []struct {
		name string
		enc  encoding.Encoding
		text string
		want string // the charset; "" for a refusal, or the text's own charset
	}{
		{"С++ in windows-1251", charmap.Windows1251, eng + "Speed optimizations in С++ LZMA Decoder.\r\n", "windows-1251"},
		{"С# in windows-1251", charmap.Windows1251, eng + "Ported to С# by the team.\r\n", "windows-1251"},
		{"С++ in koi8-r", charmap.KOI8R, eng + "Speed optimizations in С++ LZMA Decoder.\r\n", ""},
		{"Île-de-France", charmap.Windows1252, eng + "Paris and Île-de-France.\r\n", "windows-1252"},
		{"Åke", charmap.Windows1252, eng + "Thanks to Åke Larsson.\r\n", "windows-1252"},
		{"Àngel and Òscar", charmap.Windows1252, eng + "Thanks to Àngel Garcia and Òscar Puig.\r\n", "windows-1252"},
		{"Ísland and Ólafur", charmap.Windows1252, eng + "Thanks to Ísland and Ólafur.\r\n", "windows-1252"},
		{"às vezes", charmap.Windows1252, eng + "às vezes.\r\n", "windows-1252"},
		{"España", charmap.Windows1252, eng + "Made in España.\r\n", "windows-1252"},
		{"Mise à jour", charmap.Windows1252, eng + "Mise à jour.\r\n", "windows-1252"},
		{"Ñu alone", charmap.Windows1252, "Ñu\r\n", "windows-1252"},
		{"Estonian õ", charmap.Windows1252, "õige õppida\r\n", "windows-1252"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in, err := tc.enc.NewEncoder().String(tc.text)
			if err != nil {
				t.Fatal(err)
			}
			res, got, err := runNamed(t, in, "")
			want := strings.ReplaceAll(tc.text, "\r\n", "\n")
			switch {
			case tc.want == "" && err == nil && got != want:
				t.Errorf("staged garbled as %s: %q", res.Encoding, got)
			case tc.want != "" && (err != nil || res.Encoding != tc.want || got != want):
				t.Errorf("got %s (%v) %q, want %s", res.Encoding, err, got, tc.want)
			}
		})
	}
}

// TestLanguageCodePage: an Inno Setup message file's LanguageCodePage is
// a declaration (before: not read; Estonian read as Windows-1252, Uzbek
// in Windows-1251 refused as mojibake).
func TestLanguageCodePage(t *testing.T) {
	cases := []struct {
		name string
		head string
		want string // the declared label; "" none
	}{
		{"at a line's start", "[LangOptions]\r\nLanguageName=Eesti\r\nLanguageCodePage=1257\r\n", "1257"},
		{"spaces around =", "[LangOptions]\nLanguageCodePage = 1251\n", "1251"},
		{"indented", "[LangOptions]\n  LanguageCodePage=1250\n", "1250"},
		{"0 is Unicode", "[LangOptions]\nLanguageCodePage=0\n", ""},
		{"in a comment", "; set LanguageCodePage=1250 for Polish\n", ""},
		{"without =", "LanguageCodePage 1250\n", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := ""
			if decls := findDeclarations([]byte(tc.head), "x.isl"); len(decls) > 0 {
				got = decls[0].label
			}
			if got != tc.want {
				t.Errorf("findDeclarations(%q) = %q, want %q", tc.head, got, tc.want)
			}
		})
	}

	// Estonian reads alike in Windows-1252 and -1257: the declaration names it.
	text := "[LangOptions]\r\nLanguageName=Eesti\r\nLanguageCodePage=1257\r\n[Messages]\r\nSetupAppTitle=Paigaldamine\r\nExitSetupMessage=Paigaldamine ei ole lõpetatud. Kas soovid väljuda?\r\n"
	in, err := charmap.Windows1257.NewEncoder().String(text)
	if err != nil {
		t.Fatal(err)
	}
	res, got, err := runNamed(t, in, "Estonian.isl")
	if err != nil || res.Encoding != "windows-1257" || res.Declared != "1257" || res.DeclaredIgnored ||
		got != strings.ReplaceAll(text, "\r\n", "\n") {
		t.Errorf("got %s, declared %q (ignored %v), %v", res.Encoding, res.Declared, res.DeclaredIgnored, err)
	}
}

// FuzzLayoutTypo checks the cue on any bytes: it never panics, and it
// holds only for a lookalike letter whose token has no other non-ASCII
// byte within maxTypoTokenBytes.
func FuzzLayoutTypo(f *testing.F) {
	for _, s := range []string{"in \xd1++ code", "\xd1", "\xd1#", "x\xd1++", "(\xd0HP)", "\xd1/\xd1++", "\xf1lass"} {
		f.Add([]byte(s), uint8(0))
	}
	f.Fuzz(func(t *testing.T, head []byte, which uint8) {
		if len(head) > 1<<10 {
			return // bounded: the cue reads a token's worth around one byte
		}
		ci := int(which) % len(singleByteCharsets)
		tab := sbTables()[ci]
		for i, c := range head {
			if c < 0x80 || !layoutTypo(tab, head, i) {
				continue
			}
			if !strings.ContainsRune(latinLookalikes, tab.runes[c]) {
				t.Fatalf("%s: %q at %d is no lookalike", singleByteCharsets[ci].name, head, i)
			}
			lo, hi := max(0, i-maxTypoTokenBytes), min(len(head), i+maxTypoTokenBytes+1)
			start, end := i, i+1
			for start > lo && head[start-1] > ' ' {
				start--
			}
			for end < hi && head[end] > ' ' {
				end++
			}
			if n := nonASCIIBytes(head[start:end]); n != 1 {
				t.Fatalf("%s: %q at %d: its token %q has %d non-ASCII bytes", singleByteCharsets[ci].name, head, i, head[start:end], n)
			}
		}
	})
}

// FuzzLanguageCodePage checks the declarations found in heads with an
// Inno Setup code page line: at most maxDeclarations, each a label that
// maps to the charset found for it.
func FuzzLanguageCodePage(f *testing.F) {
	for _, s := range []string{"LanguageCodePage=1257\n", "  LanguageCodePage = 1251\r\n", "LanguageCodePage=0\n",
		"; LanguageCodePage=1250\n", "LanguageCodePage=", "languagecodepage=65001", "LanguageCodePage=1250 ; charset=utf-8\n"} {
		f.Add([]byte("[LangOptions]\n" + s))
	}
	f.Fuzz(func(t *testing.T, head []byte) {
		if len(head) > 2*declHeadBytes {
			return // bounded: the search reads declHeadBytes
		}
		decls := findDeclarations(head, "x.isl")
		if len(decls) > maxDeclarations {
			t.Fatalf("%d declarations, at most %d", len(decls), maxDeclarations)
		}
		for _, d := range decls {
			if c, ok := lookupCharset(d.label, false); !ok || c.name != d.c.name {
				t.Fatalf("label %q maps to %q, found as %q", d.label, c.name, d.c.name)
			}
		}
	})
}
