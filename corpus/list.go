package corpus

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Entry is one line of LIST: a repository's name in the corpus (its
// directory under DIR/repos/ and the repo column of the table) and where
// its source tree is.
type Entry struct {
	Name string
	Path string
}

// Limits on LIST, which may come from anywhere: a line is a path, so a
// longer one is a mistake; a corpus of a million repositories is not one
// process's work.
const (
	maxListLine    = 64 << 10
	maxListEntries = 1_000_000
	maxNameBytes   = 200 // well below any file system's 255, with room for ".lock" and ".tmp-*"
)

// ParseList reads LIST: one repository a line, `PATH` or `NAME<TAB>PATH`;
// blank lines and lines whose first non-blank character is `#` are
// skipped. NAME defaults to PATH's base name, and names must be unique
// regardless of case (they become directories, and a case-insensitive
// file system would merge "Foo" and "foo"). A relative PATH is taken
// from dir (LIST's own directory), so a list travels with its trees.
// Errors name the line.
func ParseList(r io.Reader, dir string) ([]Entry, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), maxListLine)
	var out []Entry
	seen := map[string]int{} // lower-cased name → line
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSuffix(sc.Text(), "\r")
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		if !utf8.ValidString(line) {
			return nil, fmt.Errorf("LIST line %d: not UTF-8", n)
		}
		var e Entry
		if name, path, ok := strings.Cut(line, "\t"); ok {
			e.Name, e.Path = strings.TrimSpace(name), strings.TrimSpace(path)
			if e.Path == "" {
				return nil, fmt.Errorf("LIST line %d: no PATH after the tab", n)
			}
		} else {
			e.Path = trimmed
			e.Name = filepath.Base(filepath.Clean(e.Path))
		}
		if err := checkName(e.Name); err != nil {
			return nil, fmt.Errorf("LIST line %d: name %q: %w", n, e.Name, err)
		}
		key := strings.ToLower(e.Name)
		if first, dup := seen[key]; dup {
			return nil, fmt.Errorf("LIST line %d: name %q is taken by line %d; give one of them a NAME<TAB>PATH line", n, e.Name, first)
		}
		seen[key] = n
		if !filepath.IsAbs(e.Path) && dir != "" {
			e.Path = filepath.Join(dir, e.Path)
		}
		if len(out) == maxListEntries {
			return nil, fmt.Errorf("LIST line %d: more than %d repositories", n, maxListEntries)
		}
		out = append(out, e)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("LIST: a line longer than %d bytes", maxListLine)
		}
		return nil, fmt.Errorf("LIST: %w", err)
	}
	if len(out) == 0 {
		return nil, errors.New("LIST names no repository")
	}
	return out, nil
}

// checkName refuses a name that is not one plain directory entry: it must
// stay one element under DIR/repos/, and not hide as a dot file beside the
// lock and temporary files the snapshots keep there.
func checkName(name string) error {
	switch {
	case name == "" || name == "." || name == "..":
		return errors.New("empty, or a dot or two dots alone")
	case len(name) > maxNameBytes:
		return fmt.Errorf("longer than %d bytes", maxNameBytes)
	case strings.HasPrefix(name, "."):
		return errors.New("starts with a dot")
	case strings.ContainsAny(name, `/\:`):
		return errors.New(`holds a slash, a backslash or a colon`)
	case strings.ContainsFunc(name, func(r rune) bool { return unicode.IsControl(r) || r == utf8.RuneError }):
		return errors.New("holds a control character")
	case strings.TrimSpace(name) != name:
		return errors.New("starts or ends with a space")
	}
	return nil
}
