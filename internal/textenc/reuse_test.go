package textenc

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/unicode"
)

// A Normalizer used for one file after another (refusals among them)
// gives each file what Normalize gives it alone: nothing of one file's
// state leaks into the next.
func TestNormalizerReuse(t *testing.T) {
	inputs := []string{
		"hello\r\nworld\n",
		encode(t, simplifiedchinese.GBK, "这是一个用于测试的中文文档。\n"),
		"text\x00with a NUL\n",
		strings.Repeat("naïve café, 中文注释\n", 5000),
		"\xff\xfe" + encode(t, unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM), "hé 世界\r\n"),
		"Caf\u00c3\u00a9 cr\u00c3\u00a8me br\u00c3\u00bbl\u00c3\u00a9e\n",
		"ends in a CR\r",
		"",
		strings.Repeat("package main // plain ASCII line\n", 3000),
	}
	var n Normalizer
	for round := range 2 {
		for i, in := range inputs {
			var want, got bytes.Buffer
			wantRes, wantErr := Normalize(strings.NewReader(in), &want)
			gotRes, gotErr := n.Normalize(strings.NewReader(in), &got, Options{})
			if gotRes != wantRes || !errors.Is(gotErr, wantErr) && gotErr != wantErr || got.String() != want.String() {
				t.Errorf("round %d input %d: Normalizer = %+v %v %q…, Normalize = %+v %v %q…", round, i,
					gotRes, gotErr, head40(got.String()), wantRes, wantErr, head40(want.String()))
			}
			if gotRes, _ := n.Normalize(strings.NewReader(in), io.Discard, Options{NoTokens: true}); gotRes.Tokens != 0 {
				t.Errorf("input %d: %d tokens counted with countTokens false", i, gotRes.Tokens)
			}
		}
	}
}

func head40(s string) string { return s[:min(len(s), 40)] }
