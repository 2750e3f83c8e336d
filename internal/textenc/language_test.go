package textenc

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/encoding/unicode/utf32"
	"golang.org/x/text/unicode/norm"
)

// languageSamples are sentences written for these tests, one or two per
// language the single-byte charsets serve, each encoded with x/text's
// encoder for the charsets that language is written in. A sample must come
// back exactly, or be refused; never garbled.
var languageSamples = []struct {
	lang, text string
	charsets   []string
	mayRefuse  bool // the bytes read as another text that is as right (see the ro entries)
}{
	{"cs", "Příliš žluťoučký kůň úpěl ďábelské ódy. Ledňáček říční sedí na větvi.", []string{"iso-8859-2", "windows-1250", "ibm852"}, false},
	{"pl", "Zażółć gęślą jaźń. Pchnąć w tę łódź jeża lub ośm skrzyń fig.", []string{"iso-8859-2", "windows-1250"}, false},
	{"hu", "Árvíztűrő tükörfúrógép. A Művelődés Háza ma este nyitva tart.", []string{"iso-8859-2", "windows-1250"}, false},
	{"sk", "Kŕdeľ šťastných ďatľov učí pri ústí Váhu mĺkveho koňa obhrýzať kôru.", []string{"iso-8859-2", "windows-1250"}, false},
	{"hr", "Gojazni đačić s biciklom drži hmelj i finu vatu u džepu nošnje.", []string{"windows-1250"}, false},
	// Romanian in ISO-8859-16 (ș, ț: comma below) and in Windows-1250 or
	// ISO-8859-2 (ş, ţ: cedilla) is the same bytes: either reading may be
	// refused, neither may come back as the other.
	{"ro", "Bună ziua, lume! Acesta este un text în limba română, cu ș și ț.", []string{"iso-8859-16"}, true},
	{"ro", "Bună ziua, lume! Acesta este un text în limba română, cu ş şi ţ.", []string{"windows-1250", "iso-8859-2"}, true},
	{"tr", "Pijamalı hasta yağız şoföre çabucak güvendi. Öğrenciler kitaplarını okuyor.", []string{"windows-1254", "iso-8859-9"}, false},
	{"lt", "Laba diena, pasauli! Čia yra lietuviškas tekstas apie ąžuolus ir žąsis.", []string{"windows-1257", "iso-8859-13"}, false},
	{"he", "אינפומד - אתר הרפואה. שלום עולם, זהו טקסט קצר בעברית.", []string{"windows-1255", "iso-8859-8", "ibm862"}, false},
	{"ar", "مرحبا بالعالم. هذا نص قصير باللغة العربية للاختبار.", []string{"windows-1256", "iso-8859-6"}, false},
	{"th", "สวัสดีชาวโลก นี่คือข้อความภาษาไทยสำหรับการทดสอบ", []string{"windows-874"}, false},
	{"vi", "Tiếng Việt là ngôn ngữ chính thức của Việt Nam. Xin chào thế giới.", []string{"windows-1258"}, false},
	{"ru", "Съешь же ещё этих мягких французских булок, да выпей чаю.", []string{"ibm866", "x-mac-cyrillic", "ibm855", "iso-8859-5", "koi8-r", "windows-1251"}, false},
	{"uk", "Привіт, світе! Це український текст із літерами ї, є та ґ.", []string{"koi8-u", "windows-1251"}, false},
	{"el", "Καλημέρα κόσμε, αυτό είναι ένα μικρό ελληνικό κείμενο.", []string{"windows-1253", "iso-8859-7"}, false},
	{"de", "Schöne Grüße aus München, wo die Straßen größer sind.", []string{"windows-1252", "ibm850", "macintosh"}, false},
	{"fr", "Où est passé le garçon qui mangeait une crème brûlée à Noël ?", []string{"windows-1252", "iso-8859-15", "macintosh"}, false},
}

// encoderOf finds the x/text encoding of one of our charset names.
func encoderOf(t *testing.T, name string) encoding.Encoding {
	t.Helper()
	for _, c := range singleByteCharsets {
		if c.name == name {
			return c.enc
		}
	}
	t.Fatalf("no charset %q", name)
	return nil
}

// windows1258Text writes Vietnamese the way Windows-1258 holds it: the
// letters it has whole stay, the other tone marks follow as combining
// marks (as internal/gen builds the Vietnamese model, and as converters
// write it).
func windows1258Text(s string) string {
	var b strings.Builder
	for _, r := range norm.NFC.String(s) {
		if _, ok := charmap.Windows1258.EncodeRune(r); ok {
			b.WriteRune(r)
			continue
		}
		d := []rune(norm.NFD.String(string(r)))
		done := false
		for j := 1; j < len(d) && !done; j++ {
			c := []rune(norm.NFC.String(string([]rune{d[0], d[j]})))
			if _, ok := charmap.Windows1258.EncodeRune(c[0]); len(c) == 1 && ok {
				b.WriteRune(c[0])
				b.WriteString(string(slices.Delete(slices.Clone(d[1:]), j-1, j)))
				done = true
			}
		}
		if !done {
			b.WriteString(string(d))
		}
	}
	return b.String()
}

func TestLanguageSamples(t *testing.T) {
	for _, s := range languageSamples {
		for _, cs := range s.charsets {
			t.Run(s.lang+"/"+cs, func(t *testing.T) {
				text := s.text
				if cs == "windows-1258" {
					text = windows1258Text(text)
				}
				data, err := encoderOf(t, cs).NewEncoder().Bytes([]byte(text))
				if err != nil {
					t.Fatalf("cannot encode the sample in %s: %v", cs, err)
				}
				var out bytes.Buffer
				res, err := Normalize(bytes.NewReader(data), &out)
				if s.mayRefuse && errors.Is(err, ErrUndecodable) {
					return
				}
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				if out.String() != text {
					t.Fatalf("garbled as %s:\n got  %q\n want %q", res.Encoding, out.String(), text)
				}
				// Another charset that reads these bytes the same is as right
				// (ISO-8859-2 and Windows-1250 agree on Hungarian letters).
				if res.Encoding != cs {
					same, err := encoderOf(t, res.Encoding).NewDecoder().Bytes(data)
					if err != nil || string(same) != text {
						t.Errorf("reported %s, which does not read these bytes as the text", res.Encoding)
					}
				}
			})
		}
	}
}

// TestStrayByteUTF8 is UTF-8 with a byte that is not: one Latin-1 byte, or
// a character cut at the end. It must be refused as invalid-utf8, never
// read whole as a single-byte charset (it was staged as "п╓п╟п╧п╩").
func TestStrayByteUTF8(t *testing.T) {
	ru := "Файл конфигурации не найден, используются значения по умолчанию.\n"
	cases := map[string]string{
		"latin-1 byte":      ru + "caf\xe9\n" + ru,
		"cut at the end":    ru + ru + "\xd0",
		"cut in the middle": ru + "\xe4\xb8" + ru,
		"chinese and one":   "配置文件读取失败，请检查目录权限。\x80默认用户名是管理员。\n",
	}
	for name, in := range cases {
		t.Run(name, func(t *testing.T) {
			res, got, err := run(t, in)
			if !errors.Is(err, ErrInvalidUTF8) {
				t.Fatalf("err = %v (encoding %s, output %q), want invalid-utf8", err, res.Encoding, clip(got))
			}
		})
	}
	// Legacy text is not UTF-8 with errors, even where its bytes form a
	// UTF-8 sequence by chance (Ukrainian "Ні" is CD B3 in Windows-1251).
	uk := encode(t, charmap.Windows1251, "Ні, Лікар сказав: Ні. Вітаю!")
	if utf8WithErrors([]byte(uk), true) {
		t.Errorf("Windows-1251 Ukrainian taken for UTF-8 with errors")
	}
}

// TestMisreadUTF8 covers mojibake through charsets other than Windows-1252:
// UTF-8 read as Windows-1251, KOI8-R or ISO-8859-2 and saved again.
func TestMisreadUTF8(t *testing.T) {
	orig := map[string]string{
		"ru": "Привет, мир! Это обычный русский текст.",
		"hu": "Árvíztűrő tükörfúrógép és ő meg ű.",
		"el": "Καλημέρα κόσμε, αυτό είναι κείμενο.",
	}
	for _, via := range []struct {
		name string
		cm   *charmap.Charmap
	}{{"windows-1251", charmap.Windows1251}, {"koi8-r", charmap.KOI8R}, {"iso-8859-2", charmap.ISO8859_2}, {"windows-1252", charmap.Windows1252}} {
		for lang, text := range orig {
			garbled, err := via.cm.NewDecoder().String(text)
			if err != nil || strings.ContainsRune(garbled, '\uFFFD') {
				continue // a byte the charset lacks: not a way this text gets garbled
			}
			t.Run(lang+"/"+via.name, func(t *testing.T) {
				if !isMisreadUTF8(garbled) || !isMisreadUTF8Bytes([]byte(garbled)) {
					t.Errorf("%q not recognised", garbled)
				}
				// Valid UTF-8 is never refused: staged as written, flagged.
				if res, got, err := run(t, garbled); err != nil || !res.Mojibake || got != garbled {
					t.Errorf("UTF-8 file: err = %v, mojibake %v, kept %v; want it kept and flagged", err, res.Mojibake, got == garbled)
				}
			})
		}
	}
	for _, s := range languageSamples {
		if isMisreadUTF8(s.text) || isMisreadUTF8Bytes([]byte(s.text)) {
			t.Errorf("%s sample taken for mojibake", s.lang)
		}
	}
}

// TestMisreadUTF8RealText is UTF-8 that is the author's own, in which some
// characters' code page 866 bytes are UTF-8 sequences by chance. Each was
// refused as mojibake when the check counted sequences rather than whole
// runs of them: ripgrep's GUIDE.md (English, "Шерлок" twice), and one-line
// translations from matomo's plugins/*/lang (Belarusian, Bulgarian).
func TestMisreadUTF8RealText(t *testing.T) {
	for name, text := range map[string]string{
		"guide":  "For example, search for `Шерлок`:\n\n    $ rg 'Шерлок' subtitles.srt\n\nand again `Шерлок` in Cyrillic.\n",
		"be":     "{\n    \"Tour\": {\n        \"Engagement\": \"Абавязацельства\"\n    }\n}\n",
		"bg":     "{\n    \"ProfessionalServices\": {\n        \"WidgetPremiumServicesForPiwik\": \"Премиум функции &amp; Услуги за Matomo\"\n    }\n}\n",
		"one ru": "Шерлок\n",
	} {
		t.Run(name, func(t *testing.T) {
			if isMisreadUTF8(text) || isMisreadUTF8Bytes([]byte(text)) {
				t.Errorf("taken for mojibake: %q", text)
			}
			res, got, err := run(t, text)
			if err != nil || got != text || res.Encoding != "utf-8" {
				t.Errorf("Normalize: %v, encoding %q, staged %q", err, res.Encoding, clip(got))
			}
		})
	}
}

// TestLanguageModelsLoad checks the embedded models: every language the
// generator lists, with an alphabet of its script.
func TestLanguageModelsLoad(t *testing.T) {
	s := langs()
	if len(s.models) < 30 {
		t.Fatalf("%d models", len(s.models))
	}
	for _, code := range []string{"cs", "pl", "hu", "tr", "he", "ar", "th", "vi", "ru", "el"} {
		if !slices.ContainsFunc(s.models, func(m langModel) bool { return m.code == code }) {
			t.Errorf("no model for %s", code)
		}
	}
	if _, err := parseLangModels(langModelData[:len(langModelData)-1]); err == nil {
		t.Error("a truncated model file parsed")
	}
}

// TestBOMlessWide: UTF-16 and UTF-32 without a BOM, of right-to-left
// scripts, Thai and supplementary-plane text, are text (they were binary:
// their characters weighed under the acceptance score), and binary data
// with NULs is not.
func TestBOMlessWide(t *testing.T) {
	texts := map[string]string{
		"he":     "שלום עולם, זהו טקסט קצר בעברית.\nשורה שנייה של הטקסט.\n",
		"ar":     "مرحبا بالعالم. هذا نص قصير باللغة العربية للاختبار.\n",
		"yi":     "װאָס מאַכסטו? איך האָב ליב צו לייענען ייִדישע ביכער.\n",
		"th":     "สวัสดีชาวโลก นี่คือข้อความภาษาไทยสำหรับการทดสอบ\n",
		"plane1": "𐌰𐌱𐌲𐌳 𐐀𐐁𐐂𐐃 𝐀𝐁𝐂𝐃 😀😁😂 𓀀𓀁𓀂\n",
	}
	encs := map[string]encoding.Encoding{
		"utf-16le": unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM),
		"utf-16be": unicode.UTF16(unicode.BigEndian, unicode.IgnoreBOM),
		"utf-32le": utf32.UTF32(utf32.LittleEndian, utf32.IgnoreBOM),
		"utf-32be": utf32.UTF32(utf32.BigEndian, utf32.IgnoreBOM),
	}
	for lang, text := range texts {
		for name, enc := range encs {
			t.Run(lang+"/"+name, func(t *testing.T) {
				data := []byte(encode(t, enc, text))
				if cs, ok := WideText(data, true); !ok || cs != name {
					t.Errorf("WideText = %q %v", cs, ok)
				}
				res, got, err := run(t, string(data))
				if err != nil || got != text || res.Encoding != name {
					t.Errorf("err %v, encoding %s, output %q", err, res.Encoding, clip(got))
				}
			})
		}
	}
	// Binary with NULs is not wide text.
	rng := uint32(1)
	noise := make([]byte, 4096)
	for i := range noise {
		rng = rng*1664525 + 1013904223
		noise[i] = byte(rng >> 24)
		if i%7 == 0 {
			noise[i] = 0
		}
	}
	for name, data := range map[string][]byte{
		"six bytes": {0x01, 0x02, 0x03, 0x00, 0xff, 0xfe},
		"noise":     noise,
		"elf":       append([]byte("\x7fELF\x02\x01\x01\x00"), noise[:256]...),
	} {
		if cs, ok := WideText(data, true); ok {
			t.Errorf("%s: WideText says %s", name, cs)
		}
	}
}

// FuzzParseLangModels: a damaged model file is an error, never a panic.
func FuzzParseLangModels(f *testing.F) {
	f.Add(langModelData)
	f.Add(langModelData[:200])
	f.Add([]byte("RPLM\x01\x01\x02xx\x05Latin\x01a" + strings.Repeat("\x04", 9)))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := parseLangModels(data)
		if err != nil {
			return
		}
		for _, m := range s.models {
			if len(m.cost) != m.n*m.n || len(m.alphabet) != m.n-2 || len(m.freq) != m.n-2 {
				t.Fatalf("%s: inconsistent model", m.code)
			}
		}
	})
}

// TestPriorTiers pins the prior of a few charsets, which depends on their
// place in singleByteCharsets.
func TestPriorTiers(t *testing.T) {
	want := map[string]int{
		"windows-1252": 0, "iso-8859-1": 0, "windows-1251": 2, "iso-8859-2": 2,
		"windows-1254": 5, "ibm866": 5, "iso-8859-13": 5,
		"windows-1258": 14, "iso-8859-16": 14, "iso-8859-4": 14, "ibm00858": 14,
	}
	for i, c := range singleByteCharsets {
		if w, ok := want[c.name]; ok && priorBits(i) != w {
			t.Errorf("%s: prior %d bits, want %d", c.name, priorBits(i), w)
		}
	}
}

// FuzzMisreadUTF8: the string and byte forms of the check agree, and UTF-8
// with at least mojibakeMinCovered bytes above ASCII, read as a charset of
// mojibakeCharsets that has a character for each, is always recognised.
func FuzzMisreadUTF8(f *testing.F) {
	f.Add("Привет, мир! Это обычный русский текст.", uint8(2))
	f.Add("See `Шерлок`", uint8(17))
	f.Add("naïve café", uint8(0))
	f.Fuzz(func(t *testing.T, text string, k uint8) {
		if !utf8.ValidString(text) {
			return
		}
		if a, b := isMisreadUTF8(text), isMisreadUTF8Bytes([]byte(text)); a != b {
			t.Fatalf("%q: string form %v, byte form %v", text, a, b)
		}
		high := 0
		for i := range len(text) {
			if text[i] >= utf8.RuneSelf {
				high++
			}
		}
		cm := mojibakeCharsets[int(k)%len(mojibakeCharsets)]
		garbled, err := cm.NewDecoder().String(text)
		if high < mojibakeMinCovered || err != nil || strings.ContainsRune(garbled, utf8.RuneError) {
			return
		}
		if !isMisreadUTF8(garbled) || !isMisreadUTF8Bytes([]byte(garbled)) {
			t.Fatalf("%q read as %s, %q, not recognised", text, cm, garbled)
		}
	})
}
