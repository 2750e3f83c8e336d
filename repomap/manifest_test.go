package repomap

import (
	"io/fs"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// The manifest parsers read untrusted text: each has a table of the forms
// real manifests use, and a fuzz target asserting that it never panics,
// keeps its lists within maxManifestItems and returns clean paths.

func TestParsePackageJSON(t *testing.T) {
	tests := []struct {
		name, in   string
		bins       []manifestBin
		lib        string
		workspaces []string
		scripts    []string
	}{
		{"bin map, exports with conditions", `{"name": "vite", "bin": {"vite": "bin/vite.js"},
			"exports": {".": {"types": "./dist/node/index.d.ts", "import": "./dist/node/index.js"}, "./client": {"types": "./client.d.ts"}}}`,
			[]manifestBin{{"vite", "bin/vite.js"}}, "./dist/node/index.js", nil, nil},
		{"bin string named after the unscoped package", `{"name": "@scope/tool", "bin": "./cli.js", "main": "index.js"}`,
			[]manifestBin{{"tool", "./cli.js"}}, "index.js", nil, nil},
		{"exports string wins over main", `{"exports": "./dist/index.mjs", "main": "./dist/index.cjs"}`, nil, "./dist/index.mjs", nil, nil},
		{"exports conditions for the root alone", `{"exports": {"require": "./r.cjs", "import": "./i.mjs"}}`, nil, "./i.mjs", nil, nil},
		{"exports fallback array", `{"exports": {".": [{"worker": "./w.js"}, "./main.js"]}}`, nil, "./w.js", nil, nil},
		{"subpath exports without a root fall back to module", `{"exports": {"./a": "./a.js"}, "module": "./m.js"}`, nil, "./m.js", nil, nil},
		{"workspaces array", `{"workspaces": ["packages/*", 3, "apps/web"]}`, nil, "", []string{"packages/*", "apps/web"}, nil},
		{"workspaces object (Yarn classic)", `{"workspaces": {"packages": ["libs/**"], "nohoist": ["x"]}}`, nil, "", []string{"libs/**"}, nil},
		{"scripts, usual first", `{"scripts": {"zeta": "z", "build": "tsc", "dev": "vite"}}`, nil, "", nil, []string{"dev", "build", "zeta"}},
		{"scripts of the wrong type keep the rest", `{"scripts": [1], "bin": "x.js", "name": "x"}`, []manifestBin{{"x", "x.js"}}, "", nil, nil},
		{"bin of the wrong type", `{"bin": 7, "main": ["a"]}`, nil, "", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, ok := parsePackageJSON([]byte(tt.in))
			if !ok {
				t.Fatal("not parsed")
			}
			if !slices.Equal(m.bins, tt.bins) || m.lib != tt.lib || !slices.Equal(m.workspaces, tt.workspaces) || !slices.Equal(m.scripts, tt.scripts) {
				t.Errorf("got bins %v lib %q workspaces %q scripts %q", m.bins, m.lib, m.workspaces, m.scripts)
			}
		})
	}
	if _, ok := parsePackageJSON([]byte(`[1, 2]`)); ok {
		t.Error("an array parsed as a package.json")
	}
}

func TestParsePnpmWorkspace(t *testing.T) {
	in := "packages:\n  - 'packages/*'\n  - \"playground/**\"\n  - '!**/test/**'\n  - docs\n  - 12\ncatalog:\n  react: ^19\n"
	want := []string{"packages/*", "playground/**", "!**/test/**", "docs"}
	if got := parsePnpmWorkspace([]byte(in)); !slices.Equal(got, want) {
		t.Errorf("parsePnpmWorkspace = %q, want %q", got, want)
	}
	if got := parsePnpmWorkspace([]byte("packages: packages/*\n")); got != nil {
		t.Errorf("a scalar packages gave %q", got)
	}
}

func TestParseCargoToml(t *testing.T) {
	in := "[package]\nname = \"ripgrep\"\nedition.workspace = true\nautobins = false\n\n[[bin]]\nbench = false\npath = \"crates/core/main.rs\"\nname = \"rg\"\n\n" +
		"[[bin]]\nname = \"tool\"\n\n[lib]\npath = \"src/rg.rs\"\n\n[workspace]\nmembers = [\"crates/globset\", \"crates/*\"]\nexclude = [\"crates/fuzz\"]\n"
	c, ok := parseCargoToml([]byte(in))
	if !ok {
		t.Fatal("not parsed")
	}
	want := cargoManifest{name: "ripgrep", bins: []manifestBin{{"rg", "crates/core/main.rs"}, {"tool", ""}}, lib: "src/rg.rs",
		members: []string{"crates/globset", "crates/*"}, exclude: []string{"crates/fuzz"}, isWorkspace: true, isPackage: true}
	if c.name != want.name || !slices.Equal(c.bins, want.bins) || c.lib != want.lib || c.autobins || !slices.Equal(c.members, want.members) ||
		!slices.Equal(c.exclude, want.exclude) || !c.isWorkspace || !c.isPackage {
		t.Errorf("parseCargoToml = %+v", c)
	}
	if c, ok := parseCargoToml([]byte("[workspace]\nmembers = [\"a\"]\n")); !ok || c.isPackage || !c.isWorkspace {
		t.Errorf("virtual manifest = %+v, %v", c, ok)
	}
	if _, ok := parseCargoToml([]byte("[package\n")); ok {
		t.Error("broken TOML parsed")
	}
}

func TestParsePyproject(t *testing.T) {
	in := "[project]\nname = \"click-x\"\n[project.scripts]\nb = \"pkg.cli:main\"\na = \"pkg:run\"\n[project.gui-scripts]\ng = \"pkg.gui:main\"\n" +
		"[tool.poetry.scripts]\np = { callable = \"pkg.p:main\" }\nq = { reference = \"q.py\", type = \"file\" }\n" +
		"[tool.uv.workspace]\nmembers = [\"packages/*\"]\nexclude = [\"packages/old\"]\n"
	m, ok := parsePyproject([]byte(in))
	if !ok {
		t.Fatal("not parsed")
	}
	want := []manifestBin{{"a", "pkg:run"}, {"b", "pkg.cli:main"}, {"g", "pkg.gui:main"}, {"p", "pkg.p:main"}, {"q", "q.py"}}
	if m.name != "click-x" || !slices.Equal(m.bins, want) || !slices.Equal(m.members, []string{"packages/*"}) || !slices.Equal(m.exclude, []string{"packages/old"}) {
		t.Errorf("parsePyproject = %+v", m)
	}
	if m, _ := parsePyproject([]byte("[tool.poetry]\nname = \"poet\"\n")); m.name != "poet" {
		t.Errorf("poetry name = %q", m.name)
	}
}

func TestPyModuleFiles(t *testing.T) {
	got := pyModuleFiles("tools", "acme.cli:main")
	want := []string{"tools/src/acme/cli.py", "tools/src/acme/cli/__init__.py", "tools/acme/cli.py", "tools/acme/cli/__init__.py"}
	if !slices.Equal(got, want) {
		t.Errorf("pyModuleFiles = %q, want %q", got, want)
	}
	for _, bad := range []string{"q.py", "../x:main", "a..b:c", "", ":main", "1pkg:main"} {
		if got := pyModuleFiles("", bad); got != nil {
			t.Errorf("pyModuleFiles(%q) = %q", bad, got)
		}
	}
}

func TestParsePom(t *testing.T) {
	in := `<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
	<parent><artifactId>parent</artifactId></parent>
	<artifactId> hutool-parent </artifactId>
	<modules>
		<module>hutool-core</module>
		<module> hutool-json </module>
		<module></module>
	</modules>
	<profiles><profile><modules><module>extra</module></modules></profile></profiles>
	<dependencies><dependency><artifactId>junit</artifactId></dependency></dependencies>
</project>`
	m, ok := parsePom([]byte(in))
	if !ok || m.artifactID != "hutool-parent" || !slices.Equal(m.modules, []string{"hutool-core", "hutool-json"}) {
		t.Errorf("parsePom = %+v, %v", m, ok)
	}
	if _, ok := parsePom([]byte(`<settings><modules><module>x</module></modules></settings>`)); ok {
		t.Error("a non-project document parsed as a pom")
	}
}

func TestParseGradleSettings(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string
	}{
		{"groovy", "rootProject.name = 'shop'\ninclude 'app', ':lib:core'\ninclude ':tools'\n", []string{"app", "lib/core", "tools"}},
		{"kotlin over lines", "include(\n    \":app\",\n    \":lib\",\n)\ninclude(\":web\")\n", []string{"app", "lib", "web"}},
		{"comma at line end continues", "include 'a',\n        'b'\ninclude 'c'\n", []string{"a", "b", "c"}},
		{"comments and other calls skipped", "// include ':old'\n/* include ':older' */\nincludeBuild('logic')\nincludeFlat 'flat'\nmyinclude 'x'\ninclude ':kept'\n", []string{"kept"}},
		{"interpolation and unterminated quotes stop", "include \"$name\"\ninclude 'ok'\ninclude 'open\n", []string{"ok"}},
		{"duplicates once", "include ':a'\ninclude 'a'\n", []string{"a"}},
		{"quote inside a string is no comment", "include 'a//b'\n", []string{"a//b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := parseGradleSettings([]byte(tt.in)); !slices.Equal(got, tt.want) {
				t.Errorf("parseGradleSettings = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestParseAgentRoles(t *testing.T) {
	in := "# Repo\n\n## Repository Structure\n\n- `docs/`: Documentation\n- `packages/vite`: The source code for the Vite core.\n" +
		"* **`src/`** — the library\n1. `cmd/` - commands\n| `web/` | front end |\n- `*.go`: Go files\n- `../up`: out\n- `a`:\n" +
		"- `playground/`: E2E tests\r\n- plain words: not a path\n"
	got := parseAgentRoles([]byte(in), "")
	want := []dirNote{{"docs", "Documentation"}, {"packages/vite", "The source code for the Vite core"}, {"src", "the library"},
		{"cmd", "commands"}, {"web", "front end"}, {"playground", "E2E tests"}}
	if !slices.Equal(got, want) {
		t.Errorf("parseAgentRoles = %q, want %q", got, want)
	}
	if got := parseAgentRoles([]byte("- `api/`: handlers\n"), "services/orders"); !slices.Equal(got, []dirNote{{"services/orders/api", "handlers"}}) {
		t.Errorf("scoped = %q", got)
	}
	for p, want := range map[string]string{"CLAUDE.md": "", "web/AGENTS.md": "web", ".github/copilot-instructions.md": "", ".claude/rules/x.md": ""} {
		if got := agentScope(p); got != want {
			t.Errorf("agentScope(%q) = %q, want %q", p, got, want)
		}
	}
}

func TestCutWords(t *testing.T) {
	tests := []struct {
		in   string
		n    int
		want string
	}{
		{"E2E tests", 40, "E2E tests"},
		{"The source code for the Vite core", 20, "The source code for…"},
		{"Unbreakableword", 8, "Unbreak…"},
	}
	for _, tt := range tests {
		if got := cutWords(tt.in, tt.n); got != tt.want {
			t.Errorf("cutWords(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
	}
}

// checkList asserts a parser's list property: bounded, no empty item.
func checkList(t *testing.T, what string, list []string) {
	t.Helper()
	if len(list) > maxManifestItems {
		t.Fatalf("%s: %d items, over %d", what, len(list), maxManifestItems)
	}
	if slices.Contains(list, "") {
		t.Fatalf("%s: an empty item in %q", what, list)
	}
}

func bins(bs []manifestBin) []string {
	var out []string
	for _, b := range bs {
		out = append(out, b.name+"="+b.target)
	}
	return out
}

// fuzzInput cuts fuzz input where the map cuts a manifest.
func fuzzInput(b []byte) []byte { return b[:min(len(b), mapConfigBytes)] }

func FuzzParsePackageJSON(f *testing.F) {
	for _, s := range []string{`{"name": "a", "bin": {"a": "b.js"}, "exports": {".": {"import": "./x.js"}}, "workspaces": ["p/*"]}`,
		`{"exports": [[[[[["./deep.js"]]]]]]}`, `{"workspaces": {"packages": ["a"]}}`, `{"bin": "x"}`, `[]`, `{"exports": {".": {"a": {"b": {"c": {"d": {"e": "./f.js"}}}}}}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		m, _ := parsePackageJSON(fuzzInput(in))
		checkList(t, "workspaces", m.workspaces)
		if len(m.bins) > maxManifestItems {
			t.Fatalf("%d bins", len(m.bins))
		}
	})
}

func FuzzParsePnpmWorkspace(f *testing.F) {
	for _, s := range []string{"packages:\n  - 'a/*'\n", "packages: [a, b]\n", "a: &x [*x]\n", "packages:\n  - &a b\n  - *a\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		checkList(t, "packages", parsePnpmWorkspace(fuzzInput(in)))
	})
}

func FuzzParseCargoToml(f *testing.F) {
	for _, s := range []string{"[package]\nname = \"a\"\n[[bin]]\npath = \"x.rs\"\n[workspace]\nmembers = [\"c/*\"]\n", "[lib]\npath = 3\n", "a = [[[[[[1]]]]]]\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		c, _ := parseCargoToml(fuzzInput(in))
		checkList(t, "members", c.members)
		checkList(t, "exclude", c.exclude)
		if len(c.bins) > maxManifestItems {
			t.Fatalf("%d bins", len(c.bins))
		}
	})
}

func FuzzParsePyproject(f *testing.F) {
	for _, s := range []string{"[project.scripts]\na = \"b:c\"\n", "[tool.poetry.scripts]\np = { callable = \"x:y\" }\n", "[tool.uv.workspace]\nmembers = [\"a\"]\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		m, _ := parsePyproject(fuzzInput(in))
		checkList(t, "members", m.members)
		checkList(t, "bins", bins(m.bins))
		for _, b := range m.bins {
			for _, p := range pyModuleFiles("root", b.target) {
				if !fs.ValidPath(p) {
					t.Fatalf("pyModuleFiles(%q) gave %q", b.target, p)
				}
			}
		}
	})
}

func FuzzParsePom(f *testing.F) {
	for _, s := range []string{"<project><artifactId>a</artifactId><modules><module>b</module></modules></project>",
		"<!DOCTYPE project [<!ENTITY x \"xx\">]><project><artifactId>&x;</artifactId></project>", "<project><modules><module>&amp;</module>"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		m, _ := parsePom(fuzzInput(in))
		checkList(t, "modules", m.modules)
	})
}

func FuzzParseGradleSettings(f *testing.F) {
	for _, s := range []string{"include 'a', ':b:c'\n", "include(\n\":x\",\n)\n", "/* include 'x' */ include 'y'", "include '" + strings.Repeat("include \"", 50)} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		dirs := parseGradleSettings(fuzzInput(in))
		checkList(t, "dirs", dirs)
		for _, d := range dirs {
			if strings.HasPrefix(d, "/") || strings.HasSuffix(d, "/") {
				t.Fatalf("dir %q is not trimmed", d)
			}
		}
	})
}

func FuzzParseAgentRoles(f *testing.F) {
	for _, s := range []string{"- `playground/`: E2E tests\n", "| `a/` | b |\n", "* **`src/`** — x\n", "- `../x`: y\n", "- `\x86`: 0\n"} {
		f.Add([]byte(s), "")
	}
	f.Fuzz(func(t *testing.T, in []byte, scope string) {
		if !fs.ValidPath(scope) || scope == "." {
			scope = ""
		}
		roles := parseAgentRoles(in, scope)
		if len(roles) > maxAgentRoles {
			t.Fatalf("%d roles", len(roles))
		}
		for _, r := range roles {
			if !fs.ValidPath(r.dir) || r.dir == "." {
				t.Fatalf("role dir %q is not a relative path", r.dir)
			}
			if r.text == "" || utf8.RuneCountInString(r.text) > agentRoleRunes || strings.ContainsAny(r.text, "`\n\r") {
				t.Fatalf("role text %q", r.text)
			}
		}
	})
}
