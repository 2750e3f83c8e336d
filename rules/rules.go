// Package rules owns the data that steers triage and the secret scan: the
// excluded directories, junk file names, extension and content classes and
// secret patterns, embedded from defaults/ and merged with a user's --rules
// file. Nothing here reads the tree being scanned.
package rules

import (
	"bufio"
	"bytes"
	"embed"
	"fmt"
	"os"
	"path"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"
)

//go:embed defaults/exclude_dirs.txt defaults/output_dirs.txt defaults/junk_names.txt defaults/extensions.toml
//go:embed defaults/vendor.toml defaults/tests.toml defaults/generated.toml defaults/languages.toml defaults/sql.toml
//go:embed defaults/meaningful_empty.txt defaults/shipped.toml
var defaults embed.FS

// Set is the merged rule data one run uses. It is read-only after Load, so
// workers share it without locks.
type Set struct {
	ExcludeDirs map[string]bool // base names of directories never walked
	OutputDirs  map[string]bool // base names pruned only beside a build manifest
	Manifests   []string        // base-name globs of build manifests
	Junk        []JunkName      // in file order; the first match wins
	Classes     []Class
	Secrets     []SecretRule

	// MeaningfulEmpty holds the base names of empty files that are staged
	// (meaningful_empty.txt: __init__.py, py.typed, .gitkeep); every
	// other empty file is junk.
	MeaningfulEmpty map[string]bool
	// Shipped says which directories hold trees a repository ships
	// (templates, fixtures) and which pruning rules stop inside them.
	Shipped Shipped

	Triage *Triage   // vendored, test, generated, language and SQL data
	Paths  PathRules // the user's overrides by path, applied after every built-in rule
	// Warnings are parts of a rules file that were ignored, for the caller
	// to log (secret rules in a repository's own .repoprep.toml).
	Warnings []string

	junkGlobs Globs               // Junk's globs, in order
	manifests Globs               // Manifests, for IsManifest
	outputBy  map[string][]string // output dir name -> manifests of the tools that write it

	byExt  map[string]int // extension -> index into Classes
	byMime map[string]int // exact MIME type -> index into Classes
	prefix []mimePrefix   // "image/"-style prefixes, longest first
}

// JunkName marks files junk by base name, whatever their content.
type JunkName struct {
	Glob   string `toml:"glob"`
	Reason string `toml:"reason"`
}

// Class is one category with a reason, reached by content type or extension.
type Class struct {
	Category   string   `toml:"category"`
	Reason     string   `toml:"reason"`
	Content    string   `toml:"content"` // "text", "binary" or "any": what the extension promises
	Extensions []string `toml:"extensions"`
	Mimes      []string `toml:"mimes"`

	// User marks a class from a rules file: its extensions decide the
	// category of text files too, where the defaults leave text to go-enry.
	User bool `toml:"-"`
}

type mimePrefix struct {
	prefix string
	class  int
}

// Categories are the five triage categories, in docs/output.md's order.
var Categories = []string{"source", "text", "document", "data", "junk"}

// userFile is the shape of a --rules file. Every key is optional.
type userFile struct {
	ExcludeDirs []string     `toml:"exclude_dirs"`
	IncludeDirs []string     `toml:"include_dirs"` // take a default exclusion back
	Junk        []JunkName   `toml:"junk"`
	Classes     []Class      `toml:"class"`
	Secrets     []SecretRule `toml:"secrets"`

	// Path rules in gitignore syntax (paths.go), applied after every
	// built-in rule.
	Include     []string   `toml:"include"`
	Exclude     []string   `toml:"exclude"`
	NotVendored []string   `toml:"not_vendored"`
	Overrides   []Override `toml:"override"`
}

// RepoConfig is the name of a repository's own rules file, read at SRC's
// root, so a project can commit its choices.
const RepoConfig = ".repoprep.toml"

// Source is one rules file to merge: its name (for errors) and text. Repo
// marks a repository's own file, which may not touch the secret rules: a
// snapshot's redaction must not depend on the tree it redacts.
type Source struct {
	Name string
	Data []byte
	Repo bool
}

// Load returns the embedded defaults merged with the rules file at extra
// ("" for none). Classes in the user file come first, so they win over the
// defaults for the extensions and types they name.
func Load(extra string) (*Set, error) {
	if extra == "" {
		return LoadSources()
	}
	data, err := os.ReadFile(extra)
	if err != nil {
		return nil, fmt.Errorf("rules: %w", err)
	}
	return LoadSources(Source{Name: extra, Data: data})
}

// LoadSources returns the embedded defaults merged with each source in
// order (a repository's .repoprep.toml, then --rules): for classes and
// junk names the later file wins, for path rules the later pattern.
func LoadSources(srcs ...Source) (*Set, error) {
	s := &Set{ExcludeDirs: map[string]bool{}, OutputDirs: map[string]bool{}}
	dirs, err := readList("defaults/exclude_dirs.txt", 1)
	if err != nil {
		return nil, err
	}
	for _, d := range dirs {
		s.ExcludeDirs[d[0]] = true
	}
	outputs, err := readList("defaults/output_dirs.txt", 2)
	if err != nil {
		return nil, err
	}
	s.outputBy = map[string][]string{}
	for _, o := range outputs {
		if _, err := path.Match(o[1], ""); err != nil {
			return nil, fmt.Errorf("rules: defaults/output_dirs.txt: bad glob %q", o[1])
		}
		s.OutputDirs[o[0]] = true
		s.outputBy[o[0]] = append(s.outputBy[o[0]], o[1])
		if !slices.Contains(s.Manifests, o[1]) {
			s.Manifests = append(s.Manifests, o[1])
		}
	}
	empties, err := readList("defaults/meaningful_empty.txt", 1)
	if err != nil {
		return nil, err
	}
	s.MeaningfulEmpty = map[string]bool{}
	for _, e := range empties {
		s.MeaningfulEmpty[e[0]] = true
	}
	if s.Shipped, err = loadShipped(); err != nil {
		return nil, err
	}
	junk, err := readList("defaults/junk_names.txt", 2)
	if err != nil {
		return nil, err
	}
	for _, j := range junk {
		s.Junk = append(s.Junk, JunkName{Glob: j[0], Reason: j[1]})
	}
	var ext struct {
		Classes  []Class `toml:"class"`
		Mismatch struct {
			Aliases       map[string]string `toml:"aliases"`
			ZipContainers []string          `toml:"zip_containers"`
		} `toml:"mismatch"`
		ZipOnly struct {
			Extensions []string `toml:"extensions"`
		} `toml:"zip_only"`
	}
	if err := decodeTOML("defaults/extensions.toml", mustRead("defaults/extensions.toml"), &ext); err != nil {
		return nil, err
	}
	s.Classes = ext.Classes
	if s.Triage, err = loadTriage(); err != nil {
		return nil, err
	}
	s.Triage.ExtAliases = ext.Mismatch.Aliases
	s.Triage.ZipContainers = lowerSet(ext.Mismatch.ZipContainers)
	s.Triage.ZipOnly = lowerSet(ext.ZipOnly.Extensions)
	if s.Secrets, err = DefaultSecretRules(); err != nil {
		return nil, err
	}
	for _, src := range srcs {
		if err := s.merge(src); err != nil {
			return nil, err
		}
	}
	if err := s.index(); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *Set) merge(src Source) error {
	file, data := src.Name, src.Data
	var err error
	var u userFile
	if err := decodeTOML(file, data, &u); err != nil {
		return err
	}
	if src.Repo && len(u.Secrets) > 0 {
		s.Warnings = append(s.Warnings, fmt.Sprintf("%s: [[secrets]] ignored: secret rules come only from the defaults and --rules", file))
		u.Secrets = nil
	}
	if err := s.Paths.merge(file, &u); err != nil {
		return err
	}
	for _, d := range u.ExcludeDirs {
		name := strings.Trim(d, "/")
		if name == "" || strings.Contains(name, "/") {
			return fmt.Errorf("rules: %s: exclude_dirs entry %q: want a directory base name", file, d)
		}
		s.ExcludeDirs[name] = true
	}
	for _, d := range u.IncludeDirs {
		delete(s.ExcludeDirs, d)
		delete(s.OutputDirs, d)
	}
	for i, j := range u.Junk {
		if _, err := path.Match(j.Glob, ""); err != nil || j.Glob == "" {
			return fmt.Errorf("rules: %s: junk entry %d: bad glob %q", file, i+1, j.Glob)
		}
		if j.Reason == "" {
			return fmt.Errorf("rules: %s: junk entry %q: reason is required", file, j.Glob)
		}
	}
	s.Junk = append(slices.Clone(u.Junk), s.Junk...)
	for i, c := range u.Classes {
		if err := c.check(); err != nil {
			return fmt.Errorf("rules: %s: class %d: %w", file, i+1, err)
		}
		u.Classes[i].User = true
	}
	s.Classes = append(slices.Clone(u.Classes), s.Classes...)
	if len(u.Secrets) > 0 {
		if s.Secrets, err = MergeSecretRules(s.Secrets, u.Secrets, file); err != nil {
			return err
		}
	}
	return nil
}

func (c Class) check() error {
	if !slices.Contains(Categories, c.Category) {
		return fmt.Errorf("category %q: want one of %s", c.Category, strings.Join(Categories, ", "))
	}
	switch c.Content {
	case "text", "binary", "any":
	default:
		return fmt.Errorf("content %q: want text, binary or any", c.Content)
	}
	for _, e := range c.Extensions {
		if !strings.HasPrefix(e, ".") || e != strings.ToLower(e) {
			return fmt.Errorf("extension %q: want a lower-case name starting with a dot", e)
		}
	}
	return nil
}

// index builds the lookup maps. Earlier classes win, so user classes
// (prepended by merge) override defaults.
func (s *Set) index() error {
	s.byExt = map[string]int{}
	s.byMime = map[string]int{}
	for i, c := range s.Classes {
		if err := c.check(); err != nil {
			return fmt.Errorf("rules: class %q/%q: %w", c.Category, c.Reason, err)
		}
		for _, e := range c.Extensions {
			if _, ok := s.byExt[e]; !ok {
				s.byExt[e] = i
			}
		}
		for _, m := range c.Mimes {
			if strings.HasSuffix(m, "/") {
				s.prefix = append(s.prefix, mimePrefix{m, i})
			} else if _, ok := s.byMime[m]; !ok {
				s.byMime[m] = i
			}
		}
	}
	slices.SortStableFunc(s.prefix, func(a, b mimePrefix) int { return len(b.prefix) - len(a.prefix) })
	globs := make([]string, len(s.Junk))
	for i, j := range s.Junk {
		globs[i] = j.Glob
	}
	var err error
	if s.junkGlobs, err = NewGlobs(globs); err != nil {
		return fmt.Errorf("rules: junk names: %w", err)
	}
	if s.manifests, err = NewGlobs(s.Manifests); err != nil {
		return fmt.Errorf("rules: manifests: %w", err)
	}
	return nil
}

// ByExt returns the class for a file name's extension, trying a compound
// extension (".tar.gz") before the last one.
func (s *Set) ByExt(name string) (Class, bool) {
	name = strings.ToLower(name)
	for i := 0; i < len(name); i++ {
		if name[i] != '.' || i == 0 {
			continue
		}
		if c, ok := s.byExt[name[i:]]; ok {
			return s.Classes[c], true
		}
	}
	return Class{}, false
}

// ByMime returns the class for a content type (parameters ignored).
func (s *Set) ByMime(mime string) (Class, bool) {
	mime, _, _ = strings.Cut(mime, ";")
	if c, ok := s.byMime[mime]; ok {
		return s.Classes[c], true
	}
	for _, p := range s.prefix {
		if strings.HasPrefix(mime, p.prefix) {
			return s.Classes[p.class], true
		}
	}
	return Class{}, false
}

// IsOutputDir reports whether a directory named name is build output,
// given the base names of the manifests beside it (those IsManifest
// accepts): only the manifest of a tool that writes that directory counts,
// so a Maven project's bin/ scripts stay while a .NET project's bin/ goes.
func (s *Set) IsOutputDir(name string, manifests []string) bool {
	if !s.OutputDirs[name] {
		return false
	}
	for _, g := range s.outputBy[name] {
		for _, m := range manifests {
			if ok, _ := path.Match(g, m); ok {
				return true
			}
		}
	}
	return false
}

// IsMeaningfulEmpty reports whether an empty file with this base name is
// staged rather than junk/empty.
func (s *Set) IsMeaningfulEmpty(base string) bool { return s.MeaningfulEmpty[base] }

// IsManifest reports whether a base name is a build manifest, whose
// directory's output dirs may be pruned.
func (s *Set) IsManifest(base string) bool { return s.manifests.Index(base) >= 0 }

// JunkReason reports whether a base name is junk by name, and why.
func (s *Set) JunkReason(base string) (string, bool) {
	r, _, ok := s.JunkRule(base)
	return r, ok
}

// JunkRule is JunkReason with the glob that matched, for explain.
func (s *Set) JunkRule(base string) (reason, glob string, ok bool) {
	if i := s.junkGlobs.Index(base); i >= 0 {
		return s.Junk[i].Reason, s.Junk[i].Glob, true
	}
	return "", "", false
}

func mustRead(name string) []byte {
	data, err := defaults.ReadFile(name)
	if err != nil {
		panic("rules: embedded " + name + " missing: " + err.Error())
	}
	return data
}

func decodeTOML(file string, data []byte, v any) error {
	md, err := toml.Decode(string(data), v)
	if err != nil {
		return fmt.Errorf("rules: %s: %w", file, err)
	}
	if undec := md.Undecoded(); len(undec) > 0 {
		return fmt.Errorf("rules: %s: unknown key %q", file, undec[0].String())
	}
	return nil
}

// readList parses a whitespace-separated list file with # comments; each
// line must have exactly fields fields.
func readList(name string, fields int) ([][]string, error) {
	var out [][]string
	sc := bufio.NewScanner(bytes.NewReader(mustRead(name)))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "# ") || line == "#" {
			continue
		}
		f := strings.Fields(line)
		if len(f) != fields {
			return nil, fmt.Errorf("rules: %s:%d: want %d fields, got %q", name, n, fields, line)
		}
		out = append(out, f)
	}
	return out, sc.Err()
}
