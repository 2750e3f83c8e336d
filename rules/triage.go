package rules

import (
	"fmt"
	"path"
	"regexp"
	"strings"
)

// Triage is the data behind triage's vendored, test, generated, language
// and SQL decisions (defaults/vendor.toml, tests.toml, generated.toml,
// languages.toml, sql.toml) and classify's extension aliases. It answers
// questions about names; evidence on disk (is there a go.mod beside
// vendor/?) is checked by the caller, since nothing here reads the tree.
type Triage struct {
	VendorDirs    []DirRule    // directories an ecosystem fills with dependencies
	VendorFiles   []FileRule   // known third-party files, by name and content
	VendorBanners []BannerRule // third-party banners, by content alone

	TestNames []NameRule // test file names per language
	TestGlobs Globs      // every TestNames glob, in order
	// TestGlobLanguage[i] names TestGlobs[i] and its language, for explain.
	TestGlobLanguage []string
	TestDirs         map[string]bool // lower-cased directory names of tests and fixtures
	TestDirsIf       []DirRule       // test directories only with evidence (spec/)
	MainSources      [][]string      // segments that begin a main source set (src/main)

	GeneratedNames     Globs           // lower-cased base names of generated files
	GeneratedDirs      map[string]bool // directory names whose subtree is generated
	GeneratedJSMarkers [][]byte        // lower-cased text in the first 512 bytes of a .js or .css file

	SourceLanguages map[string]bool   // linguist markup/prose that is code to a reader
	Prefer          map[string]string // extension -> language go-enry calls ambiguous but that nearly always is
	PreferWhy       map[string]string // extension -> "preferred for .ts (languages.toml)", for explain

	SQL SQLRules

	ExtAliases    map[string]string // extension -> the one mimetype reports for the format
	ZipContainers map[string]bool   // extensions of ZIP-based formats
	// ZipOnly holds extensions whose class applies only to zip content
	// (.key: Keynote, or a private key); see ZipOnlyExt.
	ZipOnly map[string]bool
}

// ZipOnlyExt reports whether a base name's extension gets its class only
// when the content is a zip (extensions.toml [zip_only]).
func (t *Triage) ZipOnlyExt(base string) bool {
	return len(t.ZipOnly) > 0 && t.ZipOnly[strings.ToLower(path.Ext(base))]
}

// DirRule names a directory by the last segments of its path, with the
// files that must exist for it to count.
type DirRule struct {
	Name      string   `toml:"name"`      // "vendor", "Carthage/Build", "packages/*.[0-9]*"
	Ecosystem string   `toml:"ecosystem"` // who defines it, for explain
	Beside    []string `toml:"beside"`    // relative to the directory holding Name's first segment
	Inside    []string `toml:"inside"`    // relative to the directory itself

	Segments []string `toml:"-"` // Name split at "/"
}

// Match reports whether the directory with these path segments is named
// by the rule (its last segments match, each as a glob).
func (r *DirRule) Match(segs []string) bool {
	if len(segs) < len(r.Segments) {
		return false
	}
	tail := segs[len(segs)-len(r.Segments):]
	for i, g := range r.Segments {
		if ok, _ := path.Match(g, tail[i]); !ok {
			return false
		}
	}
	return true
}

// LastSegment is the glob the directory's own base name must match; a
// caller indexes rules by it when it is a plain name.
func (r *DirRule) LastSegment() string { return r.Segments[len(r.Segments)-1] }

// Describe says what the rule asks for, for explain.
func (r *DirRule) Describe() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s/ (%s", r.Name, r.Ecosystem)
	if len(r.Beside) > 0 {
		fmt.Fprintf(&b, ", beside %s", strings.Join(r.Beside, " and "))
	}
	if len(r.Inside) > 0 {
		fmt.Fprintf(&b, ", holding %s", strings.Join(r.Inside, " and "))
	}
	b.WriteString(")")
	return b.String()
}

// FileRule is a known third-party file: a base-name glob and content that
// confirms it in the file's first 1 KiB.
type FileRule struct {
	Names   []string `toml:"names"`
	Content string   `toml:"content"`

	Re    *regexp.Regexp `toml:"-"`
	Globs Globs          `toml:"-"`
}

// BannerRule is a third-party banner recognised by content alone, for files
// with the given extensions.
type BannerRule struct {
	Extensions []string `toml:"extensions"`
	Content    string   `toml:"content"`

	Re *regexp.Regexp `toml:"-"`
}

// NameRule lists the test file names of one language.
type NameRule struct {
	Language string   `toml:"language"`
	Globs    []string `toml:"globs"`
}

// SQLRules split SQL files into schemas (source) and dumps (data/dump).
type SQLRules struct {
	Extensions    []string `toml:"extensions"`
	DumpMarkers   []string `toml:"dump_markers"`
	BulkRows      int      `toml:"bulk_rows"`
	BulkHeadBytes int      `toml:"bulk_head_bytes"`

	exts map[string]bool
}

// IsSQL reports whether a base name has one of the extensions split by content.
func (q *SQLRules) IsSQL(base string) bool {
	return q.exts[strings.ToLower(path.Ext(base))]
}

// VendorBytes is how much of a file's head [[file]] and [[banner]] rules see:
// enough to get past a long license header to a version banner.
const VendorBytes = 2 << 10

func loadTriage() (*Triage, error) {
	t := &Triage{}
	var vendor struct {
		Dir    []DirRule    `toml:"dir"`
		File   []FileRule   `toml:"file"`
		Banner []BannerRule `toml:"banner"`
	}
	if err := decodeTOML("defaults/vendor.toml", mustRead("defaults/vendor.toml"), &vendor); err != nil {
		return nil, err
	}
	for i := range vendor.Dir {
		if err := vendor.Dir[i].compile(); err != nil {
			return nil, fmt.Errorf("rules: defaults/vendor.toml: %w", err)
		}
	}
	for i := range vendor.File {
		f := &vendor.File[i]
		re, err := regexp.Compile(f.Content)
		if err != nil {
			return nil, fmt.Errorf("rules: defaults/vendor.toml: file %q: %w", f.Names, err)
		}
		f.Re = re
		if f.Globs, err = NewGlobs(f.Names); err != nil {
			return nil, fmt.Errorf("rules: defaults/vendor.toml: %w", err)
		}
	}
	for i := range vendor.Banner {
		b := &vendor.Banner[i]
		re, err := regexp.Compile(b.Content)
		if err != nil {
			return nil, fmt.Errorf("rules: defaults/vendor.toml: banner: %w", err)
		}
		b.Re = re
	}
	t.VendorDirs, t.VendorFiles, t.VendorBanners = vendor.Dir, vendor.File, vendor.Banner

	var tests struct {
		Dirs       []string   `toml:"dirs"`
		MainSource []string   `toml:"main_source"`
		Names      []NameRule `toml:"names"`
		Dir        []DirRule  `toml:"dir"`
	}
	if err := decodeTOML("defaults/tests.toml", mustRead("defaults/tests.toml"), &tests); err != nil {
		return nil, err
	}
	t.TestNames = tests.Names
	var globs []string
	for _, n := range tests.Names {
		for _, g := range n.Globs {
			globs = append(globs, g)
			t.TestGlobLanguage = append(t.TestGlobLanguage, g+" ("+n.Language+")")
		}
	}
	var err error
	if t.TestGlobs, err = NewGlobs(globs); err != nil {
		return nil, fmt.Errorf("rules: defaults/tests.toml: %w", err)
	}
	t.TestDirs = lowerSet(tests.Dirs)
	for i := range tests.Dir {
		if err := tests.Dir[i].compile(); err != nil {
			return nil, fmt.Errorf("rules: defaults/tests.toml: %w", err)
		}
	}
	t.TestDirsIf = tests.Dir
	for _, m := range tests.MainSource {
		t.MainSources = append(t.MainSources, strings.Split(m, "/"))
	}

	var gen struct {
		Names     []string `toml:"names"`
		Dirs      []string `toml:"dirs"`
		JSMarkers []string `toml:"js_markers"`
	}
	if err := decodeTOML("defaults/generated.toml", mustRead("defaults/generated.toml"), &gen); err != nil {
		return nil, err
	}
	if t.GeneratedNames, err = NewGlobs(gen.Names); err != nil {
		return nil, fmt.Errorf("rules: defaults/generated.toml: %w", err)
	}
	t.GeneratedDirs = map[string]bool{}
	for _, d := range gen.Dirs {
		t.GeneratedDirs[d] = true
	}
	for _, m := range gen.JSMarkers {
		t.GeneratedJSMarkers = append(t.GeneratedJSMarkers, []byte(strings.ToLower(m)))
	}

	var langs struct {
		SourceLanguages []string          `toml:"source_languages"`
		Prefer          map[string]string `toml:"prefer"`
	}
	if err := decodeTOML("defaults/languages.toml", mustRead("defaults/languages.toml"), &langs); err != nil {
		return nil, err
	}
	t.SourceLanguages = map[string]bool{}
	for _, l := range langs.SourceLanguages {
		t.SourceLanguages[l] = true
	}
	t.Prefer = langs.Prefer
	t.PreferWhy = map[string]string{}
	for ext := range t.Prefer {
		t.PreferWhy[ext] = "preferred for " + ext + " (languages.toml)"
	}

	if err := decodeTOML("defaults/sql.toml", mustRead("defaults/sql.toml"), &t.SQL); err != nil {
		return nil, err
	}
	t.SQL.exts = lowerSet(t.SQL.Extensions)
	return t, nil
}

func (r *DirRule) compile() error {
	if r.Name == "" || strings.HasPrefix(r.Name, "/") || strings.HasSuffix(r.Name, "/") {
		return fmt.Errorf("dir %q: want a name such as vendor or Carthage/Build", r.Name)
	}
	r.Segments = strings.Split(r.Name, "/")
	for _, g := range append(slicesConcat(r.Segments, r.Beside), r.Inside...) {
		if _, err := path.Match(g, ""); err != nil {
			return fmt.Errorf("dir %q: bad glob %q", r.Name, g)
		}
	}
	return nil
}

func slicesConcat(a, b []string) []string {
	return append(append([]string(nil), a...), b...)
}

func lowerSet(names []string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[strings.ToLower(n)] = true
	}
	return m
}
