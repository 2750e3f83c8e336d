// Package repomap renders REPO_MAP.md, the first thing an agent reads of a
// snapshot: a function of the files.json model (and, when given, the staged
// tree), with no other input.
package repomap

import (
	"io/fs"
	"path"
	"sort"
	"strings"

	"github.com/repoprep/repoprep/instructions"
	"github.com/repoprep/repoprep/internal/tokens"
	"github.com/repoprep/repoprep/snapshot"
)

// Options configures Render; the zero value renders from the
// manifest alone.
type Options struct {
	// Name titles the map, typically the base name of SRC; "" gives a
	// generic title.
	Name string
	// Tree is the staged tree (OUT/tree). With it Render reads Go package
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

// mapCaps bounds how many items each section of the map lists; Render
// tries the levels in order until one fits the token limit, so a larger
// repository loses detail, never a sentence.
type mapCaps struct {
	modules, children, langs, entries, agents, testPlaces, reasons, pathRunes int
	cmdRunes                                                                  int // a package.json script's command, elided; 0 leaves commands out
	tokenDirs, tokenFiles                                                     int // repomap_tokens.go; 0 gives the total alone
	packages                                                                  int // workspace packages listed; 0 gives their count alone
}

var mapLevels = []mapCaps{
	{modules: 12, children: 5, langs: 5, entries: 8, agents: 6, testPlaces: 4, reasons: 4, pathRunes: 60, cmdRunes: 32, tokenDirs: 3, tokenFiles: 3, packages: 8},
	{modules: 10, children: 4, langs: 4, entries: 6, agents: 5, testPlaces: 3, reasons: 3, pathRunes: 48, cmdRunes: 24, tokenDirs: 3, tokenFiles: 3, packages: 6},
	{modules: 8, children: 3, langs: 3, entries: 5, agents: 4, testPlaces: 3, reasons: 1, pathRunes: 40, tokenDirs: 2, tokenFiles: 1, packages: 5},
	{modules: 6, children: 0, langs: 3, entries: 3, agents: 3, testPlaces: 2, reasons: 1, pathRunes: 32, tokenDirs: 1, tokenFiles: 1, packages: 4},
	{modules: 4, children: 0, langs: 2, entries: 2, agents: 2, testPlaces: 1, reasons: 0, pathRunes: 24, tokenDirs: 1, packages: 3},
	{modules: 0, children: 0, langs: 1, entries: 0, agents: 0, testPlaces: 0, reasons: 0, pathRunes: 16},
}

// Render renders REPO_MAP.md, the first screen an agent reads: what the
// repository is, where things live, where to start and how to read more.
// The same manifest and tree always give the same bytes, and the result is
// under opts.TokenLimit o200k tokens for any manifest: lists are ranked and
// collapsed ("and 12 more"), never cut mid-sentence.
func Render(m *snapshot.Manifest, opts Options) []byte {
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
	masked, maskedFiles             int // spans masked as [REDACTED:<rule>], and the files holding them
	stagedBytes                     int64
	langs                           []mapCount // by lines of staged source
	langLines                       int
	modules                         []*mapDir
	rootFiles                       int
	tests                           int
	testPatterns, testDirs          []mapCount
	goMains                         []string
	mainFiles, docker, rootScripts  []string
	ws                              mapWorkspaces     // workspace packages and the entry points manifests declare
	notes                           map[string]string // directory → its role in the repository's agent instructions
	scripts                         []mapScripts
	makeTargets                     []mapScripts
	agents                          []mapAgent
	leftOut                         []mapLeft
	documents                       []mapCount // staged documents read as extracted text, by format
	documentsTotal                  int
	documentsRefused                int // documents an extractor refused (their reason says why)
	documentsTruncated              int // documents staged cut short at a work limit
	leftTotal                       int
	pruned                          []mapCount // by path, or by base name when several share it
	prunedTotal                     int
	tokens                          mapTokens
}

func gatherMapFacts(m *snapshot.Manifest, opts Options) *mapFacts {
	f := &mapFacts{name: opts.Name}
	dirs := map[string]*mapDir{}
	langLines := map[string]int{}
	testPatterns := map[string]int{}
	testDirs := map[string]map[string]int{} // dir name → dir path → files
	left := map[string]map[string]int{}     // category → reason → files
	var entries []*snapshot.Entry           // staged, for entry point detection
	documents := map[string]int{}           // format → staged documents

	var resolver *instructions.Resolver // made on the first unstaged instruction file
	resolve := func(p string) string {
		if resolver == nil {
			resolver = instructions.NewResolver(m)
		}
		src, _ := resolver.Source(p)
		return src
	}
	for i := range m.Files {
		e := &m.Files[i]
		f.scanned++
		if isAgentFile(e.Path) {
			f.agents = append(f.agents, readAgentFile(e, opts.Tree, resolve))
		}
		if !e.Staged {
			if strings.HasPrefix(e.Err, "extract: ") {
				f.documentsRefused++
			}
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
		if e.ExtractedFrom != "" {
			documents[e.ExtractedFrom]++
			f.documentsTotal++
			if e.Truncated != "" {
				f.documentsTruncated++
			}
		}
		if e.Oversize {
			f.oversize++
		}
		if e.Masked > 0 {
			f.masked += e.Masked
			f.maskedFiles++
		}
		lang := mapLanguage(e.Language)
		if e.Category == "source" && lang != "" {
			langLines[lang] += max(e.Lines, 1)
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
			case e.Category == "source" && lang != "":
				d.srcLangs[lang]++
			case e.Category == "text" && lang != "":
				d.txtLangs[lang]++
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
	f.documents = rankCounts(documents)
	f.pruned, f.prunedTotal = rankPruned(m.Pruned), len(m.Pruned)
	f.tokens = gatherMapTokens(m)
	f.kind = projectKind(entries, opts.Tree)
	f.notes = agentNotes(f.agents)
	f.ws = gatherWorkspaces(m, entries, opts.Tree, f.notes)
	f.findEntryPoints(entries, dirs, opts.Tree)
	return f
}

// mapLanguage is the language a file counts toward in the map. Assembly
// dialects fold into one: go-enry's classifier spreads the .s files of a
// single repository over "Assembly", "Unix Assembly" and "Motorola 68K
// Assembly" (GOROOT's src shows all three), which tells a reader nothing.
func mapLanguage(lang string) string {
	if strings.HasSuffix(lang, " Assembly") {
		return "Assembly"
	}
	return lang
}

// rankPruned names each pruned directory by its path when it is the only
// one of its name, so a reader sees where it was (`cmd/dist`, not `dist`),
// and folds names shared by several into one count (`node_modules` ×300).
func rankPruned(pruned []snapshot.Pruned) []mapCount {
	byName := map[string][]string{}
	for _, p := range pruned {
		name := path.Base(p.Path)
		byName[name] = append(byName[name], p.Path)
	}
	out := map[string]int{}
	for name, paths := range byName {
		if len(paths) == 1 {
			out[paths[0]] = 1
		} else {
			out[name] = len(paths)
		}
	}
	return rankCounts(out)
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
