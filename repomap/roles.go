package repomap

import (
	"fmt"
	"path"
	"strings"

	"github.com/go-enry/go-enry/v2"

	"github.com/repoprep/repoprep/internal/numfmt"
)

// Where tests live and what a directory is for, judged from names and
// counts alone, so the map needs no reads for them.

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
		out[fmt.Sprintf("%s %s directories", numfmt.Int(len(byDir)), mapCode(name+"/"))] = total
	}
	return rankCounts(out)
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
	"examples": "examples", "example": "examples", "samples": "examples", "sample": "examples", "demo": "examples", "demos": "examples",
	"playground": "playground (e2e tests / demo apps)", "playgrounds": "playground (e2e tests / demo apps)",
	"__fixtures__": "test fixtures", "fixture": "test fixtures", "__mocks__": "test mocks", "benches": "benchmarks", "benchmark": "benchmarks", "benchsuite": "benchmarks", "fuzz": "fuzz targets",
	"templates": "templates shipped to users", "template": "templates shipped to users",
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

// proseShare: a directory whose prose files (Markdown, reStructuredText,
// AsciiDoc, plain text) outnumber its source files this many times over is
// documentation, whatever its one Makefile or make.bat says.
const proseShare = 2

// language is a directory's main language: its top source language, or
// its top prose language when prose outweighs code (proseShare), or its
// top text language when it holds no code. A docs/ of 76 .rst files and one make.bat is
// reStructuredText, not Batchfile.
func (d *mapDir) language() string {
	src, prose := d.counts()
	langs := d.srcLangs
	switch {
	case src > 0 && prose >= proseShare*src:
		langs = map[string]int{}
		for l, n := range d.txtLangs {
			if isProse(l) {
				langs[l] = n
			}
		}
	case src == 0:
		langs = d.txtLangs
	}
	if r := rankCounts(langs); len(r) > 0 {
		return r[0].name
	}
	return ""
}

// counts returns the staged source files and prose files under d.
func (d *mapDir) counts() (src, prose int) {
	for _, n := range d.srcLangs {
		src += n
	}
	for l, n := range d.txtLangs {
		if isProse(l) {
			prose += n
		}
	}
	return src, prose
}

func isProse(lang string) bool { return enry.GetLanguageType(lang) == enry.Prose }

// dirRole infers a directory's role from its name, else from what it
// holds: its prose and code, not one stray script.
func dirRole(d *mapDir) string {
	name := strings.ToLower(path.Base(d.path))
	if r, ok := frontEndRoles[name]; ok && frontEndLangs[d.language()] {
		return r
	}
	if r, ok := dirRoles[name]; ok {
		return r
	}
	if strings.HasPrefix(name, "template-") {
		return "template shipped to users" // create-vite's template-react/
	}
	src, prose := d.counts()
	switch {
	case d.tests*10 >= d.files*6:
		return "mostly tests"
	case prose > 0 && prose >= proseShare*src && prose*2 > d.files:
		return "documentation"
	}
	return ""
}
