package instructions

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func importsOf(t testing.TB, text string) ([]string, *parsed) {
	t.Helper()
	pt, err := scanText(strings.NewReader(text), true)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, im := range pt.imports {
		got = append(got, fmt.Sprintf("%d:%s", im.line, im.spec))
	}
	return got, pt
}

func TestScanImports(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       []string
	}{
		{"one", "@a.md\n", []string{"1:a.md"}},
		{"in prose", "See @docs/x.md and @y.md for more.\n", []string{"1:docs/x.md", "1:y.md"}},
		{"second line", "Intro\n\nThen @b.md\n", []string{"3:b.md"}},
		{"email is not an import", "mail me@example.com\n", nil},
		{"after a paren is not an import", "(@a.md) [x](@b.md)\n", nil},
		{"code span", "Run `@a.md` or ``x @b.md y``\n", nil},
		{"code span across lines", "a `b\n@c.md` d\n", nil},
		{"unclosed backtick is literal", "a ` @c.md\n", []string{"1:c.md"}},
		{"backtick runs must match", "``a` @b.md\n", []string{"1:b.md"}},
		{"escaped backticks are literal", "\\` @a.md \\`\n", []string{"1:a.md"}},
		{"paragraph ends the span search", "a `x\n\n@b.md `\n", []string{"3:b.md"}},
		{"fenced block", "```\n@a.md\n```\n@b.md\n", []string{"4:b.md"}},
		{"tilde fence with info", "~~~md\n@a.md\n~~~\n", nil},
		{"longer closing fence", "````\n@a.md\n```\n@b.md\n`````\n@c.md\n", []string{"6:c.md"}},
		{"unclosed fence hides the rest", "```\n@a.md\n", nil},
		{"indented code after blank", "Text\n\n    @a.md\n", nil},
		{"indented continuation of a paragraph", "Text\n    @a.md\n", []string{"2:a.md"}},
		{"indented line in a list", "- item\n\n    @a.md\n", []string{"3:a.md"}},
		{"escaped space", "@my\\ notes.md\n", []string{"1:my notes.md"}},
		{"home and absolute kept for the resolver", "@~/x.md @/etc/passwd @../up.md\n", []string{"1:~/x.md", "1:/etc/passwd", "1:../up.md"}},
		{"not paths", "@@x @(x) @ @/ @#x\n", nil},
		{"fragment dropped", "@a.md#setup\n", []string{"1:a.md"}},
		{"front matter is not searched", "---\ndescription: '@a.md'\n---\n@b.md\n", []string{"4:b.md"}},
		{"tab before @", "x\t@a.md\n", []string{"1:a.md"}},
		{"no final newline", "@a.md", []string{"1:a.md"}},
		{"heading and list", "# Rules @a.md\n- @b.md\n1. @c.md\n", []string{"1:a.md", "2:b.md", "3:c.md"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, _ := importsOf(t, tc.text)
			if !slices.Equal(got, tc.want) {
				t.Errorf("imports of %q = %q, want %q", tc.text, got, tc.want)
			}
		})
	}
}

func TestScanFrontMatter(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		body       int
		key        string
		want       []string
		bad        bool
	}{
		{"yaml list", "---\npaths:\n  - \"src/**/*.ts\"\n  - lib/*.go\n---\nbody\n", 6, "paths", []string{"src/**/*.ts", "lib/*.go"}, false},
		{"flow list", "---\npaths: [\"a/**\", 'b/*.md']\n---\n", 4, "paths", []string{"a/**", "b/*.md"}, false},
		{"comma string with braces", "---\napplyTo: \"**/*.{ts,tsx}, docs/**\"\n---\n", 4, "applyTo", []string{"**/*.{ts,tsx}", "docs/**"}, false},
		{"cursor unquoted globs are not YAML", "---\ndescription: Go style\nglobs: *.go,cmd/**/*.go\nalwaysApply: false\n---\n", 6, "globs", []string{"*.go", "cmd/**/*.go"}, true},
		{"string with braces, as Claude Code's docs show", "---\npaths: src/**/*.{ts,tsx}\n---\n", 4, "paths", []string{"src/**/*.{ts,tsx}"}, false},
		{"leading brace is a YAML flow map: read line by line", "---\npaths: {src,lib}/**/*.ts, tests/**/*.test.ts\n---\n", 4, "paths", []string{"{src,lib}/**/*.ts", "tests/**/*.test.ts"}, true},
		{"no front matter", "# Title\n---\n", 1, "paths", nil, false},
		{"unclosed is text", "---\npaths: a\n", 1, "paths", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, pt := importsOf(t, tc.text)
			if pt.bodyLine != tc.body {
				t.Errorf("body line %d, want %d", pt.bodyLine, tc.body)
			}
			if (pt.frontErr != "") != tc.bad {
				t.Errorf("frontErr %q, want bad=%v", pt.frontErr, tc.bad)
			}
			got, _, problem := frontStrings(pt.front, tc.key)
			if problem != "" || !slices.Equal(got, tc.want) {
				t.Errorf("%s = %q (%s), want %q", tc.key, got, problem, tc.want)
			}
		})
	}
}

func TestScanCountsCharacters(t *testing.T) {
	for _, text := range []string{"", "a", "a\n", "中文\nx", strings.Repeat("é", 70000) + "\n" + strings.Repeat("x", 10)} {
		_, pt := importsOf(t, text)
		if want := len([]rune(text)); pt.chars != want {
			t.Errorf("chars of a %d-byte text = %d, want %d", len(text), pt.chars, want)
		}
	}
}

// FuzzScanImports: any input parses, every import is on an existing line,
// has no whitespace but escaped spaces, and none comes from inside a fence.
func FuzzScanImports(f *testing.F) {
	for _, s := range []string{"@a.md", "```\n@a\n```", "a `@b` c", "---\npaths: [x]\n---\n@c", "    @d", "- x\n    @e", "\\`@f", "@g\\ h"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		pt, err := scanText(strings.NewReader(text), true)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Count(text, "\n") + 1
		for _, im := range pt.imports {
			if im.line < 1 || im.line > lines {
				t.Fatalf("import %q on line %d of a %d-line text", im.spec, im.line, lines)
			}
			if im.spec == "" || strings.ContainsAny(im.spec, "\t\n\r#") {
				t.Fatalf("import spec %q", im.spec)
			}
			if !strings.Contains(strings.Split(text, "\n")[im.line-1], "@") {
				t.Fatalf("import %q on line %d, which has no @", im.spec, im.line)
			}
		}
		if !strings.Contains(text, "`") && !strings.Contains(text, "~~~") && !strings.Contains(text, "    ") && !strings.Contains(text, "\t") && !strings.HasPrefix(text, "---") {
			// Without code or front matter every "@x" after whitespace is an import.
			want := 0
			for i := 0; i < len(text); i++ {
				if text[i] == '@' && (i == 0 || isSpace(text[i-1])) {
					if spec, _ := importSpec([]byte(text), i+1); spec != "" {
						want++
					}
				}
			}
			if want <= maxImportsPerText && len(pt.imports) != want && !strings.Contains(text, "\\") {
				t.Fatalf("%d imports, want %d in %q", len(pt.imports), want, text)
			}
		}
	})
}
