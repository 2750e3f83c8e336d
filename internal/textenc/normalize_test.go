package textenc

import (
	"bytes"
	"errors"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"
	"unicode/utf8"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/encoding/unicode/utf32"

	"github.com/repoprep/repoprep/internal/testkit"
	"github.com/repoprep/repoprep/internal/tokens"
)

func encode(t testing.TB, enc encoding.Encoding, s string) string {
	t.Helper()
	b, err := enc.NewEncoder().Bytes([]byte(s))
	if err != nil {
		t.Fatalf("encode %q: %v", s, err)
	}
	return string(b)
}

func run(t testing.TB, in string) (Result, string, error) {
	t.Helper()
	var out bytes.Buffer
	res, err := Normalize(strings.NewReader(in), &out)
	return res, out.String(), err
}

const zhLine = "配置文件读取失败，请检查目录权限。默认用户名是管理员。\n"

const (
	fractions  = "// with len(tmp) ≥ textMax, a “not present” entry,\n// an average length 2×½ + 3×¼ + 4×⅛ + ... = 3.\n// ≥ 1 — naïve café résumé über straße ½ ¼\n"
	aboutMoji  = "Known mojibake: 锟斤拷, 烫烫烫 / 屯屯屯, or UTF-8 read as Latin-1 (\"Ã©\", \"â€™\").\n读取编码错误的文件会出现乱码，例如把 UTF-8 当作 GBK 解读。\n中文、日本語、한국어 — “引号” ‘单引号’ … ½ ¼ × ≥\n正常的文字应当保持原样，不应被拒绝。\n"
	quotedMoji = "{`attachment; filename=\"foo-Ã¤.html\"`, m(\"filename\", \"foo-Ã¤.html\")},\n{\"filename*=UTF-8''%E2%82%AC\", \"€ rates\"},\n// ñ é ü ö ä ß ç à è ì ò ù â ê î ô û ë ï ÿ æ œ ø å\n// Grüße aus Köln, señor, garçon, naïve, déjà vu\n"
)

func TestNormalize(t *testing.T) {
	lostZH := "这是一段正常的中文说明文字，其中有几个字在转换时丢失了：" + strings.Repeat("锟斤拷", 2) + "，后面的内容仍然正常。\n"
	gbk := func(s string) string { return encode(t, simplifiedchinese.GBK, s) }
	bigASCII := strings.Repeat("package main // plain ASCII line\n", 3000) // ~100 KiB, beyond the sample
	bigUTF8 := strings.Repeat("naïve café, 中文注释\n", 5000)
	tests := []struct {
		name string
		in   string
		want string // normalized output when err is nil
		res  Result // Encoding, BOM, CRLF, Lines are compared; Bytes and Tokens are checked separately
		err  error
	}{
		{"empty", "", "", Result{Encoding: "utf-8"}, nil},
		{"ascii", "hello\nworld", "hello\nworld", Result{Encoding: "utf-8", Lines: 2}, nil},
		{"final newline", "a\n", "a\n", Result{Encoding: "utf-8", Lines: 1}, nil},
		{"only newline", "\n", "\n", Result{Encoding: "utf-8", Lines: 1}, nil},
		{"crlf", "a\r\nb\r\n", "a\nb\n", Result{Encoding: "utf-8", CRLF: true, Lines: 2}, nil},
		{"lone cr", "a\rb\r", "a\nb\n", Result{Encoding: "utf-8", CRLF: true, Lines: 2}, nil},
		{"cr crlf", "a\r\r\nb", "a\n\nb", Result{Encoding: "utf-8", CRLF: true, Lines: 3}, nil},
		{"lf cr", "a\n\rb", "a\n\nb", Result{Encoding: "utf-8", CRLF: true, Lines: 3}, nil},
		{"utf-8", "héllo 世界\n", "héllo 世界\n", Result{Encoding: "utf-8", Lines: 1}, nil},
		{"utf-8 bom", "\xef\xbb\xbfhé\r\n", "hé\n", Result{Encoding: "utf-8", BOM: true, CRLF: true, Lines: 1}, nil},
		{"utf-16le bom", "\xff\xfe" + encode(t, unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM), "hé 世界\r\n"),
			"hé 世界\n", Result{Encoding: "utf-16le", BOM: true, CRLF: true, Lines: 1}, nil},
		{"utf-16be bom", "\xfe\xff" + encode(t, unicode.UTF16(unicode.BigEndian, unicode.IgnoreBOM), "hé 世界"),
			"hé 世界", Result{Encoding: "utf-16be", BOM: true, Lines: 1}, nil},
		{"utf-32le bom", encode(t, utf32.UTF32(utf32.LittleEndian, utf32.UseBOM), "hé 世界"),
			"hé 世界", Result{Encoding: "utf-32le", BOM: true, Lines: 1}, nil},
		{"utf-32be bom", encode(t, utf32.UTF32(utf32.BigEndian, utf32.UseBOM), "hé 世界"),
			"hé 世界", Result{Encoding: "utf-32be", BOM: true, Lines: 1}, nil},
		{"utf-16le no bom", encode(t, unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM), "hello world\n"),
			"hello world\n", Result{Encoding: "utf-16le", Lines: 1}, nil},
		{"utf-32be no bom", encode(t, utf32.UTF32(utf32.BigEndian, utf32.IgnoreBOM), "hello world\n"),
			"hello world\n", Result{Encoding: "utf-32be", Lines: 1}, nil},
		{"gbk", gbk(zhLine), zhLine, Result{Encoding: "gbk", Lines: 1}, nil},
		{"gbk crlf", gbk("第一行\r\n第二行\r\n"), "第一行\n第二行\n", Result{Encoding: "gbk", CRLF: true, Lines: 2}, nil},
		{"gb18030 four-byte", encode(t, simplifiedchinese.GB18030, zhLine+"表情 😀\n"), zhLine + "表情 😀\n",
			Result{Encoding: "gb18030", Lines: 2}, nil},
		{"iso-2022-jp", encode(t, japanese.ISO2022JP, "設定ファイルが見つかりません。\n"), "設定ファイルが見つかりません。\n",
			Result{Encoding: "iso-2022-jp", Lines: 1}, nil},
		{"gbk after 100 KiB of ascii", bigASCII + gbk(zhLine), bigASCII + zhLine,
			Result{Encoding: "gbk", Lines: 3001}, nil},

		// U+FFFD: the author's is kept, a decoder's is refused.
		{"fffd kept in utf-8", "a\uFFFDb", "a\uFFFDb", Result{Encoding: "utf-8", Lines: 1}, nil},
		{"fffd introduced in sample", gbk(zhLine) + "\x81\x20" + gbk(zhLine), "", Result{}, ErrUndecodable},
		{"fffd introduced late", gbk(strings.Repeat(zhLine, 3000)) + "\xff\xff", "", Result{}, ErrUndecodable},
		{"lone surrogate in utf-16", "\xff\xfe\x41\x00\x00\xd8\x41\x00", "", Result{}, ErrUndecodable},
		{"invalid utf-8 late", bigUTF8 + "\xc3(", "", Result{}, ErrInvalidUTF8},
		{"truncated utf-8 at eof", bigUTF8 + "\xe4\xb8", "", Result{}, ErrInvalidUTF8},

		// Mojibake, in UTF-8 and in a legacy charset.
		{"utf-8 read as latin-1", "Caf\u00c3\u00a9 cr\u00c3\u00a8me", "Caf\u00c3\u00a9 cr\u00c3\u00a8me", Result{Encoding: "utf-8", Lines: 1, Mojibake: true}, nil},
		{"smart quote read as cp1252", "It\u00e2\u20ac\u2122s here", "It\u00e2\u20ac\u2122s here", Result{Encoding: "utf-8", Lines: 1, Mojibake: true}, nil},
		{"cyrillic read as cp1252", "\u00d0\u0178\u00d1\u20ac\u00d0\u00b8\u00d0\u00b2\u00d0\u00b5\u00d1\u201a", "\u00d0\u0178\u00d1\u20ac\u00d0\u00b8\u00d0\u00b2\u00d0\u00b5\u00d1\u201a", Result{Encoding: "utf-8", Lines: 1, Mojibake: true}, nil},
		{"kun jin kao in utf-8", "文件名：" + strings.Repeat("锟斤拷", 2) + ".txt", "文件名：" + strings.Repeat("锟斤拷", 2) + ".txt", Result{Encoding: "utf-8", Lines: 1, Mojibake: true}, nil},
		{"tang tang tang", "变量值 " + strings.Repeat("烫", 4) + " 未初始化", "变量值 " + strings.Repeat("烫", 4) + " 未初始化", Result{Encoding: "utf-8", Lines: 1, Mojibake: true}, nil},
		{"utf-8 read as latin-1, with a BOM", "\ufeffCaf\u00c3\u00a9 cr\u00c3\u00a8me br\u00c3\u00bbl\u00c3\u00a9e", "Caf\u00c3\u00a9 cr\u00c3\u00a8me br\u00c3\u00bbl\u00c3\u00a9e", Result{Encoding: "utf-8", BOM: true, Lines: 1, Mojibake: true}, nil},
		{"tun tun tun", strings.Repeat("屯", 4), strings.Repeat("屯", 4), Result{Encoding: "utf-8", Lines: 1, Mojibake: true}, nil},
		{"kun jin kao in gbk", gbk(zhLine + "锟斤拷\n"), "", Result{}, ErrMojibake},
		{"one weak pair is fine", "\u00d6\u2019s", "\u00d6\u2019s", Result{Encoding: "utf-8", Lines: 1}, nil},
		{"portuguese is not mojibake", "São Paulo, ÃO", "São Paulo, ÃO", Result{Encoding: "utf-8", Lines: 1}, nil},
		// Real files from the Go tree (index/suffixarray/sais.go,
		// mime/mediatype_test.go): a few look-alikes among the author's own
		// non-ASCII text are not a garbled file.
		{"fractions in a comment", fractions, fractions, Result{Encoding: "utf-8", Lines: 3}, nil},
		{"mojibake quoted in a test", quotedMoji, quotedMoji, Result{Encoding: "utf-8", Lines: 4}, nil},
		{"a document about mojibake", aboutMoji, aboutMoji, Result{Encoding: "utf-8", Lines: 4}, nil},
		{"lost chinese in a long text", lostZH, lostZH, Result{Encoding: "utf-8", Lines: 1, Mojibake: true}, nil},
		{"one mention among chinese", "这是一段正常的中文说明文字，乱码的典型例子是“锟斤拷”，看到它就说明编码出了问题。\n", "这是一段正常的中文说明文字，乱码的典型例子是“锟斤拷”，看到它就说明编码出了问题。\n", Result{Encoding: "utf-8", Lines: 1}, nil},

		// Not text.
		{"nul", "abc\x00def", "", Result{}, ErrBinary},
		{"elf", "\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00", "", Result{}, ErrBinary},
		{"controls", "\x01\x02\x03\x04abc", "", Result{}, ErrBinary},
		{"nul after 100 KiB", bigASCII + "\x00", "", Result{}, ErrBinary},
		{"one tab vt ff esc is text", "a\tb\vc\fd\x1b[0m\n", "a\tb\vc\fd\x1b[0m\n", Result{Encoding: "utf-8", Lines: 1}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, got, err := run(t, tt.in)
			if !errors.Is(err, tt.err) {
				t.Fatalf("err = %v, want %v (encoding %q)", err, tt.err, res.Encoding)
			}
			if err != nil {
				return
			}
			if got != tt.want {
				t.Errorf("output = %q, want %q", clip(got), clip(tt.want))
			}
			if res.Encoding != tt.res.Encoding || res.BOM != tt.res.BOM || res.CRLF != tt.res.CRLF || res.Lines != tt.res.Lines || res.Mojibake != tt.res.Mojibake {
				t.Errorf("result = %+v, want %+v", res, tt.res)
			}
			if res.Bytes != int64(len(got)) {
				t.Errorf("Bytes = %d, wrote %d", res.Bytes, len(got))
			}
			if want := tokens.Count(got); res.Tokens < want || res.Tokens > want+want/100+1 {
				t.Errorf("Tokens = %d, whole-text count %d", res.Tokens, want)
			}
		})
	}
}

func clip(s string) string {
	if len(s) > 80 {
		return s[:40] + "..." + s[len(s)-40:]
	}
	return s
}

// TestNormalizeChunkBoundaries feeds inputs one byte per Read and in large
// inputs whose CRLF pairs and multi-byte characters straddle every internal
// buffer boundary; the output must not depend on how the input arrives.
func TestNormalizeChunkBoundaries(t *testing.T) {
	// 20000 lines of UTF-8 and of GBK (440 KB each) in make test's whole
	// pass; under -short (the race pass, where the one-byte reads are
	// slowest) 6000 (132 KB): still past twice the 64 KiB sample (checked
	// below), across several 32 KiB chunks, flushes and 64 KiB token batches.
	lines := 20000
	if testing.Short() {
		lines = 6000
	}
	line := "naïve café 中文 \r\n"
	inputs := map[string]string{
		"utf-8 crlf": strings.Repeat(line, lines),
		"gbk crlf":   encode(t, simplifiedchinese.GBK, strings.Repeat("中文注释，默认配置。\r\n", lines)),
		"utf-16le":   "\xff\xfe" + encode(t, unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM), strings.Repeat(line, 5000)),
	}
	for name, in := range inputs {
		t.Run(name, func(t *testing.T) {
			if len(in) < 2*sampleBytes {
				t.Fatalf("%d bytes: no longer beyond the sample and several chunks", len(in))
			}
			var whole, trickle bytes.Buffer
			r1, err1 := Normalize(strings.NewReader(in), &whole)
			r2, err2 := Normalize(iotest.OneByteReader(strings.NewReader(in)), &trickle)
			if err1 != nil || err2 != nil {
				t.Fatalf("errors: %v, %v", err1, err2)
			}
			if !bytes.Equal(whole.Bytes(), trickle.Bytes()) || r1 != r2 {
				t.Fatalf("output depends on read sizes: %+v vs %+v", r1, r2)
			}
			if bytes.IndexByte(whole.Bytes(), '\r') >= 0 || !r1.CRLF {
				t.Errorf("CR left in output, or CRLF not reported (%+v)", r1)
			}
			if n := bytes.Count(whole.Bytes(), []byte("\n")); n != r1.Lines {
				t.Errorf("Lines = %d, output has %d newlines", r1.Lines, n)
			}
		})
	}
}

// TestSinkCRAtChunkEnd checks the one CR case a chunked reader must get
// right: a CR that ends one chunk and the LF that starts the next.
func TestSinkCRAtChunkEnd(t *testing.T) {
	var out bytes.Buffer
	var res Result
	s := newSink(&out, &res)
	for _, chunk := range []string{"a\r", "\nb\r", "\r", "\n", "c"} {
		if err := s.write([]byte(chunk), false); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.close(); err != nil {
		t.Fatal(err)
	}
	if got, want := out.String(), "a\nb\n\nc"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if res.Lines != 4 || !res.CRLF {
		t.Errorf("result = %+v", res)
	}
}

// TestTokensInBatches checks that counting in batches gives exactly the
// count of the whole text at once, on texts several batches long whose
// lines start with comments and blank lines, where a cut at any newline
// would change the pieces ("x.\n//" is one piece).
func TestTokensInBatches(t *testing.T) {
	for _, text := range []string{
		strings.Repeat("func (s *Server) Serve(l net.Listener) error { return s.serve(l) } // 服务\n", 3000),
		strings.Repeat("x := f(y).\n// comment\n\n\n//\n", 20000),
	} {
		res, got, err := run(t, text)
		if err != nil || got != text {
			t.Fatalf("err = %v, output changed: %v", err, got != text)
		}
		if whole := tokens.Count(text); res.Tokens != whole {
			t.Errorf("Tokens = %d, whole-text count %d", res.Tokens, whole)
		}
	}
}

// TestDecisionDeterministic runs the decision on short CJK samples, where
// chardet's own answer changes from run to run, and requires one answer.
func TestDecisionDeterministic(t *testing.T) {
	// 20 reruns of each sample in make test's whole pass; under -short (the
	// race pass, where chardet's goroutines are slow) 5, over the same
	// samples.
	reruns := 20
	if testing.Short() {
		reruns = 5
	}
	files := buildCorpus(t)
	for _, f := range files {
		if len(f.data) >= 40 || strings.HasPrefix(f.enc, "utf-16") {
			continue
		}
		first := decide(f.data, true, true)
		var firstOut bytes.Buffer
		firstRes, firstErr := Normalize(bytes.NewReader(f.data), &firstOut)
		for range reruns {
			if d := decide(f.data, true, true); d.name != first.name || d.err != first.err {
				t.Fatalf("%s: decision changed from %q/%v to %q/%v", f.name, first.name, first.err, d.name, d.err)
			}
			var out bytes.Buffer
			res, err := Normalize(bytes.NewReader(f.data), &out)
			if res != firstRes || err != firstErr || !bytes.Equal(out.Bytes(), firstOut.Bytes()) {
				t.Fatalf("%s: Normalize gave a different result on a rerun", f.name)
			}
		}
	}
}

func FuzzNormalize(f *testing.F) {
	for _, s := range []string{
		"", "hello\r\nworld\r", "\xef\xbb\xbfabc", "\xff\xfeh\x00i\x00", "\xfe\xff\x00h\x00i",
		"a\uFFFDb", "Caf\u00c3\u00a9", "\xc4\xe3\xba\xc3\xa3\xac\xca\xc0\xbd\xe7", "\xa7\x41\xa6\x6e",
		"\x82\xb1\x82\xf1\x82\xc9\x82\xbf\x82\xcd", "\xbe\xc8\xb3\xe7", "\xcf\xd2\xc9\xd7\xc5\xd4",
		"\x1b$B$3$s\x1b(B", "abc\x00", "\xff\xfe\x00\xd8", "\xe4\xb8", "\r",
		"P\xf8\xedli\xb9 \xbelu\xbbou\xe8k\xfd k\xf9\xf2", "\xe0\xe9\xf0\xf4\xee\xec\xe3 - \xe0\xfa\xf8",
		"\xca\xd2\xc7\xd1\xca\xb4\xd5", "\x91\xe0\xa5\xe8\xec \xa6\xa5", "\xd0\x9f\xd1\x80\xe9\xd0\xb8",
		"\x00H\x00e\x00l\x00l\x00o\xd8\x3d\xde\x00",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		var out, again bytes.Buffer
		res, err := Normalize(bytes.NewReader(in), &out)
		res2, err2 := Normalize(iotest.HalfReader(bytes.NewReader(in)), &again)
		if res != res2 || err != err2 || !bytes.Equal(out.Bytes(), again.Bytes()) {
			t.Fatalf("not deterministic: %+v %v, then %+v %v", res, err, res2, err2)
		}
		if err != nil {
			if !errors.Is(err, ErrBinary) && !errors.Is(err, ErrUndecodable) && !errors.Is(err, ErrMojibake) && !errors.Is(err, ErrInvalidUTF8) {
				t.Fatalf("unexpected error kind: %v", err)
			}
			return
		}
		got := out.Bytes()
		if !utf8.Valid(got) {
			t.Fatalf("invalid UTF-8 out: %q", got)
		}
		if bytes.IndexByte(got, '\r') >= 0 || bytes.IndexByte(got, 0) >= 0 {
			t.Fatalf("CR or NUL in output: %q", got)
		}
		if bytes.ContainsRune(got, utf8.RuneError) && (res.Encoding != "utf-8" || !bytes.Contains(in, []byte("\xef\xbf\xbd"))) {
			t.Fatalf("U+FFFD introduced decoding %q as %s: %q", in, res.Encoding, got)
		}
		if res.Bytes != int64(len(got)) {
			t.Fatalf("Bytes = %d, wrote %d", res.Bytes, len(got))
		}
	})
}

// The sink's ASCII runs, the eight-byte ASCII tests and the mojibake
// ring's runs give what a byte-by-byte pass gives: every result, error and
// output byte, on the fuzz corpus, on ASCII with each kind of byte the runs
// must stop at, and on every file of GOROOT/src.
func TestASCIIRunsMatchByteByByte(t *testing.T) {
	inputs := [][]byte{
		[]byte("plain text\nline two\n"), []byte("crlf\r\nlone cr\rend"), []byte("\r\n\r\n\n\r"),
		[]byte("tab\tvt\vff\fesc\x1b[0m del\x7f bell\x07"), []byte("caf\xc3\xa9 na\xc3\xafve\r\nCaf\u00c3\u00a9 x"),
		[]byte("\x1b$B$3$s\x1b(B ascii"), append(bytes.Repeat([]byte("a"), flushBytes-1), "\r\nb\xc3\xa9"...),
		bytes.Repeat([]byte("0123456789abcdef\r\n"), 10000), []byte("x\x01\x02\x03\x04\x05\x06\x08\x0e y"),
	}
	// Every file of GOROOT/src (under 1 MiB) in make test's whole pass; under
	// -short (the race pass) the first 1/80 of them in walk order (Go 1.26's:
	// 143 files of archive/ to cmd/api, 0.9 MB, 72 of them refused), read
	// alone rather than picked out of all 110 MB.
	load := gorootFiles
	if testing.Short() {
		load = gorootFilesHead
	}
	if files, err := load(); err == nil {
		inputs = append(inputs, files...)
	}
	type outcome struct {
		res Result
		err error
		out string
	}
	normalizeBoth := func(in []byte) [2]outcome {
		var got [2]outcome
		for i, slow := range []bool{false, true} {
			scanByteByByte = slow
			var out bytes.Buffer
			res, err := normalizeCounting(iotest.HalfReader(bytes.NewReader(in)), &out, false)
			got[i] = outcome{res, err, out.String()}
		}
		scanByteByByte = false
		return got
	}
	for i, in := range inputs {
		if got := normalizeBoth(in); got[0] != got[1] {
			t.Fatalf("input %d (%.40q): runs give %+v, %v; byte by byte %+v, %v; same output: %t",
				i, in, got[0].res, got[0].err, got[1].res, got[1].err, got[0].out == got[1].out)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	const alphabet = "ab \t\n\r\x1b\x7f\x01\xc3\xa9\xe2\x80\x99"
	rounds := 500
	if testing.Short() {
		rounds = 100
	}
	for range rounds {
		b := make([]byte, rng.IntN(300))
		for j := range b {
			b[j] = alphabet[rng.IntN(len(alphabet))]
		}
		if got := normalizeBoth(b); got[0] != got[1] {
			t.Fatalf("%q: runs give %+v, byte by byte %+v", b, got[0], got[1])
		}
		if want := slowFirstNonASCII(b); firstNonASCII(b) != want {
			t.Fatalf("firstNonASCII(%q) = %d, want %d", b, firstNonASCII(b), want)
		}
		var run, each mojibakeState
		run.pending, each.pending = 1, 1
		run.asciiRun(b[:asciiPrefix(b)])
		for _, c := range b[:asciiPrefix(b)] {
			each.ascii(c)
		}
		if run != each {
			t.Fatalf("asciiRun(%q) = %+v, ascii on each byte %+v", b, run, each)
		}
	}
}

// gorootFilesHead is gorootFiles()[:len/80] without reading the other
// 79/80: the same walk and size limit, then only the head's files read.
func gorootFilesHead() ([][]byte, error) {
	goroot, err := testkit.GoRoot()
	if err != nil {
		return nil, err
	}
	var paths []string
	err = filepath.WalkDir(filepath.Join(goroot, "src"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		if info, err := d.Info(); err != nil || info.Size() > 1<<20 {
			return err
		}
		paths = append(paths, p)
		return nil
	})
	if err != nil {
		return nil, err
	}
	var files [][]byte
	for _, p := range paths[:len(paths)/80] {
		data, err := os.ReadFile(p)
		if err != nil {
			return files, err
		}
		files = append(files, data)
	}
	return files, nil
}

func slowFirstNonASCII(b []byte) int {
	for i, c := range b {
		if c >= 0x80 || c == 0x1b && isISO2022Escape(b[i:]) {
			return i
		}
	}
	return -1
}
