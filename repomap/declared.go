package repomap

import (
	"io/fs"
	"path"
	"slices"
	"sort"
	"strings"

	"golang.org/x/mod/modfile"
)

// Entry points the manifests declare: commands (package.json `bin`,
// pyproject scripts, Cargo's [[bin]], src/main.rs and src/bin/) and
// library entries (package.json `exports["."]` or `main`, Cargo's lib, a
// Python package's __init__.py), of the root and of each workspace
// package. They rank above the entry points the map guesses from names.

// mapDeclared is one staged file a manifest declares as an entry point.
type mapDeclared struct {
	path  string
	names []string // the commands it runs as; none for a library entry
}

// mapDeclaredSet holds the declared entry points, in the order of the
// packages that declare them (the root first). Those under examples,
// tests, fixtures or templates are kept apart: they are shown only when
// nothing else is.
type mapDeclaredSet struct {
	commands, libs             []mapDeclared
	sampleCommands, sampleLibs []mapDeclared
}

func (d *mapDeclaredSet) empty() bool { return len(d.commands)+len(d.libs) == 0 }

// has reports whether file is a declared command or library entry.
func (d *mapDeclaredSet) has(file string) bool {
	is := func(e mapDeclared) bool { return e.path == file }
	return slices.ContainsFunc(d.commands, is) || slices.ContainsFunc(d.libs, is)
}

// add records file as a command named name, or a library entry when
// name is "", merging a file declared twice.
func (d *mapDeclaredSet) add(file, name string) {
	list := &d.libs
	switch sample := sampleGroup(dirOf(file)) != ""; {
	case name != "" && sample:
		list = &d.sampleCommands
	case name != "":
		list = &d.commands
	case sample:
		list = &d.sampleLibs
	}
	for i := range *list {
		if e := &(*list)[i]; e.path == file {
			if name != "" && !slices.Contains(e.names, name) && len(e.names) < maxManifestItems {
				e.names = append(e.names, name)
			}
			return
		}
	}
	if len(*list) == maxManifestItems {
		return
	}
	var names []string
	if name != "" {
		names = []string{name}
	}
	*list = append(*list, mapDeclared{path: file, names: names})
}

// gatherDeclared reads the entry points the roots and the first-party
// packages declare, then, only when they declare none, those of the
// packages under examples and tests.
func (s *wsScan) gatherDeclared(roots []string) mapDeclaredSet {
	var d mapDeclaredSet
	for _, r := range roots {
		s.declareNpm(&d, r, nil)
		if c, ok := s.cargo(joinDir(r, "Cargo.toml")); ok && c.isPackage {
			s.declareCargo(&d, r, c)
		}
		s.declarePython(&d, r, nil)
	}
	for _, sample := range []bool{false, true} {
		if sample && !d.empty() {
			break
		}
		for _, p := range s.ws.packages {
			if (p.group != "") == sample {
				s.declarePackage(&d, p)
			}
		}
	}
	return d
}

// declarePackage reads one workspace package's manifest for its name
// and entry points.
func (s *wsScan) declarePackage(d *mapDeclaredSet, p *mapPackage) {
	switch p.kind {
	case pkgNpm:
		s.declareNpm(d, p.dir, p)
	case pkgCargo:
		if c, ok := s.cargo(p.dir + "/Cargo.toml"); ok {
			p.setName(c.name)
			s.declareCargo(d, p.dir, c)
		}
	case pkgUV:
		s.declarePython(d, p.dir, p)
	case pkgPython:
		if init := p.dir + "/__init__.py"; s.isStaged(init) {
			d.add(init, "")
		}
	case pkgGo:
		if head := s.readHead(p.dir+"/go.mod", mapHeadBytes); head != nil {
			p.setName(modfile.ModulePath(head))
		}
	}
}

// setName keeps a manifest's name for p unless it only repeats the
// directory's.
func (p *mapPackage) setName(name string) {
	if p != nil && name != "" && name != path.Base(p.dir) && p.name == "" {
		p.name = name
	}
}

func (s *wsScan) declareNpm(d *mapDeclaredSet, dir string, p *mapPackage) {
	pj := s.npm(joinDir(dir, "package.json"))
	if pj == nil {
		return
	}
	p.setName(pj.name)
	for _, b := range pj.bins {
		if f := s.resolveJS(dir, b.target); f != "" {
			d.add(f, b.name)
		}
	}
	if f := s.resolveJS(dir, pj.lib); f != "" && pj.lib != "" {
		d.add(f, "")
	}
}

// jsBuildDirs are where packages put built code that their manifests
// point at; the source usually sits in src/ under the same name.
var jsBuildDirs = map[string]bool{"dist": true, "build": true, "out": true, "lib": true, "esm": true, "cjs": true}

var jsSourceExts = []string{".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs"}

// resolveJS finds the staged file a package.json path names, or, when it
// names built output that is not in the repository (dist/node/index.js),
// the source it is built from (src/node/index.ts). "" when neither is
// staged.
func (s *wsScan) resolveJS(dir, target string) string {
	rel := path.Clean(strings.TrimPrefix(strings.TrimSpace(target), "./"))
	if rel == "." || !fs.ValidPath(rel) {
		return ""
	}
	if p := joinDir(dir, rel); s.isStaged(p) {
		return p
	}
	ext := path.Ext(rel)
	switch ext {
	case ".js", ".mjs", ".cjs", ".jsx", ".ts":
	default:
		return ""
	}
	stem := strings.TrimSuffix(strings.TrimSuffix(rel, ext), ".d")
	stems := []string{stem}
	if first, rest, ok := strings.Cut(stem, "/"); ok && jsBuildDirs[first] {
		stems = []string{"src/" + rest, rest, stem}
	}
	for _, st := range stems {
		for _, x := range jsSourceExts {
			if p := joinDir(dir, st+x); s.isStaged(p) {
				return p
			}
		}
	}
	return ""
}

// cargo parses a Cargo.toml once.
func (s *wsScan) cargo(p string) (cargoManifest, bool) {
	if c, ok := s.cargoSeen[p]; ok {
		return c, c.parsed
	}
	c, ok := parseCargoToml(s.read(p))
	c.parsed = ok
	s.cargoSeen[p] = c
	return c, ok
}

// declareCargo adds a crate's commands, as Cargo finds them: [[bin]]
// targets (path, or src/bin/<name>.rs, or src/main.rs for the package's
// own name), src/main.rs and src/bin/ unless autobins is off; and its
// library, [lib] path or src/lib.rs.
func (s *wsScan) declareCargo(d *mapDeclaredSet, dir string, c cargoManifest) {
	staged := func(rel string) string {
		p := path.Clean(joinDir(dir, rel))
		if fs.ValidPath(p) && s.isStaged(p) {
			return p
		}
		return ""
	}
	for _, b := range c.bins {
		name := b.name
		if name == "" {
			name = strings.TrimSuffix(path.Base(b.target), ".rs")
		}
		var f string
		switch {
		case b.target != "":
			f = staged(b.target)
		default:
			f = cmpOr(staged("src/bin/"+name+".rs"), staged("src/bin/"+name+"/main.rs"))
			if f == "" && name == c.name {
				f = staged("src/main.rs")
			}
		}
		if f != "" {
			d.add(f, name)
		}
	}
	if c.autobins {
		if f := staged("src/main.rs"); f != "" && c.name != "" {
			d.add(f, c.name)
		}
		prefix := joinDir(dir, "src/bin/")
		n := 0
		for i := sort.SearchStrings(s.paths, prefix); i < len(s.paths) && strings.HasPrefix(s.paths[i], prefix) && n < maxManifestItems; i++ {
			rest := strings.TrimPrefix(s.paths[i], prefix)
			switch first, sub, nested := strings.Cut(rest, "/"); {
			case !nested && strings.HasSuffix(rest, ".rs"):
				d.add(s.paths[i], strings.TrimSuffix(rest, ".rs"))
				n++
			case nested && sub == "main.rs":
				d.add(s.paths[i], first)
				n++
			}
		}
	}
	if f := staged(cmpOr(c.lib, "src/lib.rs")); f != "" {
		d.add(f, "")
	}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// declarePython adds a pyproject.toml's scripts, each as the file of
// the module it calls, looked for below dir and dir/src.
func (s *wsScan) declarePython(d *mapDeclaredSet, dir string, p *mapPackage) {
	py, ok := s.py(joinDir(dir, "pyproject.toml"))
	if !ok {
		return
	}
	p.setName(py.name)
	for _, b := range py.bins {
		for _, f := range pyModuleFiles(dir, b.target) {
			if s.isStaged(f) {
				d.add(f, b.name)
				break
			}
		}
	}
}

// py parses a pyproject.toml once.
func (s *wsScan) py(p string) (pyManifest, bool) {
	if m, ok := s.pySeen[p]; ok {
		return m, m.parsed
	}
	m, ok := parsePyproject(s.read(p))
	m.parsed = ok
	s.pySeen[p] = m
	return m, ok
}

// readHead reads the head of a staged file within the read budget.
func (s *wsScan) readHead(p string, limit int64) []byte {
	if s.tree == nil || !s.isStaged(p) || s.reads >= maxManifestReads {
		return nil
	}
	s.reads++
	data, err := readStagedHead(s.tree, p, limit)
	if err != nil {
		return nil
	}
	return data
}
