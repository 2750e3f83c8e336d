package textenc

import (
	"errors"
	"strings"
	"testing"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/traditionalchinese"
)

// splitAt inserts ins inside the n-th double-byte character of enc's
// encoding of text (after its lead byte): the bytes of a BBS post wrapped
// mid-character, or of a colour code that splits a drawing's block.
func splitAt(t *testing.T, enc encoding.Encoding, text string, n int, ins string) string {
	t.Helper()
	b := encode(t, enc, text)
	seen := 0
	for i := 0; i < len(b); i++ {
		if b[i] < 0x80 {
			continue
		}
		if seen == n {
			return b[:i+1] + ins + b[i+1:]
		}
		seen++
		i++ // the trail byte
	}
	t.Fatalf("no character %d in %q", n, text)
	return ""
}

// truthOf is what the labels of real repositories hold for such a file:
// the charset's decoding, U+FFFD where no decoder reads, CRLF as LF.
func truthOf(t *testing.T, enc encoding.Encoding, in string) string {
	t.Helper()
	out, err := enc.NewDecoder().String(in)
	if err != nil {
		t.Fatal(err)
	}
	return strings.ReplaceAll(out, "\r\n", "\n")
}

// TestBrokenPairs holds double-byte files with a few broken pairs (a
// post wrapped mid-character, a drawing whose colour codes split a
// block), each refused before (undecodable, or a single-byte reading's
// "¢®¢i¢©" for a Big5 drawing), and what may never be read so.
func TestBrokenPairs(t *testing.T) {
	post := strings.Repeat("江湖上传说华山派的剑法天下第一，\n今日一见果然名不虚传。\n", 3)
	row := "\x1b[1;33m◢████◣\x1b[m  \x1b[36m◢██◣\x1b[m\n"
	drawing := "\x1b[1m招財狗\x1b[m\n" + strings.Repeat(row, 4) + "        ▃▄▅▆▇█▇▆▅▄▃\n"
	gbkPost := splitAt(t, simplifiedchinese.GBK, post, 20, "\n")
	big5Drawing := splitAt(t, traditionalchinese.Big5, drawing, 5, "\x1b[46m")
	// The same drawing with every third block split: too many.
	busy := encode(t, traditionalchinese.Big5, drawing)
	for n := 60; n >= 0; n -= 6 {
		busy = splitAtBytes(busy, n, "\x1b[46m")
	}
	cases := []struct {
		name string
		enc  encoding.Encoding
		in   string
		err  error // refused so; nil: staged as the truth, with U+FFFD
	}{
		{"gbk post wrapped mid-character", simplifiedchinese.GB18030, gbkPost, nil},
		{"gbk post, cut at the end", simplifiedchinese.GB18030, strings.TrimSuffix(encode(t, simplifiedchinese.GBK, post), "\n")[:len(encode(t, simplifiedchinese.GBK, post))-2], nil},
		{"gbk post, CRLF wrap", simplifiedchinese.GB18030, splitAt(t, simplifiedchinese.GBK, post, 30, "\r\n"), nil},
		{"big5 drawing split by a colour code", traditionalchinese.Big5, big5Drawing, nil},
		{"big5 post wrapped", traditionalchinese.Big5, splitAt(t, traditionalchinese.Big5, "江湖上傳說華山派的劍法天下第一，\n今日一見果然名不虛傳。\n"+strings.Repeat("他們說的都是真的。\n", 2), 12, "\n"), nil},
		// Refused: a lead byte before a space is no cut; a broken pair
		// per four characters is not a few.
		{"lead before a space", simplifiedchinese.GB18030, splitAt(t, simplifiedchinese.GBK, post, 20, " "), ErrUndecodable},
		{"too many cuts", traditionalchinese.Big5, busy, ErrUndecodable},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, got, err := run(t, c.in)
			if c.err != nil {
				if !errors.Is(err, c.err) {
					t.Fatalf("got %v (%s, %q), want %v", err, res.Encoding, clip(got), c.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("refused: %v", err)
			}
			if want := truthOf(t, c.enc, c.in); got != want {
				t.Fatalf("staged as %s:\n got  %q\n want %q", res.Encoding, clip(got), clip(want))
			}
			if n := strings.Count(got, "\ufffd"); res.Replaced == 0 || res.Replaced != n {
				t.Errorf("Replaced %d, U+FFFD in the text %d", res.Replaced, n)
			}
		})
	}
}

// splitAtBytes inserts ins after byte n of b when that byte is a lead
// byte of a pair (b[n] >= 0x80 at a character boundary); else it returns b.
func splitAtBytes(b string, n int, ins string) string {
	for i := 0; i < len(b); i++ {
		if b[i] < 0x80 {
			continue
		}
		if i >= n {
			return b[:i+1] + ins + b[i+1:]
		}
		i++
	}
	return b
}

// TestBrokenPairsNeverElse holds bytes that have the shape of a cut pair
// in GBK or Big5 but are other text: staged as written, never with
// U+FFFD.
func TestBrokenPairsNeverElse(t *testing.T) {
	cases := []struct {
		name, in, want string
	}{
		// 中 is E4 B8 AD: B8 AD pair up in GBK, and E4 before... a line
		// end in "文\n" (E6 96 87 0A) makes 87 a lead cut by LF.
		{"utf-8 chinese", "// 中文\n// 说明文\n", "// 中文\n// 说明文\n"},
		{"latin-1 word end at line end", encode(t, charmap.Windows1252, "Il a été très occupé\nLe café était fermé\nIl est allé à la plage\n"), "Il a été très occupé\nLe café était fermé\nIl est allé à la plage\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, got, err := run(t, c.in)
			if err == nil && got != c.want || res.Replaced != 0 {
				t.Errorf("staged as %s with %d replaced: %q", res.Encoding, res.Replaced, clip(got))
			}
		})
	}
}

// TestBrokenPairsStream checks the whole file, not only the sample the
// charset is decided on: a cut past the first 64 KiB is counted, and a
// lone byte of another shape there refuses the file.
func TestBrokenPairsStream(t *testing.T) {
	post := strings.Repeat("江湖上传说华山派的剑法天下第一，今日一见果然名不虚传。\n", 2000) // ~110 KB in GBK
	head := splitAt(t, simplifiedchinese.GBK, post, 10, "\n")
	tail := encode(t, simplifiedchinese.GBK, "他们说的都是真的。")
	cut := tail[:1] + "\n" + tail[1:]
	want := truthOf(t, simplifiedchinese.GB18030, head+cut)
	if res, got, err := run(t, head+cut); err != nil || got != want || res.Replaced != strings.Count(want, "\ufffd") {
		t.Errorf("a cut past the sample: %v, %d replaced, want the decoding with %d", err, res.Replaced, strings.Count(want, "\ufffd"))
	}
	if _, _, err := run(t, head+tail[:1]+" "+tail[1:]); !errors.Is(err, ErrUndecodable) {
		t.Errorf("a lead before a space past the sample: %v, want undecodable", err)
	}
}

// TestPairScanner is the scanner on its own: what it counts as a cut, a
// cut-off trail and a lone byte of another shape.
func TestPairScanner(t *testing.T) {
	cases := []struct {
		name, charset, in string
		chars, cuts, bad  int
	}{
		{"pairs", "big5", "\xa4\xa4\xa4\xe5", 2, 0, 0},
		{"cut by ESC, trail after the sequence", "big5", "\xa2\x1b[46m\xa9 x", 0, 2, 0},
		{"cut by ESC, trail pairs with the next", "big5", "\xa2\x1b[46m\xa9\xa4x", 1, 1, 0},
		{"cut by LF", "gbk", "\xd6\n\xd0\xce", 1, 1, 0},
		{"lead before a space", "gbk", "\xd6 x", 0, 0, 1},
		{"half a block after a colour code", "big5", "\xa2\xaa\x1b[47m\xaa x", 1, 1, 0},
		{"lone byte after text after a colour code", "big5", "\x1b[47mx\xaa x", 0, 0, 1},
		{"lone byte after text", "big5", "x\xff", 0, 0, 1},
		{"gb18030 four bytes", "gbk", "\x81\x30\x81\x30", 1, 0, 0},
		{"lead at the end", "gbk", "ab\xd6", 0, 1, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := newPairScanner(c.charset)
			p.Write([]byte(c.in))
			p.end()
			if p.chars != c.chars || p.cuts != c.cuts || p.bad != c.bad {
				t.Errorf("chars %d cuts %d bad %d, want %d %d %d", p.chars, p.cuts, p.bad, c.chars, c.cuts, c.bad)
			}
		})
	}
}

// TestDrawingWithCaption holds a Big5 ANSI drawing with a caption of a
// few Han characters, which a single-byte charset read as symbols
// ("¢®¢i¢©" in Mac Roman) before; and a GBK script whose "【】" Big5
// reads as shapes ("▽▼"), which must stay GBK.
func TestDrawingWithCaption(t *testing.T) {
	row := "\x1b[1;33m◢████◣\x1b[m  \x1b[36m◢██◣\x1b[m\n"
	drawing := "\x1b[1m招財狗\x1b[m\n" + strings.Repeat(row, 4) + "        ▃▄▅▆▇█▇▆▅▄▃\n"
	script := "walk.run(\"set brief;fly es;|!k1:江百胜:nu|\")\nprint(name .. \" id【\" .. id .. \"】  room【\" .. room .. \"】\")\n"
	cases := []struct {
		name string
		enc  encoding.Encoding
		text string
	}{
		{"big5 drawing with a caption", traditionalchinese.Big5, drawing},
		{"gbk brackets", simplifiedchinese.GBK, script},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, got, err := run(t, encode(t, c.enc, c.text))
			if err != nil {
				t.Fatalf("refused: %v", err)
			}
			if got != c.text {
				t.Fatalf("staged as %s: %q", res.Encoding, clip(got))
			}
		})
	}
}

// FuzzBrokenPairs checks that a file staged with broken pairs is exactly
// the charset's decoding, with Replaced its U+FFFD, whatever the bytes.
func FuzzBrokenPairs(f *testing.F) {
	f.Add([]byte("\xa4\xa4\xa2\x1b[46m\xa9 \xa4\xe5\xa4\xa4\xa4\xe5\xa4\xa4\xa4\xe5\xa4\xa4\xa4\xe5\xa4\xa4\xa4\xe5\n"))
	f.Add([]byte("\xd6\xd0\xce\xc4\xd6\n\xd0\xce\xc4\xd6\xd0\xce\xc4\xd6\xd0\xce\xc4\xd6\xd0\xce\xc4\xd6\xd0\xce\xc4"))
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) > 4<<10 {
			return // bounded: the decision reads all of a small file
		}
		res, got, err := run(t, string(in))
		if err != nil || res.Replaced == 0 {
			return
		}
		var enc encoding.Encoding = traditionalchinese.Big5
		if res.Encoding == "gbk" || res.Encoding == "gb18030" {
			enc = simplifiedchinese.GB18030
		}
		want := strings.ReplaceAll(truthOf(t, enc, string(in)), "\r", "\n")
		if got != want || strings.Count(got, "\ufffd") != res.Replaced {
			t.Fatalf("staged %q (%d replaced), the decoding is %q", got, res.Replaced, want)
		}
	})
}
