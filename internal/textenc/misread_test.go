package textenc

import (
	"errors"
	"strings"
	"testing"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/traditionalchinese"
)

// TestLegacyNeverGarbled holds legacy text from files Debian ships (a
// changelog, copyright files, a hunspell affix file, man pages), which a
// run over /usr/share/doc and the dictionaries staged as other text: the
// Latin-1 letter of a name and the letter after it read as one GBK or Big5
// character ("Marc L間er"), a German ö read as an Arabic kasra in
// Windows-1256 ("Sِren"), Estonian letters read as Cyrillic
// ("dmrvpgjhдхbьoцfc"), a line of Japanese or Chinese read as Windows-1252
// or Greek ("–¼‘O", "Α`Δύ"). Each must be staged as itself or refused.
func TestLegacyNeverGarbled(t *testing.T) {
	english := strings.Repeat("This release fixes a crash on empty input and updates the manual page.\n", 3)
	cases := []struct {
		name string
		enc  encoding.Encoding
		text string
	}{
		{"latin-1 names as gbk", charmap.ISO8859_1, english +
			"\t(thanks to Marc Léger)\n - Added German Language support\n" + english},
		{"latin-1 copyright as gbk", charmap.ISO8859_1, "Copyright:\n    Philippe Théveny\n    Paul Zimmermann\n"},
		{"latin-1 translator as gbk", charmap.ISO8859_1, "Copyright: 2004 Gurban Mühemmet Tewekgeli\n  Copyright: 2005 Gnome Foundation\n"},
		{"latin-1 maintainer as big5", charmap.ISO8859_1, "Copyright: 2005-2011 Martin-Éric Racine <q-funk@iki.fi>\nLicense: GPL-2+\n"},
		{"latin-1 changelog as windows-1256", charmap.ISO8859_1, changelog},
		{"estonian affixes as windows-1251", charmap.ISO8859_15, estonianAffixes()},
		{"polish names in iso-8859-2", charmap.ISO8859_2, english +
			"Copyright: 1999, Sami Kerola and Janne Riihijärvi\n           1996 - 2000, Marek Michałkiewicz\n" +
			"           2000 - 2006, Tomasz Kłoczko\n           2007 - 2013, Nicolas François\n" + english +
			"Files: lib/*\nCopyright: 1999 - 2000, Marek Michałkiewicz\n           2002 - 2006, Tomasz Kłoczko\n" +
			"           2007 - 2013, Nicolas François\n           2007-2009, Nicolas François\n" + english},
		{"japanese line in shift_jis", japanese.ShiftJIS, ".SH 名前\n"},
		{"japanese line in euc-jp", japanese.EUCJP, ".SH 名前\n"},
		{"chinese line in big5", traditionalchinese.Big5, ".SH \"總覽 (SYNOPSIS)\"\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, got, err := run(t, encode(t, c.enc, c.text))
			if err != nil {
				if !errors.Is(err, ErrUndecodable) {
					t.Errorf("refused as %v, want undecodable", err)
				}
				return
			}
			if got != c.text {
				t.Errorf("staged as %s:\n got  %q\n want %q", res.Encoding, clip(got), clip(c.text))
			}
		})
	}
}

// changelog is the shape of ed's ChangeLog: English, and the names of the
// people who reported bugs.
var changelog = strings.Repeat("\t* main.c: Fix a crash on a read error of the script file.\n", 9) +
	"\t  (Reported by Sören Tempel).\n\n" +
	strings.Repeat("\t* buffer.c (put_lines): Do not print the line twice.\n", 2) +
	"\t  (Both reported by Xosé Vázquez Pérez).\n" +
	strings.Repeat("\t* io.c: Fix the handling of a missing newline at end of file.\n", 30) +
	"\t  introduced in ed 1.14. (Reported by Hanno Böck).\n" +
	strings.Repeat("\t* signal.c: Restore the terminal on SIGTSTP.\n", 6) +
	"\t  shell command. (Reported by Jérôme Frgacic).\n" +
	strings.Repeat("\t* main_loop.c: Allow a command list in the global command.\n", 8) +
	"\t  (Both issues reported by Cédric Picard).\n" +
	strings.Repeat("\t* Makefile.in: Install the info manual.\n", 80) +
	"Dec 1993  François Pinard  <pinard@icule>\n\nCopyright (C) 1993 François Pinard\n"

// estonianAffixes is the shape of the head of hunspell's et_EE.aff: its
// TRY line, then suffix rules whose conditions list Estonian letters, most
// of them "[lnoräöü]nud".
func estonianAffixes() string {
	var sb strings.Builder
	sb.WriteString("SET ISO8859-15\nTRY aeistlunkodmrvpgjhäõbüoöfcwzxšqž\n")
	for i := range 240 {
		suffix := []string{"da", "dagi", "dagu", "dagugi", "daks", "dakski", "dama", "damagi", "damatu", "damatud"}[i%10]
		cond := "[lnoräöü]nud"
		switch i % 40 {
		case 7:
			cond = "[oäöü]nud"
		case 17:
			cond = "[dtü]nud"
		case 27:
			cond = "änud"
		}
		sb.WriteString("SFX c nud " + suffix + " " + cond + "\n")
	}
	return sb.String()
}

// TestLegacyStagedExactly holds legacy text that must be staged, not only
// not garbled. Both were refused: hunspell's Norwegian dictionary
// (nb_NO.dic, Latin-1), whose one "Genève" among hundreds of ø, å and æ
// tied with ISO-8859-4's "Genečve" while the rare charsets' prior was 8
// bits; and a changelog whose few accented letters are names.
func TestLegacyStagedExactly(t *testing.T) {
	var sb strings.Builder
	sb.WriteString("1793\n")
	words := []string{"A-lagsnivå", "A-lagstrøye", "A-prøve", "A-språk", "A-våpen", "ABC-våpna", "ADB-operatør",
		"AP-byråd", "Abelvær", "Abildsø", "Aftenposten-redaktør", "Akershus-ordfører", "Akershusområdet", "Akerø",
		"Algerøy", "Alicanteområdet", "Allmennkringkastingsråd", "Alsvåg", "Altaområdet", "Alvøy", "Ambjørg",
		"Andabeløy", "Andenæs", "Andesplatået", "Andfiskå", "André", "Andøy", "Angeltrøa", "Ankerløkken",
		"Apalløkka", "Arbeiderparti-byråd", "Arbeidsrettsrådet", "Arnevåg", "Arnøyhamn", "Asbjørn", "Asbjørnson"}
	for i := range 12 {
		for _, w := range words {
			sb.WriteString(w)
			sb.WriteString([]string{"/CEG\n", "/R\n", "/C\n", "/V\n"}[(i+len(w))%4])
		}
		if i == 6 {
			sb.WriteString("Genève\n")
		}
	}
	english := strings.Repeat("  * Fix the handling of symbolic links in the copy utilities.\n", 20)
	for name, text := range map[string]string{
		"norwegian dictionary": sb.String(),
		// A changelog thanking people by name (Debian's libz3-dev and
		// libcommons-io-java): five accented letters from four languages,
		// which no one language model explains.
		"changelog with names": english + "  * Thanks to Christophe Bué.\n" + english +
			"  * Patches by Marko Käärämees, Frédéric Rodríguez Castro and François Remy.\n" + english,
	} {
		t.Run(name, func(t *testing.T) {
			res, got, err := run(t, encode(t, charmap.ISO8859_1, text))
			if err != nil || got != text {
				t.Fatalf("%v, staged as %s: %q", err, res.Encoding, clip(got))
			}
		})
	}
}
