package pathname

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/text/unicode/norm"
)

func TestCheck(t *testing.T) {
	refused := []struct{ path, why string }{
		{"", "empty"},
		{"/etc/passwd", "absolute"},
		{"../x", "'..'"},
		{"a/../b", "'..'"},
		{"a/./b", "'.'"},
		{"a//b", "empty path segment"},
		{"a/", "names a directory"},
		{`a\b`, "backslash"},
		{"a\x00b", "NUL"},
		{"a\x1bb", "control"},
		{"a\u0085b", "control"},
		{"\xff", "UTF-8"},
		{"C:/x", "drive-letter"},
		{"c:evil.txt", "drive-letter"},
		{"evil\u202egnp.js", "bidirectional"},
		{"\u200fx", "bidirectional"},
		{"a\u2066b\u2069", "bidirectional"},
		{"%2e%2e%2fx", "decodes to"},
		{"%2E%2E/x", "decodes to"},
		{"..%2fx", "decodes to"},
		{"%252e%252e%252fx", "decodes to"},             // encoded twice
		{"x%zz%2f%2e%2e%2fq", "decodes to"},            // a bad escape elsewhere must not hide the rest
		{"．．／x", "decodes to"},                         // full-width
		{"src／..／x", "decodes to"},                     // full-width slash
		{"‥/x", "decodes to"},                          // two-dot leader
		{"%ef%bc%8e%ef%bc%8e/x", "decodes to"},         // full-width dots, percent-encoded
		{"a%00b", "decodes to"},                        // NUL once decoded
		{"a%e2%80%aeb", "decodes to"},                  // U+202E once decoded
		{strings.Repeat("a/", 2100) + "b", "too long"}, // over PATH_MAX
	}
	for _, tt := range refused {
		err := Check(tt.path)
		if err == nil || !strings.Contains(err.Error(), tt.why) {
			t.Errorf("Check(%q) = %v, want a refusal saying %q", tt.path, err, tt.why)
		}
	}
	if err := Check(strings.Repeat("a/", 2100) + "b"); !errors.Is(err, ErrTooLong) {
		t.Errorf("a long path: %v, want ErrTooLong", err)
	}
	for _, p := range []string{
		"a", "a/b.go", "a b/c d.txt", "..a/b", "a../b", "a/.b", ".gitignore", "%41.txt", "100%.txt",
		"中文/文件.md", "ab:c.txt", "fffd\uFFFD.txt", "emoji👩‍💻.md", "ﬁle.txt", strings.Repeat("n", 255),
	} {
		if err := Check(p); err != nil {
			t.Errorf("Check(%q) = %v, want accepted", p, err)
		}
	}
}

func FuzzCheck(f *testing.F) {
	for _, s := range []string{"a/b.go", "../x", "%2e%2e%2fx", "．．／x", "a\u202eb", `a\b`, "c:x", "x%zz%2f%2e%2e"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		if Check(p) != nil {
			return
		}
		// What Check accepts stays a plain local path however a client,
		// a proxy or a file system decodes or folds it.
		for _, alt := range []string{p, unescape(p), norm.NFKC.String(p), unescape(norm.NFKC.String(p))} {
			if !filepath.IsLocal(alt) || strings.ContainsAny(alt, "\\\x00") || strings.HasPrefix(alt, "/") {
				t.Fatalf("Check accepted %q, which reads as %q", p, alt)
			}
		}
	})
}
