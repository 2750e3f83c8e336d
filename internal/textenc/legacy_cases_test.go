package textenc

import (
	"bytes"
	"strings"
	"testing"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/korean"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/traditionalchinese"
)

// runNamed normalizes in as the file name would be normalized by the stage.
func runNamed(t testing.TB, in, name string) (Result, string, error) {
	t.Helper()
	var n Normalizer
	var out bytes.Buffer
	res, err := n.Normalize(strings.NewReader(in), &out, Options{Name: name})
	return res, out.String(), err
}

// italianMenu is the shape of vim's menu_it_it.latin1.vim: "Sì/No" on
// every line, "Menù", which the Italian dictionary model prices as rare.
var italianMenu = "\" Menu Translations:\tItalian\n" + strings.Repeat("menutrans &Opzione\\ Sì/No<Tab>:set\\ opt\tOpzione\\ Sì/No\n", 6) +
	"menutrans Colore\\ in\\ Menù\tColore\n"

// slovakKeymap is the shape of vim's runtime/keymap/slovak_cp1250.vim:
// lone letters, whose order no language model can judge.
var slovakKeymap = "\" Vim Keymap file for Slovak\nlet b:keymap_name = \"sk\"\nloadkeymap\n" +
	"=a\tá\n+c\tč\n+d\tď\n=e\té\n+e\tě\n=i\tí\n+l\tľ\n=l\tĺ\n+n\tň\n=o\tó\n+o\tô\n+r\tř\n=r\tŕ\n+s\tš\n+t\tť\n=u\tú\n+u\tů\n=y\tý\n+z\tž\n"

// TestLegacyCases holds one case of each kind found staged as
// other text or refused in real repositories, each rebuilt from text
// written for the test and encoded with x/text. Every row was garbled or
// refused before the change it tests (in the comment).
func TestLegacyCases(t *testing.T) {
	box := func(title, line1, line2 string) string {
		return "╔══════════════════════════╗\n║ " + title + " ║\n╠══════════════════════════╣\n║ " + line1 + " ║\n║ " + line2 + " ║\n╚══════════════════════════╝\n"
	}
	cases := []struct {
		name string
		enc  encoding.Encoding
		text string
		file string // the file's base name, if it says something
	}{
		// 1. Declarations (before: refused).
		{"meta iso-8859-1", charmap.ISO8859_1, "<html><head><meta http-equiv=\"Content-Type\" content=\"text/html; charset=iso-8859-1\"></head>\n<body><p>Où est la gare ?</p></body></html>\n", ""},
		{"xml encoding", charmap.ISO8859_1, "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n<menu>\n" + strings.Repeat("  <item>Opzione Sì/No</item>\n", 4) + "</menu>\n", ""},
		{"emacs coding", charmap.ISO8859_1, ";;; -*- mode: lisp; coding: iso-latin-1 -*-\n" + strings.Repeat(";; Opzione Sì/No, Menù\n", 3), "menu.l"},
		{"vim scriptencoding", charmap.ISO8859_1, "scriptencoding latin1\n" + italianMenu, ""},
		{"charset in the file name", charmap.ISO8859_1, italianMenu, "menu_it_it.latin1.vim"},
		{"keymap in cp1250 by its name", charmap.Windows1250, slovakKeymap, "slovak_cp1250.vim"},
		// A literal ^V on every line, as vim's croatian_cp1250.vim has
		// (before: binary, one control in 20 characters).
		{"keymap with ^V, by its name", charmap.Windows1250, strings.ReplaceAll(slovakKeymap, "\t", "\t\x16"), "croatian_cp1250.vim"},
		{"po header", charmap.ISO8859_1, "msgid \"\"\nmsgstr \"\"\n\"Content-Type: text/plain; charset=ISO-8859-1\\n\"\n\nmsgid \"Yes/No\"\nmsgstr \"Sì/No\"\n\nmsgid \"Colour in menu\"\nmsgstr \"Colore in Menù\"\n", ""},
		// 2. Western text (before: Windows-1250 "Breitenbčucher", refused,
		// Windows-1251 "Mise а jour", refused).
		{"english page, one name", charmap.Windows1252, "Contact Jon Breitenbèucher for details.\n", ""},
		{"english page, curly quotes", charmap.Windows1252, "<p>Welcome to the Writer’s Guild page. Our president, Jon Breitenbèucher, says “write every day” – and we agree…</p>\n<p>Copyright © 2003 The Writer’s Guild. All rights reserved.</p>\n", ""},
		{"french à between words", charmap.Windows1252, "<p>Mise à jour</p>\n", ""},
		{"italian man page", charmap.ISO8859_1, ".SH DESCRIZIONE\n.I xxd\ncrea un dump esadecimale di un file dato o dello standard input.\nPuò anche riconvertire un dump esadecimale nel formato binario originale.\nInoltre, può essere usato per creare file in formato binario.\nL'output è nello standard output. Non c'è un valore di default.\nIn questa modalità l'input è letto dallo standard input.\n", ""},
		{"italian è utile", charmap.ISO8859_1, ".SH DESCRIZIONE\n.B Vimtutor\nè utile a chi voglia imparare i primi comandi di Vim.\nIl default è il linguaggio inglese.\nLa traduzione è disponibile.\n", ""},
		// 3. DOS box drawing (before: Windows-1251 "ЙНННН»", refused).
		{"cp866 menu", charmap.CodePage866, box("     Главное меню     ", " 1. Открыть файл      ", " 2. Сохранить         "), ""},
		{"cp866 small box", charmap.CodePage866, "┌────────────┐\n│ Меню       │\n└────────────┘\n", ""},
		{"cp437 menu", charmap.CodePage437, box("      MAIN MENU       ", " 1. Open file         ", " 2. Save              "), ""},
		// 4. EUC-KR and Shift-JIS (before: Big5 "絡遺", refused).
		{"euc-kr css font", korean.EUCKR, "body { font-family: 돋움, Dotum, sans-serif; }\n", ""},
		{"euc-kr font face", korean.EUCKR, "<font face=\"돋움\">\n", ""},
		{"shift-jis katakana comment", japanese.ShiftJIS, ";;; ファイル\n", ""},
		// 5. Short Chinese and Japanese (before: refused, or EUC-KR for
		// a Big5 symbol list).
		{"gbk mud room", simplifiedchinese.GBK, "// 擂台\n\ninherit ROOM;\n\nvoid create()\n{\n        set(\"short\", \"擂台\");\n        set(\"exits\", ([\n                \"south\" : __DIR__\"guangchang\",\n        ]));\n        setup();\n}\n", ""},
		{"gbk config", simplifiedchinese.GBK, "[general]\ntitle = 用户手册\nversion = 1.0\nauthor = admin\nlang = zh\n", ""},
		{"big5 symbol list", traditionalchinese.Big5, "符號表\n※ ↑ ↓ ← → ○ ● △ ▲ ☆ ★ ◇ ◆ □ ■\n", ""},
		{"´ for an apostrophe", charmap.Windows1252, "<?php\n$exclude_users = '';\t\t// enter user´s ID to exclude any user\n// added some pic´s for a better preview ;)\n", ""},
		// Guards, right before and wrong at some step of this work:
		// no-break spaces are not KOI8-R's "═══"; capitals are not what
		// a declared Windows-1251 file is contradicted by; a Big5 script
		// declaring latin1 to get past Python 2 is Big5.
		{"no-break spaces", charmap.Windows1252, "<td><input type=\"submit\" value=\"Send\">\u00a0\u00a0\u00a0<input type=\"reset\" value=\"Clear\"></td>\n", ""},
		{"capitals in a declared cp1251 file", charmap.Windows1251, "\" Test for gettext()\nfunc Test_gettext()\n  call assert_equal('ОШИБКА: for __PACKAGE__', gettext(\"ERROR: \", \"__PACKAGE__\"))\nendfunc\n", "test_gettext_cp1251.vim"},
		{"big5 declaring latin1", traditionalchinese.Big5, "# -*- coding: latin1 -*-\nimport sys\nSTR_AUTHOR1 = \"作者:\"\nSTR_AUTHOR2 = \"發信人:\"\nSTR_TITLE = \"標題:\"\nSTR_TIME = \"時間:\"\n", ""},
		{"french in gb18030", simplifiedchinese.GB18030, "Candide, ou l'Optimisme. Il y avait en Westphalie, dans le château de M. le baron, un jeune garçon à qui la nature avait donné les mœurs les plus douces.\n", ""},
		{"japanese lisp, a name", japanese.ShiftJIS, ";;; -*- Mode: Lisp -*-\n;;;\n;;; life.l --- the game of life\n;;;\n;;; Author: 亀井哲弥\n;;;\n(provide \"life\")\n", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, got, err := runNamed(t, encode(t, c.enc, c.text), c.file)
			if err != nil {
				t.Fatalf("refused: %v", err)
			}
			if got != c.text {
				t.Fatalf("staged as %s:\n got  %q\n want %q", res.Encoding, clip(got), clip(c.text))
			}
		})
	}
}

// TestLegacyCasesNeverGarbled holds bytes whose charset nothing in them
// tells, which were staged as other text: each must be staged as written
// or refused. Before: Windows-1251 "а la carte", ISO-8859-5 "БМИВ" for
// 굴림, Windows-1255 for a BBS drawing made of Big5's "◤●".
func TestLegacyCasesNeverGarbled(t *testing.T) {
	drawing := "\n" + strings.Repeat("                        \x1b[41m        \x1b[31;40m◤    ◥\x1b[41m         \x1b[m\n", 3) +
		"                        \x1b[41m        \x1b[m  \x1b[30;43m◤●\x1b[m  \x1b[41m         \x1b[m\n"
	cases := []struct {
		name string
		enc  encoding.Encoding
		text string
	}{
		{"french à first", charmap.Windows1252, "à la carte\n"},
		{"korean font, iso-8859-5", korean.EUCKR, "td { font-family: 굴림; font-size: 9pt; }\n"},
		{"korean fonts, gbk", korean.EUCKR, "body, td, p { font-family:Tahoma,굴림; font-size:9pt; }\n.small { font-family:돋움; }\n.cloudy {color:#888888;} /* 흐림 */\n"},
		{"big5 drawing", traditionalchinese.Big5, drawing},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, got, err := run(t, encode(t, c.enc, c.text))
			if err == nil && got != c.text {
				t.Errorf("staged as %s: %q", res.Encoding, clip(got))
			}
		})
	}
}

// TestCodeTableRefused holds vim's spell/*/??_??.diff: the charset's
// letters listed in code order, which Windows-1251 reads as the Cyrillic
// alphabet ("абвгдежз..."), more natural to the language models than the
// Latin-1 letters the author listed. No language tells such a table's
// charset: it is refused, unless it says its charset.
func TestCodeTableRefused(t *testing.T) {
	var upper, lower strings.Builder
	for c := 0xc0; c < 0xe0; c++ {
		if c != 0xd7 {
			upper.WriteByte(byte(c))
			lower.WriteByte(byte(c + 0x20))
		}
	}
	table := "+ FOL  " + lower.String() + "\n+ LOW  " + lower.String() + "\n+ UPP  " + upper.String() + "\n"
	if _, got, err := run(t, table); err == nil {
		t.Errorf("staged as %q", clip(got))
	}
	declared := "<?xml version=\"1.0\" encoding=\"iso-8859-1\"?>\n" + table
	if _, _, err := run(t, declared); err != nil {
		t.Errorf("declared, refused: %v", err)
	}
}

// TestDeclaredResult checks what Result says of a declaration: the label
// as written, and whether the bytes contradicted it.
func TestDeclaredResult(t *testing.T) {
	gbk := encode(t, simplifiedchinese.GBK, "<meta charset=\"utf-8\">\n<p>配置文件读取失败，请检查目录权限。</p>\n")
	cases := []struct {
		name, in, file string
		encoding       string
		declared       string
		ignored        bool
	}{
		{"consistent", encode(t, charmap.ISO8859_1, "scriptencoding latin1\n"+italianMenu), "", "windows-1252", "latin1", false},
		{"by name", encode(t, charmap.Windows1250, slovakKeymap), "slovak_cp1250.vim", "windows-1250", "cp1250", false},
		{"utf-8 declared, gbk written", gbk, "", "gbk", "utf-8", true},
		{"latin1 declared, utf-8 written", "<?xml version=\"1.0\" encoding=\"latin1\"?>\n<a>naïve café</a>\n", "", "utf-8", "latin1", true},
		{"utf-8 declared and written", "# -*- coding: utf-8 -*-\nprint('naïve café')\n", "", "utf-8", "utf-8", false},
		{"ascii says nothing", "<meta charset=\"iso-8859-1\">\n", "", "utf-8", "", false},
		{"unknown label", encode(t, charmap.Windows1252, "\"Content-Type: text/plain; charset=CHARSET\\n\"\nCrème brûlée, déjà vu, à la française.\n"), "", "windows-1252", "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, _, err := runNamed(t, c.in, c.file)
			if err != nil {
				t.Fatal(err)
			}
			if res.Encoding != c.encoding || res.Declared != c.declared || res.DeclaredIgnored != c.ignored {
				t.Errorf("encoding %s, declared %q, ignored %v; want %s, %q, %v",
					res.Encoding, res.Declared, res.DeclaredIgnored, c.encoding, c.declared, c.ignored)
			}
		})
	}
}

// TestFindDeclarations is the parser on its own: what each syntax
// declares, and what only looks like a declaration.
func TestFindDeclarations(t *testing.T) {
	cases := []struct {
		name, head, file string
		want             []string // "label=charset"
	}{
		{"meta charset", `<meta charset="ISO-8859-2">`, "", []string{"iso-8859-2=iso-8859-2"}},
		{"http-equiv", `<META HTTP-EQUIV="Content-Type" CONTENT="text/html; charset=windows-1251">`, "", []string{"windows-1251=windows-1251"}},
		{"css", `@charset "euc-kr";`, "", []string{"euc-kr=euc-kr"}},
		{"xml", `<?xml version="1.0" encoding='Shift_JIS'?>`, "", []string{"shift_jis=shift_jis"}},
		{"emacs", ";; -*- coding: cp1250 -*-\n", "", []string{"cp1250=windows-1250"}},
		{"python", "#!/usr/bin/env python\n# coding=latin-1\n", "", []string{"latin-1=windows-1252"}},
		{"vim modeline", "\" vim: set fileencoding=koi8-r :\n", "", []string{"koi8-r=koi8-r"}},
		{"scriptencoding", "\" Menu\n  scriptencoding cp936\n", "", []string{"cp936=gbk"}},
		{"po", "\"Content-Type: text/plain; charset=BIG5\\n\"\n", "", []string{"big5=big5"}},
		{"resource script", "LANGUAGE LANG_ENGLISH, SUBLANG_ENGLISH_US\n#pragma code_page(1252)\n", "", []string{"1252=windows-1252"}},
		{"code_page without pragma", "code_page(1252)\n", "", nil},
		{"hunspell", "SET ISO8859-2\nTRY aeiou\n", "", []string{"iso8859-2=iso-8859-2"}},
		{"hunspell in a diff", "*** 1,3 ****\n  SET ISO8859-1\n", "", []string{"iso8859-1=windows-1252"}},
		{"sql set is not hunspell", "set names latin1;\nSELECT 1;\n", "", nil},
		{"iso-8859-1 is windows-1252", `<meta charset="iso-8859-1">`, "", []string{"iso-8859-1=windows-1252"}},
		{"head, then name", `<meta charset="utf-8">`, "menu_de_de.latin1.vim", []string{"utf-8=utf-8", "latin1=windows-1252"}},
		{"name: code page", "", "menu_chinese_taiwan.950.vim", []string{"950=big5"}},
		{"name: underscore", "", "greek_cp1253.vim", []string{"cp1253=windows-1253"}},
		{"name: iso", "", "menu_cs_cz.iso_8859-2.vim", []string{"iso_8859-2=iso-8859-2"}},
		{"name: sjis", "", "ja.sjis.po", []string{"sjis=shift_jis"}},
		{"name: a language is not a charset", "", "menu_chinese_gb.vim", nil},
		{"name: greek is not iso-8859-7", "", "greek.vim", nil},
		{"name: l1 is not latin1", "", "l1.txt", nil},
		{"name: the extension", "", "notes.koi8-r", nil},
		{"coding past line five", "1\n2\n3\n4\n5\n# coding: latin-1\n", "", nil},
		{"scriptencoding in a string", "let s = 'scriptencoding latin1'\n", "", nil},
		{"no label", "charset=\n", "", nil},
		{"po template", "\"Content-Type: text/plain; charset=CHARSET\\n\"\n", "", nil},
		{"no decoder", `<meta charset="cp737">`, "", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got []string
			for _, d := range findDeclarations([]byte(c.head), c.file) {
				name := d.c.name
				got = append(got, d.label+"="+name)
			}
			if strings.Join(got, " ") != strings.Join(c.want, " ") {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

// TestDeclarationsBounded checks that a declaration past declHeadBytes is
// not read, however the head is padded.
func TestDeclarationsBounded(t *testing.T) {
	head := strings.Repeat("x", declHeadBytes) + `<meta charset="koi8-r">`
	if d := findDeclarations([]byte(head), ""); len(d) != 0 {
		t.Errorf("read %v beyond %d bytes", d, declHeadBytes)
	}
}

func FuzzFindDeclarations(f *testing.F) {
	for _, s := range []string{`<meta charset="iso-8859-2">`, "# -*- coding: latin-1 -*-\n", "scriptencoding cp1250\n",
		`<?xml version="1.0" encoding="EUC-JP"?>`, "@charset \"gbk\";", "charset=", "coding:", "scriptencoding"} {
		f.Add([]byte(s), "menu_de_de.latin1.vim")
	}
	f.Fuzz(func(t *testing.T, head []byte, name string) {
		decls := findDeclarations(head, name)
		if len(decls) > maxDeclarations {
			t.Fatalf("%d declarations, at most %d", len(decls), maxDeclarations)
		}
		for _, d := range decls {
			if len(d.label) == 0 || len(d.label) > 64 {
				t.Fatalf("label %q", d.label)
			}
			if d.c.name == "" {
				t.Fatalf("label %q maps to no charset", d.label)
			}
		}
	})
}
