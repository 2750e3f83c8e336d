package repomap

import (
	"encoding/json"
	"go/ast"
	"go/build/constraint"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"golang.org/x/mod/modfile"

	"github.com/repoprep/repoprep/instructions"
	"github.com/repoprep/repoprep/snapshot"
)

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
	cmds  map[string]string // package.json: what each script runs ("vite build")
}

// mapAgent is one agent instruction file found in the manifest.
type mapAgent struct {
	path   string
	chars  int
	staged bool
	reason string
	source string    // the staged file holding its text when that is another (a symlink's target)
	roles  []dirNote // directories its text describes ("- `playground/`: E2E tests")
}

// isAgentFile reports whether p is an instruction file coding agents read
// on their own, as instructions.json counts them: CLAUDE.md,
// CLAUDE.local.md, AGENTS.md, .cursorrules, .cursor/rules/*.mdc, Copilot's
// instructions and .claude/rules/. The map listed fewer than the index
// held (maybe's nine .cursor/rules went unmentioned).
func isAgentFile(p string) bool {
	_, _, _, ok := instructions.Classify(p) // the files instructions.json indexes
	return ok
}

// readAgentFile measures an instruction file in characters from its
// staged copy, or in bytes from the manifest when there is none. An
// unstaged one (AGENTS.md as a symlink to CLAUDE.md, a duplicate) is
// measured through the staged file resolve finds for it inside the snapshot.
func readAgentFile(e *snapshot.Entry, tree fs.FS, resolve func(string) string) mapAgent {
	a := mapAgent{path: e.Path, chars: int(e.Size), staged: e.Staged, reason: e.Reason}
	name := e.Path
	if !e.Staged {
		if name = resolve(e.Path); name == "" {
			return a
		}
		a.staged, a.source = true, name
	}
	if tree == nil {
		return a
	}
	data, err := readStagedHead(tree, name, mapAgentBytes)
	if err != nil {
		return a
	}
	a.chars = utf8.RuneCount(data) // the staged copy is UTF-8
	a.roles = parseAgentRoles(data, agentScope(e.Path))
	return a
}

// readStagedHead reads at most limit bytes of a staged file.
func readStagedHead(tree fs.FS, name string, limit int64) ([]byte, error) {
	return readStagedInto(tree, name, limit, nil)
}

// readStagedInto is readStagedHead reading into buf's array when it holds
// the head: the first mapHeadBytes in one read, not ReadAll's doubling
// from 512 bytes (a read and an allocation at each step), and the rest,
// if limit allows more, as ReadAll does.
func readStagedInto(tree fs.FS, name string, limit int64, buf []byte) ([]byte, error) {
	if tree == nil || !fs.ValidPath(name) {
		return nil, fs.ErrInvalid
	}
	file, err := tree.Open(name)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	first := int(min(limit, mapHeadBytes))
	if cap(buf) < first {
		buf = make([]byte, first)
	}
	n, err := io.ReadFull(file, buf[:first])
	switch {
	case err == io.EOF || err == io.ErrUnexpectedEOF:
		return buf[:n], nil
	case err != nil:
		return nil, err
	case int64(n) == limit:
		return buf[:n], nil
	}
	rest, err := io.ReadAll(io.LimitReader(file, limit-int64(n)))
	return append(buf[:n:n], rest...), err
}

// projectKind names what the root holds a manifest for: a Go module, a
// Rails application or Ruby project, an npm package, a PHP package, a
// Python project, a Rust crate, a Maven or Gradle project. A Rails or PHP
// application has a package.json for its assets too: both are named, the
// npm package last.
func projectKind(staged []*snapshot.Entry, tree fs.FS) string {
	var kinds []string
	npm := ""
	for _, e := range staged {
		switch e.Path {
		case "Gemfile":
			if slices.ContainsFunc(staged, func(e *snapshot.Entry) bool { return e.Path == "config/application.rb" }) {
				kinds = append(kinds, "Rails application")
			} else {
				kinds = append(kinds, "Ruby project")
			}
		case "composer.json":
			kind := "PHP package"
			var pkg struct{ Name string }
			if data, err := readStagedHead(tree, e.Path, mapConfigBytes); err == nil && json.Unmarshal(data, &pkg) == nil && pkg.Name != "" {
				kind += " " + mapCode(pkg.Name)
			}
			kinds = append(kinds, kind)
		case "pom.xml":
			kinds = append(kinds, "Maven project")
		case "build.gradle", "build.gradle.kts":
			kinds = append(kinds, "Gradle project")
		case "go.mod":
			kind := "Go module"
			if head, err := readStagedHead(tree, e.Path, mapHeadBytes); err == nil {
				if mod := modfile.ModulePath(head); mod != "" {
					kind += " " + mapCode(mod)
				}
			}
			kinds = append(kinds, kind)
		case "package.json":
			npm = "npm package"
			var pkg struct{ Name string }
			if data, err := readStagedHead(tree, e.Path, mapConfigBytes); err == nil && json.Unmarshal(data, &pkg) == nil && pkg.Name != "" {
				npm += " " + mapCode(pkg.Name)
			}
		case "pyproject.toml", "setup.py":
			if !slices.Contains(kinds, "Python project") {
				kinds = append(kinds, "Python project")
			}
		case "Cargo.toml":
			kinds = append(kinds, "Rust crate")
		}
	}
	if npm != "" {
		kinds = append(kinds, npm)
	}
	return strings.Join(kinds, "; ")
}

// findEntryPoints collects where a reader would start: Go main packages,
// main files, package.json scripts, Dockerfiles and Makefile targets.
// Those under examples, tests, fixtures and templates (sampleGroup) come
// last, and Go main packages and main files there are listed only when
// the manifests declare no entry point and no other is found: vite's 50
// playground/*/main.js hid its CLI.
func (f *mapFacts) findEntryPoints(staged []*snapshot.Entry, dirs map[string]*mapDir, tree fs.FS) {
	goFiles := map[string][]string{} // dir → its non-test Go files, in manifest order
	var sampleMains []string
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
		case depth == 0 && rootScriptExts[path.Ext(base)]:
			f.rootScripts = append(f.rootScripts, p)
		case mainFileNames[base] && depth <= 3 && (!strings.HasPrefix(base, "index.") || indexDirs[path.Base(path.Dir(p))]):
			if sampleGroup(dirOf(p)) != "" {
				sampleMains = append(sampleMains, p)
			} else {
				f.mainFiles = append(f.mainFiles, p)
			}
		case base == "package.json" && depth <= 3:
			f.scripts = append(f.scripts, mapScripts{path: p})
		case (strings.HasPrefix(base, "Dockerfile") || strings.HasSuffix(base, ".Dockerfile") || composeFileNames[base]) && depth <= 3:
			f.docker = append(f.docker, p)
		case makeFileNames[base] && depth <= 2:
			f.makeTargets = append(f.makeTargets, mapScripts{path: p})
		}
	}
	var sampleGoMains []string
	for _, dir := range goMainDirs(goFiles, dirs, tree) {
		if sampleGroup(dir) != "" {
			sampleGoMains = append(sampleGoMains, dir)
		} else {
			f.goMains = append(f.goMains, dir)
		}
	}
	if d := &f.ws.declared; d.empty() && len(f.goMains)+len(f.mainFiles) == 0 {
		// Nothing else: the examples are where to start.
		d.commands, d.libs = d.sampleCommands, d.sampleLibs
		f.goMains, f.mainFiles = sampleGoMains, sampleMains
	}
	// A main file a manifest declares is listed there, once.
	f.mainFiles = slices.DeleteFunc(f.mainFiles, f.ws.declared.has)
	f.rootScripts = rankRootScripts(f.rootScripts)
	byPlace(f.mainFiles)
	byPlace(f.docker)
	scriptsByPlace(f.scripts)
	scriptsByPlace(f.makeTargets)
	if tree == nil {
		return
	}
	// Only the first few build files are shown (renderEntryPoints): read
	// those, not every package.json of a monorepo.
	for i := range f.scripts[:min(len(f.scripts), mapScriptsRead)] {
		f.scripts[i].names, f.scripts[i].cmds = packageScripts(tree, f.scripts[i].path)
	}
	for i := range f.makeTargets[:min(len(f.makeTargets), mapScriptsRead)] {
		if path.Base(f.makeTargets[i].path) != "Taskfile.yml" {
			f.makeTargets[i].names = makeTargets(tree, f.makeTargets[i].path)
		}
	}
}

// mapScriptsRead is how many package.json files and Makefiles the map
// reads for their scripts and targets: more than any level shows.
const mapScriptsRead = 4

// placeRank orders paths outside sample directories first, then by depth.
func placeRank(p string) int {
	r := strings.Count(p, "/")
	if sampleGroup(dirOf(p)) != "" {
		r += 1 << 16
	}
	return r
}

func byPlace(ps []string) {
	sort.SliceStable(ps, func(i, j int) bool { return placeRank(ps[i]) < placeRank(ps[j]) })
}

func scriptsByPlace(list []mapScripts) {
	sort.SliceStable(list, func(i, j int) bool { return placeRank(list[i].path) < placeRank(list[j].path) })
}

var (
	mainFileNames = map[string]bool{
		"main.py": true, "__main__.py": true, "manage.py": true, "app.py": true, "wsgi.py": true, "asgi.py": true,
		"index.js": true, "index.ts": true, "index.tsx": true, "index.jsx": true, "index.mjs": true,
		"main.js": true, "main.ts": true, "main.tsx": true, "main.jsx": true, "server.js": true, "server.ts": true,
		"main.rs": true, "main.c": true, "main.cc": true, "main.cpp": true, "Main.java": true, "Program.cs": true,
		"config.ru": true, "artisan": true, "index.php": true, // Rack (Rails, Sinatra), Laravel, PHP's front controller
	}
	// index.js and friends are entry points only at a package's root, not
	// in every component folder.
	indexDirs = map[string]bool{".": true, "src": true, "app": true, "lib": true, "server": true, "client": true, "web": true, "frontend": true, "backend": true, "public": true}
	// rootScriptExts are shell and batch scripts; at the root they are often
	// how a project builds (GOROOT's src has make.bash, all.bash, run.bash
	// and no Makefile).
	rootScriptExts = map[string]bool{".sh": true, ".bash": true, ".zsh": true, ".bat": true, ".cmd": true, ".ps1": true}
	// rootScriptNames rank the usual first commands ahead of the rest.
	rootScriptNames  = map[string]int{"make": 1, "build": 2, "all": 3, "run": 4, "install": 5, "setup": 6, "bootstrap": 7, "start": 8, "dev": 9, "test": 10}
	composeFileNames = map[string]bool{"docker-compose.yml": true, "docker-compose.yaml": true, "compose.yml": true, "compose.yaml": true}
	makeFileNames    = map[string]bool{"Makefile": true, "makefile": true, "GNUmakefile": true, "justfile": true, "Taskfile.yml": true}
)

// rankRootScripts orders root scripts by rootScriptNames, then by name, and
// drops a Windows script (.bat, .cmd, .ps1) whose stem also has a POSIX
// shell script: make.bat says nothing make.bash does not.
func rankRootScripts(ps []string) []string {
	stem := func(p string) string { return strings.TrimSuffix(p, path.Ext(p)) }
	posix := map[string]bool{}
	for _, p := range ps {
		switch path.Ext(p) {
		case ".sh", ".bash", ".zsh":
			posix[stem(p)] = true
		}
	}
	var out []string
	for _, p := range ps {
		switch path.Ext(p) {
		case ".bat", ".cmd", ".ps1":
			if posix[stem(p)] {
				continue
			}
		}
		out = append(out, p)
	}
	rank := func(p string) int {
		if r, ok := rootScriptNames[strings.ToLower(stem(p))]; ok {
			return r
		}
		return len(rootScriptNames) + 1
	}
	sort.SliceStable(out, func(i, j int) bool {
		if ri, rj := rank(out[i]), rank(out[j]); ri != rj {
			return ri < rj
		}
		return out[i] < out[j]
	})
	return out
}

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

// headBufs hold the heads isGoMain parses: the parsed file keeps no
// reference to its source.
var headBufs = sync.Pool{New: func() any { b := make([]byte, mapHeadBytes); return &b }}

func isGoMain(files []string, tree fs.FS) bool {
	if tree == nil {
		return slices.ContainsFunc(files, func(p string) bool { return path.Base(p) == "main.go" })
	}
	buf := headBufs.Get().(*[]byte)
	defer headBufs.Put(buf)
	for _, p := range files {
		head, err := readStagedInto(tree, p, mapHeadBytes, *buf)
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

// packageScripts lists a package.json's script names, the usual ones
// first, and the command each runs.
func packageScripts(tree fs.FS, p string) (names []string, cmds map[string]string) {
	data, err := readStagedHead(tree, p, mapConfigBytes)
	if err != nil {
		return nil, nil
	}
	pkg, ok := parsePackageJSON(data)
	if !ok {
		return nil, nil
	}
	return pkg.scripts, pkg.cmds
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
