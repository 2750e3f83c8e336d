package pipeline

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/build/constraint"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"maps"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"golang.org/x/mod/modfile"

	"github.com/repoprep/repoprep/internal/tokens"
)

// RepoMapOptions configures RepoMap; the zero value renders from the
// manifest alone.
type RepoMapOptions struct {
	// Name titles the map, typically the base name of SRC; "" gives a
	// generic title.
	Name string
	// Tree is the staged tree (OUT/tree). With it RepoMap reads Go package
	// clauses, package.json scripts, Makefile targets, go.mod's module line
	// and the length of agent instruction files, each read bounded; without
	// it those are inferred from paths and sizes. Only staged paths are read.
	Tree fs.FS
	// TokenLimit is the o200k token count the map stays under; 0 means 600.
	TokenLimit int
}

const (
	defaultMapTokens   = 600
	agentFileWarnChars = 40_000 // where agents start truncating or warning about instruction files
	largeModuleShare   = 0.33   // a top-level directory holding this share of the files also gets its subdirectories listed
	dominantChildShare = 0.75   // a subdirectory this big is looked through (frontend/src → its children)
)

// mapCaps bounds how many items each section of the map lists; RepoMap
// tries the levels in order until one fits the token limit, so a larger
// repository loses detail, never a sentence.
type mapCaps struct {
	modules, children, langs, entries, agents, testPlaces, reasons, pathRunes int
}

var mapLevels = []mapCaps{
	{modules: 12, children: 5, langs: 5, entries: 8, agents: 6, testPlaces: 4, reasons: 2, pathRunes: 60},
	{modules: 10, children: 4, langs: 4, entries: 6, agents: 5, testPlaces: 3, reasons: 2, pathRunes: 48},
	{modules: 8, children: 3, langs: 3, entries: 5, agents: 4, testPlaces: 3, reasons: 1, pathRunes: 40},
	{modules: 6, children: 0, langs: 3, entries: 3, agents: 3, testPlaces: 2, reasons: 1, pathRunes: 32},
	{modules: 4, children: 0, langs: 2, entries: 2, agents: 2, testPlaces: 1, reasons: 0, pathRunes: 24},
	{modules: 0, children: 0, langs: 1, entries: 0, agents: 0, testPlaces: 0, reasons: 0, pathRunes: 16},
}

// RepoMap renders REPO_MAP.md, the first screen an agent reads: what the
// repository is, where things live, where to start and how to read more.
// The same manifest and tree always give the same bytes, and the result is
// under opts.TokenLimit o200k tokens for any manifest: lists are ranked and
// collapsed ("and 12 more"), never cut mid-sentence.
func RepoMap(m *Manifest, opts RepoMapOptions) []byte {
	limit := opts.TokenLimit
	if limit <= 0 {
		limit = defaultMapTokens
	}
	facts := gatherMapFacts(m, opts)
	var out string
	for _, caps := range mapLevels {
		out = facts.render(caps)
		if tokens.Count(out) < limit {
			break
		}
	}
	// The last level lists nothing but counts (about 250 tokens), so it
	// only misses when the limit itself is unreasonably small.
	return []byte(out)
}

// mapCount is a name with a count, ranked by count then name.
type mapCount struct {
	name string
	n    int
}

func rankCounts(byName map[string]int) []mapCount {
	out := make([]mapCount, 0, len(byName))
	for name, n := range byName {
		out = append(out, mapCount{name, n})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].n != out[j].n {
			return out[i].n > out[j].n
		}
		return out[i].name < out[j].name
	})
	return out
}

// mapDir aggregates the staged files under one directory (depth 1 to 3).
type mapDir struct {
	path     string
	files    int
	tests    int
	srcLangs map[string]int // staged source files per language
	txtLangs map[string]int // staged text files per language, when there is no source
	kids     []*mapDir
}

func (d *mapDir) language() string {
	langs := d.srcLangs
	if len(langs) == 0 {
		langs = d.txtLangs
	}
	if r := rankCounts(langs); len(r) > 0 {
		return r[0].name
	}
	return ""
}

// mapLeft is one category of files that were scanned but not staged.
type mapLeft struct {
	category string
	n        int
	reasons  []mapCount
}

// mapFacts is everything the map says, gathered in one pass so rendering
// at each detail level is cheap.
type mapFacts struct {
	name, kind                      string
	scanned, staged, dups, oversize int
	stagedBytes                     int64
	langs                           []mapCount // by lines of staged source
	langLines                       int
	modules                         []*mapDir
	rootFiles                       int
	tests                           int
	testPatterns, testDirs          []mapCount
	goMains                         []string
	mainFiles, docker               []string
	scripts                         []mapScripts
	makeTargets                     []mapScripts
	agents                          []mapAgent
	leftOut                         []mapLeft
	leftTotal                       int
	pruned                          []mapCount // by base name
	prunedTotal                     int
}

func gatherMapFacts(m *Manifest, opts RepoMapOptions) *mapFacts {
	f := &mapFacts{name: opts.Name}
	dirs := map[string]*mapDir{}
	langLines := map[string]int{}
	testPatterns := map[string]int{}
	testDirs := map[string]map[string]int{} // dir name → dir path → files
	left := map[string]map[string]int{}     // category → reason → files
	var entries []*Entry                    // staged, for entry point detection

	for i := range m.Files {
		e := &m.Files[i]
		f.scanned++
		if isAgentFile(e.Path) {
			f.agents = append(f.agents, readAgentFile(e, opts.Tree))
		}
		if !e.Staged {
			if e.DuplicateOf != "" {
				f.dups++
				continue
			}
			if left[e.Category] == nil {
				left[e.Category] = map[string]int{}
			}
			left[e.Category][e.Reason]++
			f.leftTotal++
			continue
		}
		f.staged++
		f.stagedBytes += e.Size
		if e.Oversize {
			f.oversize++
		}
		if e.Category == "source" && e.Language != "" {
			langLines[e.Language] += max(e.Lines, 1)
			f.langLines += max(e.Lines, 1)
		}
		entries = append(entries, e)
		if e.Test {
			f.tests++
			if dir, name, ok := testDir(e.Path); ok {
				if testDirs[name] == nil {
					testDirs[name] = map[string]int{}
				}
				testDirs[name][dir]++
			} else {
				testPatterns[testPattern(path.Base(e.Path))]++
			}
		}
		if !strings.Contains(e.Path, "/") {
			f.rootFiles++
		}
		// Count the file in each ancestor directory down to depth 3.
		var parent *mapDir
		for depth, i := 1, strings.IndexByte(e.Path, '/'); i >= 0 && depth <= 3; depth++ {
			dp := e.Path[:i]
			d := dirs[dp]
			if d == nil {
				d = &mapDir{path: dp, srcLangs: map[string]int{}, txtLangs: map[string]int{}}
				dirs[dp] = d
				if parent != nil {
					parent.kids = append(parent.kids, d)
				} else {
					f.modules = append(f.modules, d)
				}
			}
			d.files++
			if e.Test {
				d.tests++
			}
			switch {
			case e.Category == "source" && e.Language != "":
				d.srcLangs[e.Language]++
			case e.Category == "text" && e.Language != "":
				d.txtLangs[e.Language]++
			}
			parent = d
			j := strings.IndexByte(e.Path[i+1:], '/')
			if j < 0 {
				break
			}
			i += 1 + j
		}
	}

	f.langs = rankCounts(langLines)
	rankDirs(f.modules)
	for _, d := range dirs {
		rankDirs(d.kids)
	}
	f.testPatterns = rankCounts(testPatterns)
	f.testDirs = rankTestDirs(testDirs)
	for _, c := range rankCounts(mapKeys(left)) {
		l := mapLeft{category: c.name, reasons: rankCounts(left[c.name])}
		for _, r := range l.reasons {
			l.n += r.n
		}
		f.leftOut = append(f.leftOut, l)
	}
	sort.SliceStable(f.leftOut, func(i, j int) bool { return f.leftOut[i].n > f.leftOut[j].n })
	pruned := map[string]int{}
	for _, p := range m.Pruned {
		pruned[path.Base(p.Path)]++
		f.prunedTotal++
	}
	f.pruned = rankCounts(pruned)
	f.kind = projectKind(entries, opts.Tree)
	f.findEntryPoints(entries, dirs, opts.Tree)
	return f
}

// mapKeys turns a map of maps into key → total count.
func mapKeys(m map[string]map[string]int) map[string]int {
	out := make(map[string]int, len(m))
	for k, inner := range m {
		for _, n := range inner {
			out[k] += n
		}
	}
	return out
}

func rankDirs(ds []*mapDir) {
	sort.Slice(ds, func(i, j int) bool {
		if ds[i].files != ds[j].files {
			return ds[i].files > ds[j].files
		}
		return ds[i].path < ds[j].path
	})
}

// testDirNames are directory names that hold tests or their fixtures.
var testDirNames = map[string]bool{
	"test": true, "tests": true, "__tests__": true, "spec": true, "specs": true, "e2e": true,
	"testdata": true, "fixtures": true, "__fixtures__": true, "__mocks__": true,
	"integration": true, "integration_tests": true, "unit": true,
}

// testDir reports the first test directory on p's way down, as its path
// and name.
func testDir(p string) (dir, name string, ok bool) {
	for i := 0; i < len(p); {
		j := strings.IndexByte(p[i:], '/')
		if j < 0 {
			return "", "", false
		}
		if seg := p[i : i+j]; testDirNames[seg] {
			return p[:i+j], seg, true
		}
		i += j + 1
	}
	return "", "", false
}

// testPattern names the naming convention of a test file that lives
// beside the code.
func testPattern(base string) string {
	ext := path.Ext(base)
	stem := strings.TrimSuffix(base, ext)
	switch {
	case strings.HasSuffix(base, "_test.go"):
		return "*_test.go"
	case ext == ".py" && strings.HasPrefix(stem, "test_"):
		return "test_*.py"
	case strings.HasSuffix(stem, "_test"), strings.HasSuffix(stem, "_spec"):
		return "*" + stem[len(stem)-5:] + ext
	case strings.HasSuffix(stem, ".test"), strings.HasSuffix(stem, ".spec"):
		return "*" + stem[len(stem)-5:] + ext
	case strings.HasSuffix(stem, "Test"), strings.HasSuffix(stem, "Tests"):
		return "*Test" + ext
	}
	return "other"
}

// rankTestDirs lists each test directory that is the only one of its name
// by path, and names shared by several directories as one group
// ("312 `testdata/` directories").
func rankTestDirs(byName map[string]map[string]int) []mapCount {
	out := map[string]int{}
	for name, byDir := range byName {
		if len(byDir) == 1 {
			for dir, n := range byDir {
				out[mapCode(dir+"/")] = n
			}
			continue
		}
		total := 0
		for _, n := range byDir {
			total += n
		}
		out[fmt.Sprintf("%s %s directories", mapNum(len(byDir)), mapCode(name+"/"))] = total
	}
	return rankCounts(out)
}

// render writes the map at one level of detail.
func (f *mapFacts) render(c mapCaps) string {
	var b strings.Builder
	if f.name != "" {
		fmt.Fprintf(&b, "# Repository map: %s\n\n", mapElide(f.name, 60))
	} else {
		b.WriteString("# Repository map\n\n")
	}
	if f.kind != "" {
		b.WriteString(mapElide(f.kind, c.pathRunes+20) + ". ")
	}
	fmt.Fprintf(&b, "%s of %s scanned files are staged for reading (%s).", mapNum(f.staged), mapNum(f.scanned), auditBytes(f.stagedBytes))
	if len(f.langs) > 0 {
		b.WriteString(" Languages by lines of source: ")
		shown := 0
		for i, l := range f.langs {
			pct := l.n * 100 / max(f.langLines, 1)
			if i >= c.langs || (pct < 1 && i > 0) {
				break
			}
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%s %s", l.name, mapPct(l.n, f.langLines))
			shown += l.n
		}
		if rest := f.langLines - shown; rest*100/max(f.langLines, 1) >= 1 {
			fmt.Fprintf(&b, ", other %s", mapPct(rest, f.langLines))
		}
		b.WriteString(".")
	}
	b.WriteString("\n")

	f.renderModules(&b, c)
	f.renderTests(&b, c)
	f.renderEntryPoints(&b, c)
	f.renderAgents(&b, c)
	f.renderLeftOut(&b, c)

	b.WriteString("\n## Reading more\n")
	b.WriteString("- `list_files` pages through files.json (filter by prefix, glob, category, test); `search` runs a regular expression over the staged tree.\n")
	b.WriteString("- `read_file` takes paths from files.json, with optional line ranges; a duplicate path serves its canonical copy.\n")
	if f.oversize > 0 {
		fmt.Fprintf(&b, "- %s oversize %s served by line range only; oversize.json lists %s with %s first lines.\n",
			mapNum(f.oversize), mapPlural(f.oversize, "file is", "files are"), mapPlural(f.oversize, "it", "them"), mapPlural(f.oversize, "its", "their"))
	}
	return b.String()
}

func (f *mapFacts) renderModules(b *strings.Builder, c mapCaps) {
	b.WriteString("\n## Top-level directories\n")
	if len(f.modules) == 0 {
		fmt.Fprintf(b, "All %s staged files sit at the root.\n", mapNum(f.rootFiles))
		return
	}
	if c.modules == 0 {
		fmt.Fprintf(b, "%s directories; the largest is %s (%s files).", mapNum(len(f.modules)),
			mapCode(mapElide(f.modules[0].path+"/", c.pathRunes)), mapNum(f.modules[0].files))
		if f.rootFiles > 0 {
			fmt.Fprintf(b, " %s %s at the root.", mapNum(f.rootFiles), mapPlural(f.rootFiles, "file sits", "files sit"))
		}
		b.WriteString("\n")
		return
	}
	shown := 0
	for i, d := range f.modules {
		if i >= c.modules {
			break
		}
		shown += d.files
		b.WriteString("- " + f.describeDir(d, c) + "\n")
		if c.children == 0 || float64(d.files) < largeModuleShare*float64(f.staged) {
			continue
		}
		kids := d.kids
		if len(kids) > 0 && float64(kids[0].files) >= dominantChildShare*float64(d.files) && len(kids[0].kids) > 1 {
			kids = kids[0].kids // look through frontend/src to frontend/src/*
		}
		if len(kids) < 2 {
			continue
		}
		b.WriteString("  - inside: ")
		for j, k := range kids {
			if j >= c.children {
				fmt.Fprintf(b, ", and %s more", mapNum(len(kids)-j))
				break
			}
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString(mapCode(mapElide(k.path+"/", c.pathRunes)) + " " + mapNum(k.files))
			if role := dirRole(k); role != "" {
				b.WriteString(" (" + role + ")")
			}
		}
		b.WriteString("\n")
	}
	if f.rootFiles > 0 {
		fmt.Fprintf(b, "- %s %s at the root\n", mapNum(f.rootFiles), mapPlural(f.rootFiles, "file", "files"))
	}
	if rest := len(f.modules) - c.modules; rest > 0 {
		fmt.Fprintf(b, "- and %s more %s (%s files)\n", mapNum(rest), mapPlural(rest, "directory", "directories"),
			mapNum(f.staged-f.rootFiles-shown))
	}
}

// describeDir is one module line: path, staged files, main language, role.
func (f *mapFacts) describeDir(d *mapDir, c mapCaps) string {
	s := mapCode(mapElide(d.path+"/", c.pathRunes)) + " " + mapNum(d.files) + " " + mapPlural(d.files, "file", "files")
	if lang := d.language(); lang != "" {
		s += ", " + lang
	}
	if role := dirRole(d); role != "" {
		s += " — " + role
	}
	return s
}

// dirRoles gives the conventional role of a directory by its name.
var dirRoles = map[string]string{
	"cmd": "commands (main packages)", "api": "API definitions and handlers", "apis": "API definitions and handlers",
	"services": "services", "service": "services", "svc": "services",
	"models": "data models", "model": "data models", "entities": "data models", "schemas": "schemas", "schema": "schemas",
	"pkg": "library packages", "internal": "internal packages", "lib": "library code", "libs": "library code",
	"src": "source root", "app": "application code", "apps": "applications", "packages": "workspace packages",
	"components": "UI components", "pages": "pages and routes", "views": "views", "routes": "routes", "router": "routing",
	"hooks": "hooks", "store": "storage", "stores": "storage", "storage": "storage", "styles": "styles", "css": "styles",
	"assets": "static assets", "static": "static assets", "public": "static assets", "images": "images",
	"docs": "documentation", "doc": "documentation", "documentation": "documentation",
	"scripts": "scripts", "tools": "tooling", "bin": "executables and scripts", "hack": "developer scripts",
	"test": "tests", "tests": "tests", "__tests__": "tests", "e2e": "end-to-end tests", "spec": "tests", "specs": "tests",
	"testdata": "test fixtures", "fixtures": "test fixtures", "testing": "test helpers", "benchmarks": "benchmarks", "bench": "benchmarks",
	"examples": "examples", "example": "examples", "samples": "examples", "demo": "examples",
	"config": "configuration", "configs": "configuration", "conf": "configuration", "settings": "configuration",
	"migrations": "database migrations", "db": "database", "database": "database", "sql": "SQL",
	"web": "web front end", "frontend": "front end", "client": "client", "ui": "user interface",
	"backend": "back end", "server": "server", "handlers": "request handlers", "controllers": "controllers",
	"middleware": "middleware", "proto": "protocol definitions", "protos": "protocol definitions",
	"utils": "helpers", "util": "helpers", "helpers": "helpers", "common": "shared code", "shared": "shared code", "core": "core logic",
	"vendor": "vendored third-party code", "third_party": "vendored third-party code",
	"deploy": "deployment", "deployments": "deployment", "k8s": "Kubernetes manifests", "helm": "Helm charts",
	"infra": "infrastructure", "terraform": "infrastructure", ".github": "GitHub workflows and config", ".circleci": "CI config",
	"i18n": "translations", "locales": "translations", "types": "type definitions", "plugins": "plugins", "misc": "miscellany",
}

// frontEndRoles override dirRoles in directories of front-end code, where
// api/ calls a server rather than serving one.
var frontEndRoles = map[string]string{"api": "API client", "store": "state store", "stores": "state store"}

var frontEndLangs = map[string]bool{"JavaScript": true, "TypeScript": true, "TSX": true, "JSX": true, "Vue": true, "Svelte": true}

// dirRole infers a directory's role from its name, else from what it holds.
func dirRole(d *mapDir) string {
	name := strings.ToLower(path.Base(d.path))
	if r, ok := frontEndRoles[name]; ok && frontEndLangs[d.language()] {
		return r
	}
	if r, ok := dirRoles[name]; ok {
		return r
	}
	switch {
	case d.tests*10 >= d.files*6:
		return "mostly tests"
	case len(d.srcLangs) == 0 && d.txtLangs["Markdown"]*2 > d.files:
		return "documentation"
	}
	return ""
}

func (f *mapFacts) renderTests(b *strings.Builder, c mapCaps) {
	b.WriteString("\n## Tests\n")
	if f.tests == 0 {
		b.WriteString("No staged test files.\n")
		return
	}
	fmt.Fprintf(b, "%s staged test %s (%s of staged).", mapNum(f.tests), mapPlural(f.tests, "file", "files"), mapPct(f.tests, f.staged))
	list := func(label string, items []mapCount, item func(mapCount) string) {
		if len(items) == 0 || c.testPlaces == 0 {
			return
		}
		b.WriteString(" " + label + ": ")
		for i, it := range items {
			if i >= c.testPlaces {
				fmt.Fprintf(b, ", and %s more", mapNum(len(items)-i))
				break
			}
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(item(it))
		}
		b.WriteString(".")
	}
	list("Beside the code", f.testPatterns, func(it mapCount) string {
		if it.name == "other" {
			return mapNum(it.n) + " other"
		}
		return mapNum(it.n) + " " + mapCode(it.name)
	})
	dirs := f.testDirs
	if c.pathRunes < 60 {
		dirs = elideCounts(dirs, c.pathRunes)
	}
	list("In test directories", dirs, func(it mapCount) string { return mapNum(it.n) + " in " + it.name })
	b.WriteString("\n")
}

// elideCounts shortens the code-span names of counts to about maxRunes.
func elideCounts(cs []mapCount, maxRunes int) []mapCount {
	out := make([]mapCount, len(cs))
	for i, c := range cs {
		out[i] = mapCount{mapElide(c.name, maxRunes+2), c.n}
	}
	return out
}

func (f *mapFacts) renderLeftOut(b *strings.Builder, c mapCaps) {
	b.WriteString("\n## Left out\n")
	if f.leftTotal == 0 {
		b.WriteString("Every scanned file is staged")
	} else {
		fmt.Fprintf(b, "%s %s not staged: ", mapNum(f.leftTotal), mapPlural(f.leftTotal, "file", "files"))
		for i, l := range f.leftOut {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(mapElide(l.category, 20) + " " + mapNum(l.n))
			var rs []string
			for _, r := range l.reasons {
				if len(rs) == c.reasons {
					rs = append(rs, "…")
					break
				}
				if r.name != "" && r.name != l.category {
					rs = append(rs, mapElide(r.name, 24)+" "+mapNum(r.n))
				}
			}
			if len(rs) > 0 && rs[0] != "…" {
				b.WriteString(" (" + strings.Join(rs, ", ") + ")")
			}
		}
	}
	b.WriteString(".")
	if f.dups > 0 {
		fmt.Fprintf(b, " %s %s to a staged copy (`duplicate_of`).", mapNum(f.dups), mapPlural(f.dups, "duplicate points", "duplicates point"))
	}
	if f.prunedTotal > 0 {
		fmt.Fprintf(b, " %s %s not walked", mapNum(f.prunedTotal), mapPlural(f.prunedTotal, "directory", "directories"))
		limit := max(c.modules/2, 1)
		for i, p := range f.pruned {
			if i == 0 {
				b.WriteString(": ")
			} else {
				b.WriteString(", ")
			}
			if i >= limit {
				fmt.Fprintf(b, "and %s more", mapNum(len(f.pruned)-i))
				break
			}
			b.WriteString(mapCode(mapElide(p.name, c.pathRunes)))
			if p.n > 1 {
				b.WriteString(" ×" + mapNum(p.n))
			}
		}
		b.WriteString(".")
	}
	b.WriteString("\n")
}

// mapCode writes s as a Markdown code span, widening the fence when s
// holds a backtick.
func mapCode(s string) string {
	if !strings.Contains(s, "`") {
		return "`" + s + "`"
	}
	return "`` " + s + " ``"
}

// mapElide shortens s to maxRunes by cutting its middle, so both the start
// of a path and its file name stay readable.
func mapElide(s string, maxRunes int) string {
	if maxRunes <= 0 || utf8.RuneCountInString(s) <= maxRunes {
		return s
	}
	r := []rune(s)
	head := maxRunes / 3
	tail := maxRunes - head - 1
	return string(r[:head]) + "…" + string(r[len(r)-tail:])
}

// mapNum formats n with thousands separators.
func mapNum(n int) string {
	if n < 0 {
		return "-" + mapNum(-n)
	}
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// mapPct is part/whole as a whole percentage, "<1%" when small but present.
func mapPct(part, whole int) string {
	if whole <= 0 {
		return "0%"
	}
	p := part * 100 / whole
	if p == 0 && part > 0 {
		return "<1%"
	}
	return fmt.Sprintf("%d%%", p)
}

func mapPlural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Entry points, agent instruction files and the project kind: the parts of
// the map that may read the staged tree.

const (
	mapHeadBytes   = 8 << 10   // enough of a Go file for its package clause, of go.mod for its module line
	mapConfigBytes = 256 << 10 // package.json and Makefiles bigger than this are not parsed
	mapAgentBytes  = 4 << 20   // instruction files are counted up to here; far past the warning
)

// mapScripts is a build file with the commands it defines.
type mapScripts struct {
	path  string
	names []string
}

// mapAgent is one agent instruction file found in the manifest.
type mapAgent struct {
	path   string
	chars  int
	staged bool
	reason string
}

// isAgentFile reports whether p is an instruction file coding agents read
// on their own: CLAUDE.md, CLAUDE.local.md, AGENTS.md, .cursorrules,
// .github/copilot-instructions.md or anything under .claude/rules/.
func isAgentFile(p string) bool {
	switch path.Base(p) {
	case "CLAUDE.md", "CLAUDE.local.md", "AGENTS.md", ".cursorrules":
		return true
	}
	return p == ".github/copilot-instructions.md" || strings.HasSuffix(p, "/.github/copilot-instructions.md") ||
		strings.HasPrefix(p, ".claude/rules/") || strings.Contains(p, "/.claude/rules/")
}

// readAgentFile measures an instruction file in characters from its
// staged copy, or in bytes from the manifest when there is none.
func readAgentFile(e *Entry, tree fs.FS) mapAgent {
	a := mapAgent{path: e.Path, chars: int(e.Size), staged: e.Staged, reason: e.Reason}
	if !e.Staged || tree == nil {
		return a
	}
	data, err := readStagedHead(tree, e.Path, mapAgentBytes)
	if err != nil {
		return a
	}
	a.chars = utf8.RuneCount(data) // the staged copy is UTF-8
	return a
}

// readStagedHead reads at most limit bytes of a staged file.
func readStagedHead(tree fs.FS, name string, limit int64) ([]byte, error) {
	if tree == nil || !fs.ValidPath(name) {
		return nil, fs.ErrInvalid
	}
	file, err := tree.Open(name)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	return io.ReadAll(io.LimitReader(file, limit))
}

// projectKind names what the root holds a manifest for: a Go module, an
// npm package or a Python project.
func projectKind(staged []*Entry, tree fs.FS) string {
	var kinds []string
	for _, e := range staged {
		switch e.Path {
		case "go.mod":
			kind := "Go module"
			if head, err := readStagedHead(tree, e.Path, mapHeadBytes); err == nil {
				if mod := modfile.ModulePath(head); mod != "" {
					kind += " " + mapCode(mod)
				}
			}
			kinds = append(kinds, kind)
		case "package.json":
			kind := "npm package"
			var pkg struct{ Name string }
			if data, err := readStagedHead(tree, e.Path, mapConfigBytes); err == nil && json.Unmarshal(data, &pkg) == nil && pkg.Name != "" {
				kind += " " + mapCode(pkg.Name)
			}
			kinds = append(kinds, kind)
		case "pyproject.toml", "setup.py":
			if !slices.Contains(kinds, "Python project") {
				kinds = append(kinds, "Python project")
			}
		case "Cargo.toml":
			kinds = append(kinds, "Rust crate")
		}
	}
	return strings.Join(kinds, "; ")
}

// findEntryPoints collects where a reader would start: Go main packages,
// main files, package.json scripts, Dockerfiles and Makefile targets.
func (f *mapFacts) findEntryPoints(staged []*Entry, dirs map[string]*mapDir, tree fs.FS) {
	goFiles := map[string][]string{} // dir → its non-test Go files, in manifest order
	for _, e := range staged {
		p := e.Path
		base := path.Base(p)
		depth := strings.Count(p, "/")
		if strings.HasSuffix(base, ".go") {
			if !e.Test && !strings.HasSuffix(base, "_test.go") && !hasSegment(p, "testdata") && !hasSegment(p, "vendor") {
				goFiles[path.Dir(p)] = append(goFiles[path.Dir(p)], p)
			}
			continue
		}
		if e.Test || hasSegment(p, "testdata") {
			continue
		}
		switch {
		case mainFileNames[base] && depth <= 3 && (!strings.HasPrefix(base, "index.") || indexDirs[path.Base(path.Dir(p))]):
			f.mainFiles = append(f.mainFiles, p)
		case base == "package.json" && depth <= 3:
			s := mapScripts{path: p}
			if tree != nil {
				s.names = packageScripts(tree, p)
			}
			f.scripts = append(f.scripts, s)
		case (strings.HasPrefix(base, "Dockerfile") || strings.HasSuffix(base, ".Dockerfile") || composeFileNames[base]) && depth <= 3:
			f.docker = append(f.docker, p)
		case makeFileNames[base] && depth <= 2:
			s := mapScripts{path: p}
			if tree != nil && base != "Taskfile.yml" {
				s.names = makeTargets(tree, p)
			}
			f.makeTargets = append(f.makeTargets, s)
		}
	}
	f.goMains = goMainDirs(goFiles, dirs, tree)
	byDepth := func(ps []string) {
		sort.SliceStable(ps, func(i, j int) bool { return strings.Count(ps[i], "/") < strings.Count(ps[j], "/") })
	}
	byDepth(f.mainFiles)
	byDepth(f.docker)
	sort.SliceStable(f.scripts, func(i, j int) bool {
		return strings.Count(f.scripts[i].path, "/") < strings.Count(f.scripts[j].path, "/")
	})
	sort.SliceStable(f.makeTargets, func(i, j int) bool {
		return strings.Count(f.makeTargets[i].path, "/") < strings.Count(f.makeTargets[j].path, "/")
	})
}

var (
	mainFileNames = map[string]bool{
		"main.py": true, "__main__.py": true, "manage.py": true, "app.py": true, "wsgi.py": true, "asgi.py": true,
		"index.js": true, "index.ts": true, "index.tsx": true, "index.jsx": true, "index.mjs": true,
		"main.js": true, "main.ts": true, "main.tsx": true, "main.jsx": true, "server.js": true, "server.ts": true,
		"main.rs": true, "main.c": true, "main.cc": true, "main.cpp": true, "Main.java": true, "Program.cs": true,
	}
	// index.js and friends are entry points only at a package's root, not
	// in every component folder.
	indexDirs        = map[string]bool{".": true, "src": true, "app": true, "lib": true, "server": true, "client": true, "web": true, "frontend": true, "backend": true}
	composeFileNames = map[string]bool{"docker-compose.yml": true, "docker-compose.yaml": true, "compose.yml": true, "compose.yaml": true}
	makeFileNames    = map[string]bool{"Makefile": true, "makefile": true, "GNUmakefile": true, "justfile": true, "Taskfile.yml": true}
)

func hasSegment(p, seg string) bool {
	return strings.HasPrefix(p, seg+"/") || strings.Contains(p, "/"+seg+"/")
}

// goMainDirs lists directories holding a Go main package, shallowest and
// largest first. With a tree it reads package clauses (skipping files
// under //go:build ignore); without one, a main.go marks a main package.
func goMainDirs(goFiles map[string][]string, dirs map[string]*mapDir, tree fs.FS) []string {
	var mains []string
	for dir, files := range goFiles {
		if isGoMain(files, tree) {
			mains = append(mains, dir)
		}
	}
	size := func(dir string) int {
		if d := dirs[dir]; d != nil {
			return d.files
		}
		return len(goFiles[dir])
	}
	sort.Slice(mains, func(i, j int) bool {
		di, dj := strings.Count(mains[i], "/"), strings.Count(mains[j], "/")
		if di != dj {
			return di < dj
		}
		if si, sj := size(mains[i]), size(mains[j]); si != sj {
			return si > sj
		}
		return mains[i] < mains[j]
	})
	return mains
}

func isGoMain(files []string, tree fs.FS) bool {
	if tree == nil {
		return slices.ContainsFunc(files, func(p string) bool { return path.Base(p) == "main.go" })
	}
	for _, p := range files {
		head, err := readStagedHead(tree, p, mapHeadBytes)
		if err != nil {
			continue
		}
		file, err := parser.ParseFile(token.NewFileSet(), p, head, parser.PackageClauseOnly|parser.ParseComments)
		if err != nil || isBuildIgnored(file) {
			continue
		}
		// The first file that builds decides; the go tool refuses mixed packages.
		return file.Name.Name == "main"
	}
	return false
}

// isBuildIgnored reports a //go:build line that names the ignore tag, the
// convention for generators kept beside a library package.
func isBuildIgnored(file *ast.File) bool {
	for _, g := range file.Comments {
		if g.Pos() > file.Package {
			break
		}
		for _, c := range g.List {
			if !constraint.IsGoBuild(c.Text) {
				continue
			}
			expr, err := constraint.Parse(c.Text)
			if err != nil {
				continue
			}
			ignored := false
			expr.Eval(func(tag string) bool {
				ignored = ignored || tag == "ignore"
				return true
			})
			return ignored
		}
	}
	return false
}

// packageScripts lists a package.json's script names, the usual ones first.
func packageScripts(tree fs.FS, p string) []string {
	data, err := readStagedHead(tree, p, mapConfigBytes)
	if err != nil {
		return nil
	}
	var pkg struct{ Scripts map[string]json.RawMessage }
	if json.Unmarshal(data, &pkg) != nil {
		return nil
	}
	names := slices.Collect(maps.Keys(pkg.Scripts))
	rank := map[string]int{"dev": 1, "start": 2, "build": 3, "test": 4, "serve": 5, "preview": 6, "lint": 7}
	sort.Slice(names, func(i, j int) bool {
		ri, rj := rank[names[i]], rank[names[j]]
		if ri == 0 {
			ri = 100
		}
		if rj == 0 {
			rj = 100
		}
		if ri != rj {
			return ri < rj
		}
		return names[i] < names[j]
	})
	return names
}

var makeTargetLine = regexp.MustCompile(`^([A-Za-z0-9][A-Za-z0-9_./-]*)\s*:([^=]|$)`)

// makeTargets lists a Makefile's explicit targets in file order.
func makeTargets(tree fs.FS, p string) []string {
	data, err := readStagedHead(tree, p, mapConfigBytes)
	if err != nil {
		return nil
	}
	var names []string
	for line := range strings.Lines(string(data)) {
		m := makeTargetLine.FindStringSubmatch(line)
		if m == nil || strings.ContainsAny(m[1], "%$") || slices.Contains(names, m[1]) {
			continue
		}
		names = append(names, m[1])
	}
	return names
}

func (f *mapFacts) renderEntryPoints(b *strings.Builder, c mapCaps) {
	b.WriteString("\n## Entry points\n")
	total := len(f.goMains) + len(f.mainFiles) + len(f.scripts) + len(f.docker) + len(f.makeTargets)
	if total == 0 {
		b.WriteString("None recognised (no Go main package, main file, package.json, Dockerfile or Makefile).\n")
		return
	}
	if c.entries == 0 {
		fmt.Fprintf(b, "%s Go main packages, %s main files, %s package.json, %s Docker files, %s Makefiles.\n",
			mapNum(len(f.goMains)), mapNum(len(f.mainFiles)), mapNum(len(f.scripts)), mapNum(len(f.docker)), mapNum(len(f.makeTargets)))
		return
	}
	paths := func(ps []string, suffix string) string {
		var s []string
		for i, p := range ps {
			if i >= c.entries {
				s = append(s, "and "+mapNum(len(ps)-i)+" more")
				break
			}
			s = append(s, mapCode(mapElide(p+suffix, c.pathRunes)))
		}
		return strings.Join(s, ", ")
	}
	if len(f.goMains) > 0 {
		fmt.Fprintf(b, "- Go main packages (%s): %s\n", mapNum(len(f.goMains)), paths(f.goMains, "/"))
	}
	if len(f.mainFiles) > 0 {
		fmt.Fprintf(b, "- Main files: %s\n", paths(f.mainFiles, ""))
	}
	scripts := func(label string, list []mapScripts, verb string) {
		for i, s := range list {
			if i >= max(c.entries/3, 1) {
				fmt.Fprintf(b, "- and %s more %s\n", mapNum(len(list)-i), label)
				break
			}
			b.WriteString("- " + mapCode(mapElide(s.path, c.pathRunes)))
			if len(s.names) > 0 {
				b.WriteString(" " + verb + ": ")
				for j, n := range s.names {
					if j >= c.entries {
						fmt.Fprintf(b, ", and %s more", mapNum(len(s.names)-j))
						break
					}
					if j > 0 {
						b.WriteString(", ")
					}
					b.WriteString(mapElide(n, 24))
				}
			}
			b.WriteString("\n")
		}
	}
	scripts("package.json files", f.scripts, "scripts")
	if len(f.docker) > 0 {
		fmt.Fprintf(b, "- Docker: %s\n", paths(f.docker, ""))
	}
	scripts("Makefiles", f.makeTargets, "targets")
}

func (f *mapFacts) renderAgents(b *strings.Builder, c mapCaps) {
	b.WriteString("\n## Agent instructions\n")
	if len(f.agents) == 0 {
		b.WriteString("None found (CLAUDE.md, AGENTS.md, .cursorrules, .github/copilot-instructions.md, .claude/rules/).\n")
		return
	}
	large := 0
	for _, a := range f.agents {
		if a.chars > agentFileWarnChars {
			large++
		}
	}
	if c.agents == 0 {
		fmt.Fprintf(b, "%s instruction %s found", mapNum(len(f.agents)), mapPlural(len(f.agents), "file", "files"))
		if large > 0 {
			fmt.Fprintf(b, "; %s over 40,000 characters, which agents may truncate", mapNum(large))
		}
		b.WriteString(".\n")
		return
	}
	// Large files first: the warning matters more than the listing.
	agents := slices.Clone(f.agents)
	sort.SliceStable(agents, func(i, j int) bool {
		return agents[i].chars > agentFileWarnChars && agents[j].chars <= agentFileWarnChars
	})
	for i, a := range agents {
		if i >= c.agents {
			fmt.Fprintf(b, "- and %s more\n", mapNum(len(agents)-i))
			break
		}
		fmt.Fprintf(b, "- %s (%s characters)", mapCode(mapElide(a.path, c.pathRunes)), mapNum(a.chars))
		if !a.staged {
			fmt.Fprintf(b, ", not staged (%s)", mapElide(a.reason, 24))
		}
		if a.chars > agentFileWarnChars {
			b.WriteString(" ⚠")
		}
		b.WriteString("\n")
	}
	if large > 0 {
		fmt.Fprintf(b, "⚠ marks %s over 40,000 characters: agents may truncate %s; read %s by line range.\n",
			mapPlural(large, "a file", "files"), mapPlural(large, "it", "them"), mapPlural(large, "it", "them"))
	}
}
