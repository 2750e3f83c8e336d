package tokens

import (
	"strings"
	"testing"

	"github.com/repoprep/repoprep/internal/testkit"
)

// TestCountLinesShapes: the shapes where CountLines takes a line's count
// from the text's scan in each of its ways: the copy's first piece alone
// (" " before indentation), joined to the first word, the whole copy in
// one piece ("}"), the text's scan resuming inside the line after a
// piece from the line before (";\n//" runs on into the next line's
// slashes), the text's newline piece shared or running on into the next
// line ("{\n\n"), empty lines inside a newline run, DEL skipped before
// the newline, and lines whose copy's first piece meets nothing (counted
// whole).
func TestCountLinesShapes(t *testing.T) {
	for _, tc := range []struct{ name, text string }{
		{"indent", "func f() {\n\treturn\n\t\tx := 1\n}\n"},
		{"word first", "package a\nimport b\n"},
		{"one piece", "}\n)\n]\n}\n"},
		{"runs on into slashes", "x;\n// a comment\n;\n//\n);\n///x y\n"},
		{"newline runs", "{\n\n\n\tx\n}\n\n\n"},
		{"spaces only", "a\n   \n\t\t\n \t \nb\n"},
		{"del", "a\x7f\n\x7f\n\x7fb\x7f\n"},
		{"cr", "a\r\n\r\nb\r\n"},
		{"trailing spaces", "x  \ny\t\n z  \n"},
		{"unicode starts", "注释\n\u00a0x\n\u3000y\n é\n"},
		{"digits", "12345\n 1\n1 2\n"},
		{"contractions", "'ll\n'S x\nit's\n"},
		{"long words", strings.Repeat("a", 200) + "\n" + strings.Repeat("Ab", 100) + "\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkCountLines(t, tc.text, 64<<10)
			checkCountLines(t, tc.text, 2)
		})
	}
}

// TestCountLinesAllocs: counting a text's lines allocates nothing once
// warm (the copy buffer is the pooled encoder's; no slice per text).
func TestCountLinesAllocs(t *testing.T) {
	if testkit.Race {
		t.Skip("sync.Pool drops puts under -race")
	}
	text := []byte(strings.Repeat("func f() {\n\treturn x // y\n}\n\n", 200))
	Warm()
	CountLines(text, 64<<10, func(int, int) {})
	if n := testing.AllocsPerRun(20, func() { CountLines(text, 64<<10, func(int, int) {}) }); n > 0 {
		t.Errorf("CountLines allocates %.1f times per text, want 0", n)
	}
}
