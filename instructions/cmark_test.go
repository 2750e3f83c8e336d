package instructions

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestImportsAgreeWithCmark compares where the scanner finds @imports with
// where cmark (the CommonMark reference implementation) puts text outside
// code: random documents made of words, @paths, backtick runs, fences,
// indented lines, lists and blank lines. Every @path cmark leaves in a
// paragraph or heading must be found, and none it puts in code.
func TestImportsAgreeWithCmark(t *testing.T) {
	cmark, err := exec.LookPath("cmark")
	if err != nil {
		t.Skip("cmark not installed (apt-get install cmark): the reference comparison needs it")
	}
	rng := rand.New(rand.NewPCG(18, 5))
	for i := range 1000 {
		doc := randomDoc(rng)
		cmd := exec.Command(cmark, "-t", "xml")
		cmd.Stdin = strings.NewReader(doc)
		out, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		want := cmarkImports(t, out)
		got, _ := importsOf(t, doc)
		for j := range got {
			got[j] = got[j][strings.IndexByte(got[j], ':')+1:] // drop the line number
		}
		if !slices.Equal(got, want) {
			t.Fatalf("document %d:\n%s\nscanner found %q, cmark says %q\n%s", i, doc, got, want, out)
		}
	}
}

// randomDoc assembles a document from pieces that exercise code spans and
// blocks.
func randomDoc(rng *rand.Rand) string {
	// No lone "``": after a double-backtick run finds no closer, cmark 0.30
	// no longer pairs later single backticks in the paragraph
	// ("`` `\n`x`\n@a.md `" leaves "x`\n@a.md `" as text), which the
	// CommonMark spec's left-to-right rule would make a code span.
	words := []string{"see", "run", "@a.md", "@docs/b.md", "@c.md", "x@d.md", "`", "`@e.md`", "``@f.md``", "tests", "-", "1."}
	var b strings.Builder
	for range 1 + rng.IntN(12) {
		switch rng.IntN(9) {
		case 0:
			b.WriteString("\n")
		case 1:
			fence := []string{"```", "~~~", "````"}[rng.IntN(3)]
			fmt.Fprintf(&b, "%s\n@g.md\n", fence)
			if rng.IntN(3) > 0 {
				b.WriteString(fence + "\n")
			}
		case 2:
			b.WriteString(strings.Repeat(" ", []int{2, 4, 6}[rng.IntN(3)]))
			fallthrough
		default:
			if rng.IntN(4) == 0 {
				b.WriteString([]string{"- ", "1. ", "# "}[rng.IntN(3)])
			}
			for k := range 1 + rng.IntN(6) {
				if k > 0 {
					b.WriteString(" ")
				}
				b.WriteString(words[rng.IntN(len(words))])
			}
			b.WriteString("\n")
		}
	}
	return b.String()
}

// cmarkImports reads cmark's XML and applies the import rule to the text of
// every paragraph and heading, code spans standing in as a non-space.
func cmarkImports(t *testing.T, out []byte) []string {
	dec := xml.NewDecoder(bytes.NewReader(out))
	dec.Strict = false
	var found []string
	var inline strings.Builder
	var stack []string
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		switch tk := tok.(type) {
		case xml.StartElement:
			stack = append(stack, tk.Name.Local)
			switch tk.Name.Local {
			case "paragraph", "heading":
				inline.Reset()
			case "softbreak", "linebreak":
				inline.WriteString("\n")
			case "code":
				inline.WriteString("\x00")
			}
		case xml.EndElement:
			stack = stack[:len(stack)-1]
			if tk.Name.Local == "paragraph" || tk.Name.Local == "heading" {
				text := []byte(inline.String())
				for i := 0; i < len(text); i++ {
					if text[i] == '@' && (i == 0 || isSpace(text[i-1])) {
						if spec, _ := importSpec(text, i+1); spec != "" {
							found = append(found, strings.TrimRight(spec, "\x00"))
						}
					}
				}
			}
		case xml.CharData:
			if len(stack) > 0 && stack[len(stack)-1] == "text" {
				inline.Write(tk)
			}
		}
	}
	return found
}
