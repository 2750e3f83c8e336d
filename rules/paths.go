package rules

import (
	"fmt"
	"slices"
	"strings"
)

// PathRules are a user's choices by path, in gitignore syntax relative to
// SRC's root, from a repository's .repoprep.toml and the --rules file. They
// are applied after every built-in rule, so they have the last word:
//
//   - Include takes a path back from the built-in rules: a directory that
//     exclude_dirs, an output directory or a .gitignore would prune is
//     walked, and a file is not junk for its name (lock files, logs), its
//     directory (vendored), being generated or minified, or being ignored.
//     What the content is (a PNG, a ZIP) still decides.
//   - NotVendored takes back only the vendored verdict.
//   - Overrides set the category (and reason) of the paths they match; the
//     last matching one wins.
//   - Exclude leaves paths out: directories are not walked (pruned with
//     reason excluded-by-rule) and files are junk/excluded-by-rule. It is
//     applied last, so it wins over Include; use "!pattern" for exceptions.
type PathRules struct {
	Include     PathGlobs
	Exclude     PathGlobs
	NotVendored PathGlobs
	Overrides   []Override
}

// Override sets the category of the paths it matches.
type Override struct {
	Paths    []string `toml:"paths"`
	Category string   `toml:"category"`
	Reason   string   `toml:"reason"`

	Globs  PathGlobs `toml:"-"`
	Source string    `toml:"-"` // the rules file it came from, for explain
}

// Empty reports whether there are no path rules at all, so callers can
// skip the work.
func (r *PathRules) Empty() bool {
	return len(r.Include.pats) == 0 && len(r.Exclude.pats) == 0 && len(r.NotVendored.pats) == 0 && len(r.Overrides) == 0
}

// Override returns the last override matching p.
func (r *PathRules) Override(p string) (*Override, string, bool) {
	for i := len(r.Overrides) - 1; i >= 0; i-- {
		if pat, ok := r.Overrides[i].Globs.Match(p, false); ok {
			return &r.Overrides[i], pat, true
		}
	}
	return nil, "", false
}

// PathGlobs is an ordered list of gitignore patterns.
type PathGlobs struct {
	pats []pathPattern
}

type pathPattern struct {
	Glob
	text string // as written, with the file it came from
}

// add parses patterns from one rules file.
func (g *PathGlobs) add(file, key string, patterns []string) error {
	for _, p := range patterns {
		line := strings.TrimSpace(p)
		if line == "" || line == "!" || strings.HasPrefix(line, "#") {
			return fmt.Errorf("rules: %s: %s entry %q: want a gitignore pattern", file, key, p)
		}
		if strings.ContainsAny(line, "\x00\n\r") {
			return fmt.Errorf("rules: %s: %s entry %q: control character in pattern", file, key, p)
		}
		g.pats = append(g.pats, pathPattern{Glob: ParseGlob(line), text: fmt.Sprintf("%s (%s %s)", line, file, key)})
	}
	return nil
}

// Len is the number of patterns.
func (g PathGlobs) Len() int { return len(g.pats) }

// Match reports whether the slash-separated path p, or a directory above
// it, is matched, with git's semantics: at each level the last pattern that
// matches decides ("!pattern" negates), and once a directory matches,
// everything below it does (git cannot re-include a file whose parent is
// excluded). isDir says whether p itself is a directory. It returns the
// deciding pattern as written, with its file.
func (g PathGlobs) Match(p string, isDir bool) (string, bool) {
	if len(g.pats) == 0 || p == "" {
		return "", false
	}
	segs := strings.Split(p, "/")
	for level := 1; level <= len(segs); level++ {
		dir := level < len(segs) || isDir
		if pat, ok := g.matchLevel(segs[:level], dir); ok {
			return pat, true
		}
	}
	return "", false
}

// matchLevel applies the patterns to one path, the last match deciding.
func (g PathGlobs) matchLevel(segs []string, isDir bool) (string, bool) {
	for i := len(g.pats) - 1; i >= 0; i-- {
		if pp := &g.pats[i]; pp.Match(segs, isDir) {
			if pp.Negate {
				return "", false
			}
			return pp.text, true
		}
	}
	return "", false
}

// mergePaths adds one rules file's path keys.
func (r *PathRules) merge(file string, u *userFile) error {
	if err := r.Include.add(file, "include", u.Include); err != nil {
		return err
	}
	if err := r.Exclude.add(file, "exclude", u.Exclude); err != nil {
		return err
	}
	if err := r.NotVendored.add(file, "not_vendored", u.NotVendored); err != nil {
		return err
	}
	for i, o := range u.Overrides {
		if !slices.Contains(Categories, o.Category) {
			return fmt.Errorf("rules: %s: override %d: category %q: want one of %s", file, i+1, o.Category, strings.Join(Categories, ", "))
		}
		if len(o.Paths) == 0 {
			return fmt.Errorf("rules: %s: override %d: paths is required", file, i+1)
		}
		if err := o.Globs.add(file, "override", o.Paths); err != nil {
			return err
		}
		o.Source = file
		r.Overrides = append(r.Overrides, o)
	}
	return nil
}
