package repoprep_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// The README and docs/ are read in a fresh clone, offline: every link must
// stay in the repository and lead somewhere, and nothing may depend on a
// file outside it.

// markdownFiles lists README.md and every Markdown file under docs/.
func markdownFiles(t *testing.T) []string {
	t.Helper()
	files := []string{"README.md"}
	err := filepath.WalkDir("docs", func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

var (
	fenced     = regexp.MustCompile("(?ms)^ {0,3}```.*?^ {0,3}```[^\n]*$")
	codeSpan   = regexp.MustCompile("`[^`]*`")
	inlineLink = regexp.MustCompile(`\]\(([^)\s]*)(?:\s+"[^"]*")?\)`)
	bareURL    = regexp.MustCompile(`(?i)\b(https?|ftp)://|<[a-z][a-z0-9+.-]*:[^>\s]*>|\bwww\.[a-z0-9-]+\.`)
	heading    = regexp.MustCompile(`(?m)^#{1,6}\s+(.*?)\s*#*\s*$`)
)

// prose is a Markdown file without its code: fenced blocks, indented
// blocks and code spans, where a URL is text, not a link.
func prose(md string) string {
	md = fenced.ReplaceAllString(md, "")
	var keep []string
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "    ") || strings.HasPrefix(line, "\t") {
			trimmed := strings.TrimSpace(line)
			if !strings.HasPrefix(trimmed, "- ") && !strings.HasPrefix(trimmed, "* ") {
				continue // an indented code block (or a list item's continuation, which rarely links)
			}
		}
		keep = append(keep, line)
	}
	return codeSpan.ReplaceAllString(strings.Join(keep, "\n"), "``")
}

// anchors lists the heading anchors GitHub makes for a Markdown file.
func anchors(md string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	for _, m := range heading.FindAllStringSubmatch(fenced.ReplaceAllString(md, ""), -1) {
		text := regexp.MustCompile(`\]\([^)]*\)`).ReplaceAllString(m[1], "]")
		var b strings.Builder
		for _, r := range strings.ToLower(text) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.M, r):
				b.WriteRune(r)
			}
		}
		slug := b.String()
		if n := seen[slug]; n > 0 {
			seen[slug]++
			slug += "-" + strconv.Itoa(n)
		} else {
			seen[slug] = 1
		}
		out[slug] = true
	}
	return out
}

// TestDocsLinksStayInRepository: no link in README.md or docs/ leaves the
// repository, and every link leads to a file (and heading) that exists.
func TestDocsLinksStayInRepository(t *testing.T) {
	root, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	cache := map[string]map[string]bool{}
	anchorsOf := func(p string) map[string]bool {
		if a, ok := cache[p]; ok {
			return a
		}
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		cache[p] = anchors(string(data))
		return cache[p]
	}
	for _, file := range markdownFiles(t) {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		text := prose(string(data))
		for _, m := range bareURL.FindAllString(text, -1) {
			t.Errorf("%s: %q links outside the repository", file, m)
		}
		for _, m := range inlineLink.FindAllStringSubmatch(text, -1) {
			target := m[1]
			if strings.Contains(target, ":") {
				t.Errorf("%s: link %q leaves the repository", file, target)
				continue
			}
			p, frag, _ := strings.Cut(target, "#")
			dest := file
			if p != "" {
				dest = filepath.Join(filepath.Dir(file), filepath.FromSlash(p))
				abs, _ := filepath.Abs(dest)
				if rel, err := filepath.Rel(root, abs); err != nil || !filepath.IsLocal(rel) {
					t.Errorf("%s: link %q leaves the repository", file, target)
					continue
				}
				if _, err := os.Stat(dest); err != nil {
					t.Errorf("%s: link %q: %v", file, target, err)
					continue
				}
			}
			if frag != "" && strings.HasSuffix(dest, ".md") && !anchorsOf(dest)[frag] {
				t.Errorf("%s: link %q: %s has no heading with anchor #%s", file, target, dest, frag)
			}
		}
	}
}

// TestReadmeFirstScreen: the first screen of the README (its first 40
// lines) still holds the two commands a new user runs, and nothing in the
// README points at ../shared.
func TestReadmeFirstScreen(t *testing.T) {
	data, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	first := strings.Join(lines[:min(40, len(lines))], "\n")
	for _, cmd := range []string{"go run ./cmd/repoprep run", "make test"} {
		if !strings.Contains(first, cmd) {
			t.Errorf("the README's first 40 lines lack %q", cmd)
		}
	}
	if strings.Contains(string(data), "../shared") {
		t.Error("README.md refers to ../shared, which a clone does not have")
	}
}
