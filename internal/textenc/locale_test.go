package textenc

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestLocaleInName(t *testing.T) {
	tests := []struct {
		name string
		want locale
		ok   bool
	}{
		{"ku_TR.diff", locale{lang: "ku", region: "tr"}, true},
		{"tr_TR.po", locale{lang: "tr", region: "tr"}, true},
		{"messages_pl_PL.properties", locale{lang: "pl", region: "pl"}, true},
		{"ru_RU.ini", locale{lang: "ru", region: "ru"}, true},
		{"pl_PL.dic", locale{lang: "pl", region: "pl"}, true},
		{"cs_CZ.aff", locale{lang: "cs", region: "cz"}, true},
		{"CS-cz.aff", locale{lang: "cs", region: "cz"}, true},
		{"strings-pt-BR.json", locale{lang: "pt", region: "br"}, true},
		{"menu_de_de.latin1.vim", locale{lang: "de", region: "de"}, true},
		{"hsb_DE.txt", locale{lang: "hsb", region: "de"}, true},
		{"sr_RS@latin.po", locale{lang: "sr", region: "rs", latin: true}, true},
		{"ku_TR", locale{lang: "ku", region: "tr"}, true}, // no extension: the whole name is read
		{"zh_TW.Big5.po", locale{lang: "zh", region: "tw"}, true},
		{"messages_iw_IL.properties", locale{lang: "iw", region: "il"}, true},
		// A language alone: only a gettext catalog's name is a locale.
		{"tr.po", locale{lang: "tr"}, true},
		{"ru.cp1251.po", locale{lang: "ru"}, true},
		{"sr@latin.po", locale{lang: "sr", latin: true}, true},
		{"tr.txt", locale{}, false},
		{"de.dic", locale{}, false},
		{"xx.po", locale{}, false}, // no language of ours
		{"ku.po", locale{}, false}, // Kurdish: known by its region only
		// Words, not locales: the pair is none the C library defines.
		{"go_to.c", locale{}, false},
		{"id_rsa", locale{}, false},
		{"id_rsa.pub", locale{}, false},
		{"is_IN.go", locale{}, false},
		{"a_b.txt", locale{}, false},
		{"ok_OK", locale{}, false},
		{"de_19.diff", locale{}, false},
		{"es_419.json", locale{}, false},
		{"yi_tr.diff", locale{}, false}, // Yiddish transliterated: yi_US is the locale
		{"trtr.po", locale{}, false},
		{"file.tr_TR", locale{}, false}, // the extension is not read
		{"", locale{}, false},
		{"_", locale{}, false},
		{"..", locale{}, false},
		{strings.Repeat("a_", 200) + "ku_TR.diff", locale{}, false}, // longer than any file name
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := localeInName(tt.name)
			if got != tt.want || ok != tt.ok {
				t.Errorf("localeInName(%q) = %+v, %v; want %+v, %v", tt.name, got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestLocaleFamily(t *testing.T) {
	tests := []struct {
		name     string
		try      string // the family's first charset
		byRegion bool
		ok       bool
	}{
		{"ku_TR.diff", "iso-8859-9", true, true},
		{"tr_TR.po", "iso-8859-9", false, true},
		{"pl_PL.dic", "iso-8859-2", false, true},
		{"ru_RU.ini", "windows-1251", false, true},
		{"sr_RS@latin.po", "iso-8859-2", false, true},
		{"sr_RS.po", "windows-1251", false, true},
		{"el_GR.diff", "iso-8859-7", false, true},
		{"de_DE.txt", "windows-1252", false, true},
		{"zh_CN.po", "gbk", false, true},
		{"zh_TW.po", "big5", false, true},
		{"ja_JP.txt", "shift_jis", false, true},
		{"tt_RU.po", "windows-1251", true, true},
		// A minority language of a Western or CJK region: no evidence.
		{"mi_NZ.diff", "", false, false},
		{"cy_GB.diff", "", false, false},
		{"ug_CN.po", "", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			loc, ok := localeInName(tt.name)
			if !ok {
				t.Fatalf("localeInName(%q): no locale", tt.name)
			}
			f, byRegion, ok := localeFamilyOf(loc)
			first := ""
			if ok {
				first = f.try[0]
			}
			if first != tt.try || byRegion != tt.byRegion || ok != tt.ok {
				t.Errorf("localeFamilyOf(%+v) = %s..., %v, %v; want %s..., %v, %v", loc, first, byRegion, ok, tt.try, tt.byRegion, tt.ok)
			}
		})
	}
}

// kurdishDiff is a hunspell dictionary diff as vim keeps them
// (runtime/spell/ku/ku_TR.diff), of Kurdish words in ISO-8859-9: "î"
// 0xEE and "ş" 0xFE. The language models know no Kurdish, and read it
// best, with a clear margin, as Windows-1257's "ī" and "ž"
// ("gihīžtin").
func kurdishDiff() []byte {
	words := []string{
		"kurmanc\xee", "gih\xee\xfetin", "xebit\xeen", "d\xeerok/m", "n\xeev\xees\xeen/m", "xer\xeeb/m", "tar\xee/m",
		"bi\xfe\xeer\xeen", "roj\xeen", "ba\xfe/m", "k\xee\xfek/n", "j\xeen/m", "\xfe\xeen\xee/n", "dib\xeen/Dd",
	}
	var b bytes.Buffer
	b.WriteString("*** ku_TR.orig.dic\tWed Aug 31 22:13:17 2005\n--- ku_TR.dic\tWed Aug 31 22:19:22 2005\n")
	for i, w := range words {
		n := 100 + 37*i
		stem, _, _ := strings.Cut(w, "/")
		fmt.Fprintf(&b, "***************\n*** %d,%d ****\n  %s\n- %s\n  %s/x\n--- %d,%d ----\n", n, n+2, stem, w, w, n, n+1)
	}
	return b.Bytes()
}

func TestLocaleDecides(t *testing.T) {
	kurdish := kurdishDiff()
	tests := []struct {
		name, prior string
		src         []byte
		want        string
		byLocale    bool
	}{
		// The locale's region: Kurdish of Turkey is ISO-8859-9, where the
		// bytes alone are read as Windows-1257.
		{"ku_TR.diff", "", kurdish, "iso-8859-9", true},
		{"ku.diff", "", kurdish, "windows-1257", false},
		{"words.diff", "", kurdish, "windows-1257", false},
		// A repository prior of another family is stronger evidence (""
		// wants what the prior makes of the bytes without the locale); one
		// of the locale's family is the charset the locale chooses.
		{"ku_TR.diff", "windows-1252", kurdish, "", false},
		{"ku_TR.diff", "windows-1254", kurdish, "windows-1254", true},
		// A declaration the bytes agree with wins.
		{"ku_TR.diff", "", append([]byte("SET ISO8859-1\n"), kurdish...), "windows-1252", false},
		{"ku_TR.cp1252.diff", "", kurdish, "windows-1252", false},
		// Valid UTF-8 is never read as the locale's charset.
		{"ku_TR.diff", "", []byte("digih\u00ee\u015ftin di\u015fubin Erba\u015f k\u00fb\u00e7e\n"), "utf-8", false},
		// A choice of the family stays: Russian in KOI8-R.
		{"ru_RU.diff", "", []byte(strings.Repeat("\xf0\xd2\xc9\xd7\xc5\xd4, \xcd\xc9\xd2! \xfc\xd4\xcf \xd4\xc5\xd3\xd4.\n", 4)), "koi8-r", false},
		// A locale that does not read the text as well leaves it: Polish
		// in ISO-8859-2 named for German ("ł" would be "³").
		{"de_DE.txt", "", []byte(strings.Repeat("Za\xbf\xf3\xb3\xe6 g\xea\xb6l\xb1 ja\xbc\xf1. \xa3\xf3d\xbc i \xb6wiat.\n", 3)), "iso-8859-2", false},
	}
	for _, tt := range tests {
		t.Run(tt.name+"/"+tt.prior, func(t *testing.T) {
			var out bytes.Buffer
			res, err := normalizeWith(bytes.NewReader(tt.src), &out, Options{Name: tt.name, Prior: tt.prior})
			if err != nil {
				t.Fatalf("Normalize: %v", err)
			}
			want := tt.want
			if want == "" {
				alone, err := normalizeWith(bytes.NewReader(tt.src), io.Discard, Options{Name: "words.diff", Prior: tt.prior})
				if err != nil {
					t.Fatalf("Normalize without the locale: %v", err)
				}
				want = alone.Encoding
			}
			if res.Encoding != want || res.ByLocale != tt.byLocale {
				t.Errorf("Encoding, ByLocale = %s, %v; want %s, %v", res.Encoding, res.ByLocale, want, tt.byLocale)
			}
			if res.ByLocale && !res.Weak {
				t.Errorf("ByLocale without Weak: a repository prior would not decide it again")
			}
			if !utf8.Valid(out.Bytes()) {
				t.Errorf("output is not UTF-8")
			}
		})
	}
}

func FuzzLocaleInName(f *testing.F) {
	for _, s := range []string{"ku_TR.diff", "go_to.c", "id_rsa", "is_IN", "a_b.txt", "ok_OK", "tr.po",
		"sr_RS@latin.po", "messages_pl_PL.properties", "x-pt-BR-y.json", "_._", "@.po", "\xff_TR.po"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		loc, ok := localeInName(name)
		if !ok {
			if loc != (locale{}) {
				t.Fatalf("localeInName(%q) = %+v with ok false", name, loc)
			}
			return
		}
		lower := asciiLower(name)
		if !strings.Contains(lower, loc.lang) || !strings.Contains(lower, loc.region) {
			t.Fatalf("localeInName(%q) = %+v, not in the name", name, loc)
		}
		if loc.region != "" && !knownLocales()[loc.lang+"_"+loc.region] {
			t.Fatalf("localeInName(%q) = %+v, no locale the C library defines", name, loc)
		}
		if loc.region == "" && (!strings.HasSuffix(lower, ".po") || !knownLanguages()[loc.lang]) {
			t.Fatalf("localeInName(%q) = %+v: a language alone outside a .po name", name, loc)
		}
		upper := []byte(name)
		for i, c := range upper {
			if c >= 'a' && c <= 'z' {
				upper[i] = c - ('a' - 'A')
			}
		}
		if again, ok := localeInName(string(upper)); !ok || again != loc {
			t.Fatalf("localeInName(%q) = %+v but %+v, %v in capitals", name, loc, again, ok)
		}
		if _, _, ok := localeFamilyOf(loc); ok {
			return // a family or none; never a panic
		}
	})
}
