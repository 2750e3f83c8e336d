package repomap

import (
	"io/fs"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/repoprep/repoprep/snapshot"
)

// Workspace packages: the packages a monorepo's manifests declare (npm,
// Yarn and pnpm workspaces, Cargo workspaces, Go multi-module trees and
// go.work, Maven modules, Gradle projects, Python src layouts and uv
// workspaces), each with its size and role, and the commands and library
// entry points their manifests declare (declared.go). Globs are expanded
// against the directories of the staged manifests, never the disk.

const (
	maxManifestReads  = 128 // manifests parsed for workspaces, names and commands in one map
	maxWorkspaceRoots = 8   // top-level directories looked at as workspace roots when the root declares none
	maxModuleDepth    = 4   // Maven modules of modules
	maxGlobBytes      = 200 // a longer workspace glob is ignored
	maxGlobStars      = 4   // as is one with more `**` (doublestar backtracks on each)
)

// mapPackage is one workspace package a manifest declares.
type mapPackage struct {
	dir    string // never the root
	name   string // as its manifest names it
	kind   string // pkgNpm, pkgCargo, ...
	files  int    // staged files under dir
	tokens int64
	group  string // sampleGroup of dir: "" for first-party code
	note   string // what the repository's agent instructions call it
}

// The package kinds, which say which manifest a package has.
const (
	pkgNpm    = "npm"
	pkgCargo  = "Cargo"
	pkgGo     = "Go"
	pkgMaven  = "Maven"
	pkgGradle = "Gradle"
	pkgPython = "Python"
	pkgUV     = "uv"
)

// mapWorkspaces is what the manifests declare, ranked for the map.
type mapWorkspaces struct {
	sources  []string      // "pnpm workspace (`pnpm-workspace.yaml`)", in detection order
	packages []*mapPackage // first-party first, then by files
	declared mapDeclaredSet
}

// wsScan gathers mapWorkspaces with a bounded number of manifest reads.
type wsScan struct {
	tree      fs.FS
	staged    []*snapshot.Entry   // sorted by path
	paths     []string            // their paths, for lookups and prefix scans
	known     []string            // every path in the manifest, staged or not (an empty __init__.py counts), sorted
	byBase    map[string][]string // manifest base name → directories holding a staged one ("" for the root), sorted
	pyInits   []string            // directories holding an __init__.py directly under a src/, sorted
	dirs      map[string]bool     // directories holding staged files, made on first use
	reads     int
	npmSeen   map[string]*npmManifest // manifests parsed, by path
	cargoSeen map[string]cargoManifest
	pySeen    map[string]pyManifest
	ws        mapWorkspaces
	byDir     map[string]*mapPackage
}

// workspaceManifests are the base names the scan looks up by directory.
var workspaceManifests = []string{"package.json", "pnpm-workspace.yaml", "Cargo.toml", "go.mod", "go.work", "pom.xml",
	"settings.gradle", "settings.gradle.kts", "pyproject.toml", "setup.py", "setup.cfg"}

// newWsScan indexes the manifest for lookups by path. Sorted slices, not
// maps: files.json is already in path order, so a 100k-file manifest
// costs two passes and no hashing.
func newWsScan(m *snapshot.Manifest, staged []*snapshot.Entry, tree fs.FS) *wsScan {
	s := &wsScan{tree: tree, byBase: map[string][]string{},
		npmSeen: map[string]*npmManifest{}, cargoSeen: map[string]cargoManifest{}, pySeen: map[string]pyManifest{},
		byDir: map[string]*mapPackage{}}
	s.staged = staged
	if !slices.IsSortedFunc(staged, func(a, b *snapshot.Entry) int { return strings.Compare(a.Path, b.Path) }) {
		s.staged = slices.Clone(staged)
		slices.SortFunc(s.staged, func(a, b *snapshot.Entry) int { return strings.Compare(a.Path, b.Path) })
	}
	s.paths = make([]string, len(s.staged))
	for i, e := range s.staged {
		s.paths[i] = e.Path
		base := path.Base(e.Path)
		if slices.Contains(workspaceManifests, base) && !hasSegment(e.Path, "node_modules") {
			s.byBase[base] = append(s.byBase[base], dirOf(e.Path))
		}
	}
	s.known = make([]string, len(m.Files))
	for i := range m.Files {
		p := m.Files[i].Path
		s.known[i] = p
		if path.Base(p) == "__init__.py" && path.Base(path.Dir(path.Dir(p))) == "src" {
			s.pyInits = append(s.pyInits, path.Dir(p))
		}
	}
	if !slices.IsSorted(s.known) {
		slices.Sort(s.known)
	}
	sort.Strings(s.pyInits)
	for _, dirs := range s.byBase {
		sort.Strings(dirs)
	}
	return s
}

// isStaged reports whether p is a staged file.
func (s *wsScan) isStaged(p string) bool {
	_, ok := slices.BinarySearch(s.paths, p)
	return ok
}

// isKnown reports whether p is in the manifest, staged or not.
func (s *wsScan) isKnown(p string) bool {
	_, ok := slices.BinarySearch(s.known, p)
	return ok
}

// dirOf is a file's directory, "" for the root.
func dirOf(p string) string {
	if d := path.Dir(p); d != "." {
		return d
	}
	return ""
}

// read returns a staged manifest's head, or nil once maxManifestReads
// manifests were read.
func (s *wsScan) read(p string) []byte { return s.readHead(p, mapConfigBytes) }

// npm parses a package.json once.
func (s *wsScan) npm(p string) *npmManifest {
	if m, ok := s.npmSeen[p]; ok {
		return m
	}
	var out *npmManifest
	if m, ok := parsePackageJSON(s.read(p)); ok {
		out = &m
	}
	s.npmSeen[p] = out
	return out
}

// hasDir reports whether staged files sit under dir.
func (s *wsScan) hasDir(dir string) bool {
	if s.dirs == nil {
		s.dirs = map[string]bool{}
		for _, p := range s.paths {
			for d := dirOf(p); d != "" && !s.dirs[d]; d = dirOf(d) {
				s.dirs[d] = true
			}
		}
	}
	return s.dirs[dir]
}

// add records a package once; the first kind to declare a directory keeps it.
func (s *wsScan) add(dir, kind string) *mapPackage {
	if dir == "" {
		return nil
	}
	if p := s.byDir[dir]; p != nil {
		return p
	}
	p := &mapPackage{dir: dir, kind: kind}
	s.byDir[dir] = p
	s.ws.packages = append(s.ws.packages, p)
	return p
}

// gatherWorkspaces finds the workspace packages the manifests at the
// root declare, or, when it declares none, those of up to
// maxWorkspaceRoots top-level directories (a web/ pnpm workspace beside a
// Go server), then the commands and library entries of the root and of
// each package.
func gatherWorkspaces(m *snapshot.Manifest, staged []*snapshot.Entry, tree fs.FS, notes map[string]string) mapWorkspaces {
	s := newWsScan(m, staged, tree)
	s.scanRoot("")
	s.scanGo()
	roots := []string{""}
	if len(s.ws.packages) == 0 {
		for _, d := range s.topLevelRoots() {
			s.scanRoot(d)
			roots = append(roots, d)
		}
	}
	s.measure(notes)
	s.ws.declared = s.gatherDeclared(roots)
	return s.ws
}

// topLevelRoots are the top-level directories, outside examples and
// tests, holding a manifest that may declare a workspace.
func (s *wsScan) topLevelRoots() []string {
	seen := map[string]bool{}
	var out []string
	for _, base := range []string{"package.json", "pnpm-workspace.yaml", "Cargo.toml", "pom.xml", "settings.gradle", "settings.gradle.kts", "pyproject.toml"} {
		for _, d := range s.byBase[base] {
			if d != "" && !strings.Contains(d, "/") && sampleGroup(d) == "" && !seen[d] {
				seen[d] = true
				out = append(out, d)
			}
		}
	}
	sort.Strings(out)
	return out[:min(len(out), maxWorkspaceRoots)]
}

// scanRoot reads the workspace manifests of one root directory.
func (s *wsScan) scanRoot(root string) {
	shown := func(base string) string { return mapCode(joinDir(root, base)) }
	if pj := s.npm(joinDir(root, "package.json")); pj != nil && len(pj.workspaces) > 0 {
		label := "npm workspaces"
		if s.isKnown(joinDir(root, "yarn.lock")) {
			label = "Yarn workspaces"
		}
		s.addMatches(root, pj.workspaces, nil, "package.json", pkgNpm, label+" ("+shown("package.json")+")")
	}
	if globs := parsePnpmWorkspace(s.read(joinDir(root, "pnpm-workspace.yaml"))); len(globs) > 0 {
		s.addMatches(root, globs, nil, "package.json", pkgNpm, "pnpm workspace ("+shown("pnpm-workspace.yaml")+")")
	}
	if c, ok := s.cargo(joinDir(root, "Cargo.toml")); ok && c.isWorkspace {
		s.addMatches(root, c.members, c.exclude, "Cargo.toml", pkgCargo, "Cargo workspace ("+shown("Cargo.toml")+")")
	}
	s.scanMaven(root)
	for _, base := range []string{"settings.gradle.kts", "settings.gradle"} {
		dirs := parseGradleSettings(s.read(joinDir(root, base)))
		n := len(s.ws.packages)
		for _, d := range dirs {
			if d = joinDir(root, d); fs.ValidPath(d) && s.hasDir(d) {
				s.add(d, pkgGradle)
			}
		}
		if len(s.ws.packages) > n {
			s.ws.sources = append(s.ws.sources, "Gradle projects ("+shown(base)+")")
		}
		if len(dirs) > 0 {
			break // one settings file per build
		}
	}
	s.scanPython(root)
}

// addMatches adds the directories holding a staged manifest (base) below
// root that a workspace's globs match and its exclusions do not. A glob
// starting with "!" excludes (pnpm, npm).
func (s *wsScan) addMatches(root string, globs, exclude []string, base, kind, source string) {
	var include []string
	for _, g := range globs {
		if neg, ok := strings.CutPrefix(g, "!"); ok {
			exclude = append(exclude, neg)
		} else {
			include = append(include, g)
		}
	}
	include, exclude = cleanGlobs(include), cleanGlobs(exclude)
	n := len(s.ws.packages)
	for _, d := range s.byBase[base] {
		rel, ok := relDir(root, d)
		if !ok || rel == "" {
			continue
		}
		if matchAny(include, rel) && !matchAny(exclude, rel) {
			s.add(d, kind)
		}
	}
	if len(s.ws.packages) > n {
		s.ws.sources = append(s.ws.sources, source)
	}
}

// relDir is d relative to root, when d is root or below it.
func relDir(root, d string) (string, bool) {
	if root == "" {
		return d, true
	}
	if d == root {
		return "", true
	}
	rel, ok := strings.CutPrefix(d, root+"/")
	return rel, ok
}

// cleanGlobs drops "./" and trailing slashes, and globs too long, too
// starry, malformed or leaving the root.
func cleanGlobs(globs []string) []string {
	var out []string
	for _, g := range globs {
		g = strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(g), "./"), "/")
		if g == "" || len(g) > maxGlobBytes || strings.Count(g, "**") > maxGlobStars || strings.HasPrefix(g, "/") ||
			g == ".." || strings.HasPrefix(g, "../") || strings.Contains(g, "/../") || !doublestar.ValidatePattern(g) {
			continue
		}
		out = append(out, g)
	}
	return out
}

func matchAny(globs []string, p string) bool {
	for _, g := range globs {
		if doublestar.MatchUnvalidated(g, p) {
			return true
		}
	}
	return false
}

// measure counts each package's staged files and tokens (a file counts
// toward every package above it), names its role group and the
// instructions' note, and ranks first-party packages first, then by
// files, then by path.
func (s *wsScan) measure(notes map[string]string) {
	if len(s.byDir) == 0 {
		return
	}
	for _, e := range s.staged {
		for d := dirOf(e.Path); d != ""; d = dirOf(d) {
			if pkg := s.byDir[d]; pkg != nil {
				pkg.files++
				pkg.tokens += int64(e.Tokens)
			}
		}
	}
	for _, p := range s.ws.packages {
		p.group = sampleGroup(p.dir)
		p.note = notes[p.dir]
	}
	sort.SliceStable(s.ws.packages, func(i, j int) bool {
		a, b := s.ws.packages[i], s.ws.packages[j]
		if (a.group == "") != (b.group == "") {
			return a.group == ""
		}
		if a.files != b.files {
			return a.files > b.files
		}
		return a.dir < b.dir
	})
}

// listsMost reports whether half or more of dirs are first-party
// workspace packages, which "Workspace packages" lists.
func (ws *mapWorkspaces) listsMost(dirs []*mapDir) bool {
	n := 0
	for _, d := range dirs {
		for _, p := range ws.packages {
			if p.dir == d.path && p.group == "" {
				n++
				break
			}
		}
	}
	return n*2 >= len(dirs)
}

// sampleGroups are directory names whose contents show, test or seed the
// code elsewhere: their files are no entry points and their packages are
// listed after the rest, grouped.
var sampleGroups = map[string]string{
	"playground": "playground", "playgrounds": "playground",
	"example": "examples", "examples": "examples", "sample": "examples", "samples": "examples", "demo": "examples", "demos": "examples",
	"test": "tests", "tests": "tests", "__tests__": "tests", "e2e": "tests", "spec": "tests", "specs": "tests",
	"fixtures": "test fixtures", "fixture": "test fixtures", "__fixtures__": "test fixtures", "testdata": "test fixtures", "__mocks__": "test fixtures",
	"templates": "templates", "template": "templates",
	"bench": "benchmarks", "benches": "benchmarks", "benchmark": "benchmarks", "benchmarks": "benchmarks",
}

// sampleGroup is the group of the first sample directory on dir's way
// down ("playground", "tests", "templates" for template-react/), or "".
func sampleGroup(dir string) string {
	for seg := range strings.SplitSeq(dir, "/") {
		seg = strings.ToLower(seg)
		if g, ok := sampleGroups[seg]; ok {
			return g
		}
		if strings.HasPrefix(seg, "template-") || strings.HasPrefix(seg, "templates-") {
			return "templates"
		}
	}
	return ""
}

// groupRoles say what each sample group is for, as a directory role.
var groupRoles = map[string]string{
	"playground": "playground (e2e tests / demo apps)", "examples": "examples", "tests": "tests",
	"test fixtures": "test fixtures", "templates": "templates shipped to users", "benchmarks": "benchmarks",
}
