package repomap

import (
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/mod/modfile"
)

// The workspace kinds that need more than globs over package
// directories: Go modules, Maven's module tree and Python's layouts.

// scanGo finds a Go workspace (go.work's `use` directories) or, without
// one, a multi-module tree: two or more go.mod files outside testdata,
// vendor and the directories the go tool ignores (_x, .x).
func (s *wsScan) scanGo() {
	if data := s.read("go.work"); data != nil {
		if wf, err := modfile.ParseWork("go.work", data, nil); err == nil {
			n := len(s.ws.packages)
			for i, u := range wf.Use {
				if i == maxManifestItems {
					break
				}
				d := path.Clean(strings.TrimPrefix(u.Path, "./"))
				if d != "." && fs.ValidPath(d) && s.isStaged(d+"/go.mod") {
					s.add(d, pkgGo)
				}
			}
			if len(s.ws.packages) > n {
				s.ws.sources = append(s.ws.sources, "Go workspace (`go.work`)")
			}
			return
		}
	}
	var mods []string
	for _, d := range s.byBase["go.mod"] {
		if !isGoIgnoredDir(d) {
			mods = append(mods, d)
		}
	}
	if len(mods) < 2 {
		return
	}
	n := len(s.ws.packages)
	for _, d := range mods {
		s.add(d, pkgGo)
	}
	if len(s.ws.packages) > n {
		s.ws.sources = append(s.ws.sources, "Go modules ("+strconv.Itoa(len(mods))+" `go.mod`)")
	}
}

// isGoIgnoredDir: the go tool skips testdata, vendor and directories
// starting with "_" or "."; modules there are fixtures, not the tree's.
func isGoIgnoredDir(d string) bool {
	for seg := range strings.SplitSeq(d, "/") {
		if seg == "testdata" || seg == "vendor" || strings.HasPrefix(seg, "_") || strings.HasPrefix(seg, ".") {
			return true
		}
	}
	return false
}

// scanMaven follows <modules> from root's pom.xml down to maxModuleDepth.
func (s *wsScan) scanMaven(root string) {
	type item struct {
		dir   string
		depth int
	}
	if !s.isKnown(joinDir(root, "pom.xml")) {
		return
	}
	n := len(s.ws.packages)
	seen := map[string]bool{root: true}
	queue := []item{{root, 0}}
	for len(queue) > 0 {
		it := queue[0]
		queue = queue[1:]
		pom, ok := parsePom(s.read(joinDir(it.dir, "pom.xml")))
		if it.dir != root {
			if p := s.add(it.dir, pkgMaven); p != nil && ok && pom.artifactID != path.Base(it.dir) {
				p.name = pom.artifactID
			}
		}
		if it.depth == maxModuleDepth {
			continue
		}
		for _, mod := range pom.modules {
			mod = strings.TrimSuffix(mod, "/pom.xml")
			d := path.Clean(joinDir(it.dir, mod))
			if d == "." || !fs.ValidPath(d) || seen[d] || !s.isKnown(d+"/pom.xml") {
				continue
			}
			seen[d] = true
			queue = append(queue, item{d, it.depth + 1})
		}
	}
	if len(s.ws.packages) > n {
		s.ws.sources = append(s.ws.sources, "Maven modules ("+mapCode(joinDir(root, "pom.xml"))+")")
	}
}

// scanPython finds the packages of a Python project at root: a src
// layout's src/<pkg>/__init__.py, the flat package named after the
// project, and uv workspace members.
func (s *wsScan) scanPython(root string) {
	manifest := ""
	for _, base := range []string{"pyproject.toml", "setup.py", "setup.cfg"} {
		if s.isKnown(joinDir(root, base)) {
			manifest = base
			break
		}
	}
	if manifest == "" {
		return
	}
	py, _ := s.py(joinDir(root, "pyproject.toml"))
	if len(py.members) > 0 {
		s.addMatches(root, py.members, py.exclude, "pyproject.toml", pkgUV, "uv workspace ("+mapCode(joinDir(root, "pyproject.toml"))+")")
	}
	n := len(s.ws.packages)
	src := joinDir(root, "src")
	i := sort.SearchStrings(s.pyInits, src+"/")
	for ; i < len(s.pyInits) && strings.HasPrefix(s.pyInits[i], src+"/"); i++ {
		if d := s.pyInits[i]; path.Dir(d) == src {
			s.add(d, pkgPython)
		}
		if len(s.ws.packages)-n == maxManifestItems {
			break
		}
	}
	layout := "Python src layout"
	if len(s.ws.packages) == n && py.name != "" {
		flat := joinDir(root, strings.ToLower(strings.NewReplacer("-", "_", ".", "_").Replace(py.name)))
		if s.isKnown(flat + "/__init__.py") {
			s.add(flat, pkgPython)
			layout = "Python package"
		}
	}
	if len(s.ws.packages) > n {
		s.ws.sources = append(s.ws.sources, layout+" ("+mapCode(joinDir(root, manifest))+")")
	}
}
