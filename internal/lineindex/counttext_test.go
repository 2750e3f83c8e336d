package lineindex

import (
	"bytes"
	"strings"
	"testing"

	"github.com/repoprep/repoprep/internal/tokens"
)

// TestCountText: a whole text's line data and count in one scan are what
// Write and tokens.Count give apart, for texts whose lines' ends the two
// scans split differently, a line over MaxCountedLineBytes, invalid
// UTF-8 (counted apart), and a LineCounter that already holds a part.
func TestCountText(t *testing.T) {
	long := strings.Repeat("x", MaxCountedLineBytes+1)
	for _, tc := range []struct {
		name, text, before string
	}{
		{name: "empty"},
		{name: "go", text: "package a\n\n// A is a.\nfunc A() {\n\treturn\n}\n"},
		{name: "slashes after punctuation", text: "}\n//\n// x\n;\n/"},
		{name: "blank runs and spaces", text: "\n\n  \n\t\n a \n"},
		{name: "no final newline", text: "a\nb"},
		{name: "long line", text: "a\n" + long + "\nb\n"},
		{name: "invalid utf-8", text: "a\xff\nb\xc3\n"},
		{name: "after a part", before: "first part ", text: "then\nthe rest\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var whole LineCounter
			whole.Write([]byte(tc.before + tc.text))
			want, wantLines, wantSize := whole.Finish()
			var lc LineCounter
			lc.Write([]byte(tc.before))
			n := lc.CountText([]byte(tc.text))
			got, lines, size := lc.Finish()
			if n != tokens.Count(tc.text) {
				t.Errorf("CountText = %d, tokens.Count = %d", n, tokens.Count(tc.text))
			}
			if !bytes.Equal(got, want) || lines != wantLines || size != wantSize {
				t.Errorf("data %x, %d lines, %d bytes; Write gives %x, %d, %d", got, lines, size, want, wantLines, wantSize)
			}
		})
	}
}
