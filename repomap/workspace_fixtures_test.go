package repomap

import (
	"fmt"
	"path"
	"strings"
	"testing/fstest"

	"github.com/repoprep/repoprep/snapshot"
	"github.com/repoprep/repoprep/snapshot/snapshottest"
)

// Monorepo fixtures: one small synthetic tree per workspace kind, each
// with the entry points its manifests declare. The trees mirror what the
// map got wrong on real ones: vite's CLI hidden behind 50
// playground/*/main.js, playground/ without a role, a one-line SVG
// recommended for reading by range.

// monoEntries is stagedEntries for the languages these fixtures use.
func monoEntries(tree fstest.MapFS) []snapshot.Entry {
	files := stagedEntries(tree)
	langs := map[string]string{".js": "JavaScript", ".mjs": "JavaScript", ".rs": "Rust", ".java": "Java", ".kt": "Kotlin", ".kts": "Kotlin"}
	for i := range files {
		e := &files[i]
		if lang, ok := langs[path.Ext(e.Path)]; ok {
			e.Category, e.Language = "source", lang
		}
		switch path.Ext(e.Path) {
		case ".svg":
			e.Language = "SVG"
		case ".xml":
			e.Language = "XML"
		}
	}
	return files
}

func data(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s)} }

// oneLineSVG is a drawing written as one line of path data, as vite's
// docs/images/vite-environments.svg is.
func oneLineSVG(n int) string {
	var b strings.Builder
	b.WriteString(`<svg xmlns="http://www.w3.org/2000/svg">`)
	for i := range n {
		fmt.Fprintf(&b, `<path d="M%d %d L%d %d Z" fill="#%06x"/>`, i, i*7%97, i*3%89, i*11%83, i*2654435761%0xffffff)
	}
	b.WriteString("</svg>")
	return b.String()
}

// pnpmFixture is vite in small: a pnpm workspace with a CLI package, a
// scaffolding package with templates, a plugin built from src/, a docs
// package, a playground of e2e apps with their own main.js, and a big
// one-line SVG.
func pnpmFixture() (*snapshot.Manifest, fstest.MapFS) {
	tree := fstest.MapFS{
		"package.json":        data(`{"name": "@acme/monorepo", "private": true, "scripts": {"build": "pnpm -r build", "test": "vitest run"}}`),
		"pnpm-workspace.yaml": data("packages:\n  - 'packages/*'\n  - 'playground/**'\n  - '!**/fixtures/**'\n  - docs\n"),
		"README.md":           data("# acme\n"),
		".github/copilot-instructions.md": data("## Repository Structure\n\n- `docs/`: Documentation\n" +
			"- `packages/create-acme`: The source code for the `create-acme` command\n- `playground/`: E2E tests\n"),
		"packages/acme/package.json": data(`{"name": "acme", "bin": {"acme": "bin/acme.js"},
			"exports": {".": {"types": "./dist/node/index.d.ts", "import": "./dist/node/index.js"}, "./client": "./client.d.ts"},
			"scripts": {"build": "tsdown"}}`),
		"packages/acme/bin/acme.js":                          data("#!/usr/bin/env node\nimport('../dist/node/cli.js')\n"),
		"packages/acme/src/node/index.ts":                    data("export * from './server'\n"),
		"packages/acme/src/node/server.ts":                   data("export function serve() {}\n"),
		"packages/acme/src/node/cli.ts":                      data("import { serve } from './server'\nserve()\n"),
		"packages/acme/src/node/__tests__/cli.spec.ts":       data("test('cli', () => {})\n"),
		"packages/acme/CHANGELOG.md":                         data(strings.Repeat("## 1.0.0\n\n- Fixed the dev server.\n\n", 60)),
		"packages/create-acme/package.json":                  data(`{"name": "create-acme", "bin": "index.js"}`),
		"packages/create-acme/index.js":                      data("import './dist/index.js'\n"),
		"packages/create-acme/src/index.ts":                  data("console.log('scaffold')\n"),
		"packages/create-acme/template-react/package.json":   data(`{"name": "acme-react-starter", "private": true}`),
		"packages/create-acme/template-react/src/main.tsx":   data("import App from './App'\n"),
		"packages/create-acme/template-react/.vscode/x.json": data("{}\n"),
		"packages/plugin-legacy/package.json":                data(`{"name": "@acme/plugin-legacy", "main": "./dist/index.cjs", "exports": "./dist/index.mjs"}`),
		"packages/plugin-legacy/src/index.ts":                data("export default function legacy() {}\n"),
		"playground/package.json":                            data(`{"name": "@acme/playground", "private": true}`),
		"playground/css/package.json":                        data(`{"name": "@acme/test-css", "scripts": {"dev": "acme"}}`),
		"playground/css/main.js":                             data("import './style.css'\n"),
		"playground/css/index.html":                          data("<script type=module src=./main.js></script>\n"),
		"playground/hmr/package.json":                        data(`{"name": "@acme/test-hmr", "bin": "cli.js"}`),
		"playground/hmr/main.js":                             data("import.meta.hot.accept()\n"),
		"playground/hmr/cli.js":                              data("console.log('hmr')\n"),
		"playground/ssr/package.json":                        data(`{"name": "@acme/test-ssr"}`),
		"playground/ssr/server.js":                           data("export default {}\n"),
		"playground/ssr/fixtures/dep/package.json":           data(`{"name": "dep"}`),
		"playground/ssr/fixtures/dep/index.js":               data("export default 1\n"),
		"docs/package.json":                                  data(`{"name": "@acme/docs", "scripts": {"docs": "vitepress dev"}}`),
		"docs/guide/index.md":                                data("# Guide\n\nStart here.\n"),
		"docs/images/environments.svg":                       data(oneLineSVG(400)),
	}
	files := monoEntries(tree)
	files = append(files, snapshot.Entry{Path: "pnpm-lock.yaml", Size: 400 << 10, Category: "junk", Reason: "lockfile"})
	return snapshottest.NewManifest(files, []snapshot.Pruned{{Path: ".git", Reason: "excluded-dir"}, {Path: "node_modules", Reason: "excluded-dir"}}), tree
}

// yarnFixture: Yarn classic's object form of `workspaces`, a scoped
// package whose one `bin` is named after it without the scope, and a
// `main` that is staged as written.
func yarnFixture() (*snapshot.Manifest, fstest.MapFS) {
	tree := fstest.MapFS{
		"package.json":               data(`{"name": "shop", "private": true, "workspaces": {"packages": ["packages/*", "apps/web"], "nohoist": ["**/x"]}}`),
		"packages/cli/package.json":  data(`{"name": "@shop/cli", "bin": "./cli.mjs"}`),
		"packages/cli/cli.mjs":       data("#!/usr/bin/env node\n"),
		"packages/core/package.json": data(`{"name": "@shop/core", "main": "lib/index.js"}`),
		"packages/core/lib/index.js": data("module.exports = {}\n"),
		"apps/web/package.json":      data(`{"name": "web", "scripts": {"dev": "next dev"}}`),
		"apps/web/pages/index.js":    data("export default () => null\n"),
		"apps/admin/package.json":    data(`{"name": "admin"}`),
		"apps/admin/src/index.js":    data("export {}\n"),
	}
	files := append(monoEntries(tree), snapshot.Entry{Path: "yarn.lock", Size: 90 << 10, Category: "junk", Reason: "lockfile"})
	return snapshottest.NewManifest(files, nil), tree
}

// cargoFixture is ripgrep in small: a root crate whose [[bin]] lives in
// crates/core, a `crates/*` workspace with an exclusion, a crate with a
// [lib] path, a named [[bin]] in src/bin/ and an automatic src/bin/x/main.rs.
func cargoFixture() (*snapshot.Manifest, fstest.MapFS) {
	tree := fstest.MapFS{
		"Cargo.toml": data("[package]\nname = \"rgx\"\nversion = \"1.0.0\"\nedition.workspace = true\n\n" +
			"[[bin]]\nbench = false\npath = \"crates/core/main.rs\"\nname = \"rgx\"\n\n" +
			"[workspace]\nmembers = [\n  \"crates/*\",\n]\nexclude = [\"crates/fuzz\"]\n"),
		"crates/core/main.rs":              data("fn main() {}\n"),
		"crates/core/flags.rs":             data("pub struct Flags;\n"),
		"crates/matcher/Cargo.toml":        data("[package]\nname = \"rgx-matcher\"\n"),
		"crates/matcher/src/lib.rs":        data("pub trait Matcher {}\n"),
		"crates/cli/Cargo.toml":            data("[package]\nname = \"cli\"\n\n[lib]\npath = \"lib.rs\"\n\n[[bin]]\nname = \"rgx-tool\"\n"),
		"crates/cli/lib.rs":                data("pub fn run() {}\n"),
		"crates/cli/src/bin/rgx-tool.rs":   data("fn main() {}\n"),
		"crates/cli/src/bin/extra/main.rs": data("fn main() {}\n"),
		"crates/fuzz/Cargo.toml":           data("[package]\nname = \"rgx-fuzz\"\n"),
		"crates/fuzz/fuzz_targets/glob.rs": data("fn main() {}\n"),
		"tests/tests.rs":                   data("#[test]\nfn t() {}\n"),
	}
	return snapshottest.NewManifest(monoEntries(tree), nil), tree
}

// goFixture: a Go tree of three modules (a fourth under testdata is a
// fixture), with mains in cmd/ and in examples/.
func goFixture() (*snapshot.Manifest, fstest.MapFS) {
	tree := fstest.MapFS{
		"go.mod":                         data("module example.com/app\n\ngo 1.26\n"),
		"cmd/app/main.go":                data("package main\n\nfunc main() {}\n"),
		"app.go":                         data("package app\n"),
		"api/go.mod":                     data("module example.com/api\n"),
		"api/api.go":                     data("package api\n"),
		"contrib/otel/go.mod":            data("module example.com/app/contrib/otel\n"),
		"contrib/otel/otel.go":           data("package otel\n"),
		"tools/gen/main.go":              data("package main\n\nfunc main() {}\n"),
		"internal/testdata/mod/go.mod":   data("module example.com/fixture\n"),
		"examples/hello/main.go":         data("package main\n\nfunc main() {}\n"),
		"internal/store/store.go":        data("package store\n"),
		"internal/store/testdata/x.json": data("{}\n"),
	}
	return snapshottest.NewManifest(monoEntries(tree), nil), tree
}

// mavenFixture: a parent pom, modules, a module with modules of its own,
// and a module path that leaves the tree.
func mavenFixture() (*snapshot.Manifest, fstest.MapFS) {
	pom := func(id, modules string) *fstest.MapFile {
		return data(`<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
	<artifactId>` + id + `</artifactId>
	<modules>` + modules + `</modules>
	<dependencies><dependency><artifactId>junit</artifactId></dependency></dependencies>
</project>
`)
	}
	tree := fstest.MapFS{
		"pom.xml":           pom("acme-parent", "<module>acme-core</module><module>acme-web</module><module>../outside</module><module>missing</module>"),
		"acme-core/pom.xml": pom("acme-core", ""),
		"acme-core/src/main/java/com/acme/Core.java":     data("package com.acme;\npublic class Core {}\n"),
		"acme-core/src/test/java/com/acme/CoreTest.java": data("package com.acme;\nclass CoreTest {}\n"),
		"acme-web/pom.xml":                         pom("web", "<module>web-api</module>"),
		"acme-web/src/main/java/com/acme/App.java": data("package com.acme;\npublic class App {}\n"),
		"acme-web/web-api/pom.xml":                 pom("acme-web-api", ""),
		"acme-web/web-api/src/main/java/Api.java":  data("public class Api {}\n"),
		"missing/README.md":                        data("# not a module: no pom.xml\n"),
	}
	return snapshottest.NewManifest(monoEntries(tree), nil), tree
}

// gradleFixture: Kotlin DSL settings with a nested project path, a
// commented-out include, an include spread over lines and includeBuild.
func gradleFixture() (*snapshot.Manifest, fstest.MapFS) {
	tree := fstest.MapFS{
		"settings.gradle.kts": data("rootProject.name = \"shop\"\ninclude(\":app\", \":lib:core\")\n// include(\":old\")\n" +
			"include(\n    \":tools\",\n)\nincludeBuild(\"build-logic\")\n"),
		"build.gradle.kts":                      data("plugins { java }\n"),
		"app/build.gradle.kts":                  data("plugins { application }\n"),
		"app/src/main/kotlin/Main.kt":           data("fun main() {}\n"),
		"lib/core/build.gradle.kts":             data("plugins { `java-library` }\n"),
		"lib/core/src/main/kotlin/Core.kt":      data("class Core\n"),
		"tools/build.gradle.kts":                data("\n"),
		"tools/src/main/kotlin/Tool.kt":         data("class Tool\n"),
		"old/build.gradle.kts":                  data("\n"),
		"build-logic/build.gradle.kts":          data("\n"),
		"build-logic/src/main/kotlin/Plugin.kt": data("class Plugin\n"),
	}
	return snapshottest.NewManifest(monoEntries(tree), nil), tree
}

// pythonFixture: a src layout whose package __init__.py is empty (and
// so not staged today), PEP 621 and Poetry scripts, one naming a
// package rather than a module, and an example with its own main.py.
func pythonFixture() (*snapshot.Manifest, fstest.MapFS) {
	tree := fstest.MapFS{
		"pyproject.toml": data("[project]\nname = \"acme-tool\"\n\n[project.scripts]\nacme = \"acme_tool.cli:main\"\n\n" +
			"[tool.poetry.scripts]\nlegacy = { callable = \"acme_tool.legacy:run\" }\nbroken = \"no such:thing\"\n"),
		"src/acme_tool/cli.py":             data("def main(): pass\n"),
		"src/acme_tool/legacy/__init__.py": data("def run(): pass\n"),
		"src/acme_tool/core.py":            data("class Core: pass\n"),
		"src/other/__init__.py":            data("x = 1\n"),
		"tests/test_cli.py":                data("def test_cli(): pass\n"),
		"examples/demo/main.py":            data("print('demo')\n"),
	}
	files := append(monoEntries(tree),
		snapshot.Entry{Path: "src/acme_tool/__init__.py", Category: "junk", Reason: "empty"},
	)
	return snapshottest.NewManifest(files, nil), tree
}

var monoFixtures = []struct {
	name    string
	fixture func() (*snapshot.Manifest, fstest.MapFS)
}{
	{"pnpm-workspace", pnpmFixture},
	{"yarn-workspaces", yarnFixture},
	{"cargo-workspace", cargoFixture},
	{"go-modules", goFixture},
	{"maven-modules", mavenFixture},
	{"gradle-projects", gradleFixture},
	{"python-src", pythonFixture},
}
