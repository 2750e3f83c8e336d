package repomap

import (
	"bytes"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/repoprep/repoprep/internal/tokens"
	"github.com/repoprep/repoprep/snapshot"
	"github.com/repoprep/repoprep/snapshot/snapshottest"
)

// Monorepos: the map of each fixture in workspace_fixtures_test.go, what
// it must say and not say, what nothing but examples gives, how many
// manifests a big workspace costs, and which files are worth reading by
// range.

func TestRepoMapWorkspacesGolden(t *testing.T) {
	for _, tt := range monoFixtures {
		t.Run(tt.name, func(t *testing.T) {
			m, tree := tt.fixture()
			got := Render(m, Options{Name: tt.name, Tree: tree})
			if n := tokens.Count(string(got)); n >= defaultMapTokens {
				t.Errorf("map is %d tokens, want under %d", n, defaultMapTokens)
			}
			if again := Render(m, Options{Name: tt.name, Tree: tree}); !bytes.Equal(got, again) {
				t.Error("two renders of the same manifest differ")
			}
			checkGoldenFile(t, "golden", tt.name+".md", got)
		})
	}
}

// TestRepoMapMonorepo: what each workspace kind must make the map say,
// and what it must stop saying. Each case fails on the map before
// workspaces were known: it had no workspace section, no declared entry
// points, listed examples' main files and recommended one-line SVGs.
func TestRepoMapMonorepo(t *testing.T) {
	tests := []struct {
		name    string
		fixture func() (*snapshot.Manifest, fstest.MapFS)
		want    []string
		notWant []string
	}{
		{"pnpm: workspace packages, commands first, playground role, no SVG to read", pnpmFixture, []string{
			"declared by pnpm workspace (`pnpm-workspace.yaml`)",
			"- `packages/acme/` ",
			"— command `acme`",
			"- Declared commands: `packages/acme/bin/acme.js` (`acme`), `packages/create-acme/index.js` (`create-acme`)\n",
			// exports["."] names built output; the map names its source.
			"- Declared library entries: `packages/acme/src/node/index.ts`, `packages/plugin-legacy/src/index.ts`\n",
			"`playground/` 11 files, JavaScript — “E2E tests”",
			"and 3 more: playground 3\n", // playground/ itself is listed above
			"- `packages/plugin-legacy/` `@acme/plugin-legacy` 2 files,",
			"Skip media-like text (SVG, data in long lines): 1 file",
		}, []string{
			"playground/css/main.js", "playground/hmr/cli.js", "fixtures/dep",
			"environments.svg` ", // in the read-by-range list it is followed by its count
			"template-react/src/main.tsx",
		}},
		{"yarn: object workspaces, scoped bin, main as written", yarnFixture, []string{
			"3 packages declared by Yarn workspaces (`package.json`)",
			"- `packages/cli/` `@shop/cli` 2 files",
			"Declared commands: `packages/cli/cli.mjs` (`cli`)",
			"Declared library entries: `packages/core/lib/index.js`",
		}, []string{"apps/admin/` `admin`"}},
		{"cargo: members glob and exclude, [[bin]] path, src/bin, [lib] path", cargoFixture, []string{
			"2 packages declared by Cargo workspace (`Cargo.toml`)",
			"`crates/matcher/` `rgx-matcher`",
			"Declared commands: `crates/core/main.rs` (`rgx`), `crates/cli/src/bin/rgx-tool.rs` (`rgx-tool`), `crates/cli/src/bin/extra/main.rs` (`extra`)",
			"Declared library entries: `crates/cli/lib.rs`",
		}, []string{"crates/fuzz/`", "Main files: `crates/core/main.rs`"}},
		{"go: modules outside testdata, mains outside examples", goFixture, []string{
			"2 packages declared by Go modules (3 `go.mod`); 1 is a top-level directory listed above",
			"- `contrib/otel/` `example.com/app/contrib/otel` 2 files,",
			"Go main packages (2): `cmd/app/`, `tools/gen/`",
		}, []string{"example.com/fixture", "`examples/hello/`"}},
		{"maven: modules of modules, artifactIds, nothing outside the tree", mavenFixture, []string{
			"3 packages declared by Maven modules (`pom.xml`)",
			"2 are top-level directories listed above",
			"- `acme-web/web-api/` `acme-web-api` 2 files,",
		}, []string{"outside"}},
		{"gradle: includes in both forms, comments and includeBuild skipped", gradleFixture, []string{
			"declared by Gradle projects (`settings.gradle.kts`)",
			"`lib/core/` 2 files",
			"3 packages declared by Gradle projects",
		}, nil},
		{"python: src layout with an empty __init__.py, scripts as modules", pythonFixture, []string{
			"2 packages declared by Python src layout (`pyproject.toml`)",
			"Declared commands: `src/acme_tool/cli.py` (`acme`), `src/acme_tool/legacy/__init__.py` (`legacy`)",
			"Declared library entries: `src/other/__init__.py`",
		}, []string{"examples/demo/main.py"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, tree := tt.fixture()
			// The most detailed level, so paths are not elided: the golden
			// files show the levels the limit picks.
			got := string(Render(m, Options{Name: "x", Tree: tree, TokenLimit: 4000}))
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("map lacks %q", w)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(got, w) {
					t.Errorf("map has %q", w)
				}
			}
			if t.Failed() {
				t.Log(got)
			}
		})
	}
}

// With nothing else to start from, the examples are the entry points.
func TestEntryPointsOnlyExamples(t *testing.T) {
	tree := fstest.MapFS{
		"README.md":              data("# samples\n"),
		"examples/hello/main.go": data("package main\n\nfunc main() {}\n"),
		"examples/web/index.js":  data("export {}\n"),
		"examples/web/main.js":   data("import './index.js'\n"),
		"examples/web/style.css": data("body {}\n"),
	}
	got := string(Render(snapshottest.NewManifest(monoEntries(tree), nil), Options{Tree: tree}))
	for _, w := range []string{"Go main packages (1): `examples/hello/`", "Main files: `examples/web/index.js`, `examples/web/main.js`"} {
		if !strings.Contains(got, w) {
			t.Errorf("map lacks %q:\n%s", w, got)
		}
	}
}

// countingFS counts the files opened through it.
type countingFS struct {
	fs.FS
	mu    sync.Mutex
	opens map[string]int
}

func (c *countingFS) Open(name string) (fs.File, error) {
	c.mu.Lock()
	c.opens[name]++
	c.mu.Unlock()
	return c.FS.Open(name)
}

// TestWorkspaceReadsBounded: a workspace of 3,000 packages costs a
// bounded number of manifest reads, and the map keeps its token limit.
func TestWorkspaceReadsBounded(t *testing.T) {
	tree := fstest.MapFS{
		"package.json": data(`{"name": "big", "workspaces": ["packages/*", "packages/*/*", "examples/*"]}`),
	}
	for i := range 3000 {
		dir := fmt.Sprintf("packages/p%04d", i)
		if i%3 == 0 {
			dir = fmt.Sprintf("examples/e%04d", i)
		}
		tree[dir+"/package.json"] = data(fmt.Sprintf(`{"name": "@big/%s-%s", "bin": {"b%d": "cli.js"}, "main": "index.js"}`, strings.Repeat("n", 80), path.Base(dir), i))
		tree[dir+"/cli.js"] = data("#!/usr/bin/env node\n")
		tree[dir+"/index.js"] = data("export {}\n")
	}
	m := snapshottest.NewManifest(monoEntries(tree), nil)
	cfs := &countingFS{FS: tree, opens: map[string]int{}}
	got := string(Render(m, Options{Name: "big", Tree: cfs}))
	manifests := 0
	for name, n := range cfs.opens {
		if path.Base(name) == "package.json" {
			manifests += n
		}
	}
	// The workspace scan's budget, the scripts shown, and the root's name
	// for the project kind.
	if limit := maxManifestReads + mapScriptsRead + 1; manifests > limit {
		t.Errorf("read package.json %d times, want at most %d", manifests, limit)
	}
	if n := tokens.Count(got); n >= defaultMapTokens {
		t.Errorf("map is %d tokens:\n%s", n, got)
	}
	if !strings.Contains(got, "3,000 packages declared by npm workspaces") {
		t.Errorf("map does not count the packages:\n%s", got)
	}
}

// TestMediaLikeLeftOutOfReadByRange: the files to read by range are the
// costliest text worth reading, not SVG drawings, assets or one-line data.
func TestMediaLikeLeftOutOfReadByRange(t *testing.T) {
	m := snapshottest.NewManifest([]snapshot.Entry{
		{Path: "docs/images/env.svg", Staged: true, Category: "text", Language: "SVG", Lines: 40, Tokens: 165_847},
		{Path: "data/points.json", Staged: true, Category: "text", Language: "JSON", Lines: 1, Tokens: 90_000},
		{Path: "web/logo.txt", Staged: true, Category: "text", Reason: "media-text", Lines: 500, Tokens: 80_000},
		{Path: "CHANGELOG.md", Staged: true, Category: "text", Language: "Markdown", Lines: 2425, Tokens: 100_622},
		{Path: "src/css.ts", Staged: true, Category: "source", Language: "TypeScript", Lines: 3685, Tokens: 27_205},
		{Path: "src/url.css", Staged: true, Category: "source", Language: "CSS", Lines: 137, Tokens: 9_794},
		{Path: "src/empty.ts", Staged: true, Category: "source", Language: "TypeScript"},
	}, nil)
	got := string(Render(m, Options{}))
	want := "- Most tokens: `CHANGELOG.md` 100k, `src/css.ts` 27k, `src/url.css` 9,794: read such files by line range.\n" +
		"- Skip media-like text (SVG, data in long lines): 3 files, 335k tokens, the largest `docs/images/env.svg`.\n"
	if !strings.Contains(got, want) {
		t.Errorf("map lacks\n%s\ngot:\n%s", want, got)
	}
}

func TestIsMediaLike(t *testing.T) {
	tests := []struct {
		name string
		e    snapshot.Entry
		want bool
	}{
		{"svg drawing", snapshot.Entry{Language: "SVG", Lines: 300, Tokens: 3000}, true},
		{"media-text reason", snapshot.Entry{Reason: "media-text", Lines: 10, Tokens: 100}, true},
		{"one-line data", snapshot.Entry{Language: "JSON", Lines: 1, Tokens: 251}, true},
		{"long markdown lines", snapshot.Entry{Language: "Markdown", Lines: 100, Tokens: 4000}, false},
		{"css with data URIs", snapshot.Entry{Language: "CSS", Lines: 137, Tokens: 9794}, false},
		{"empty", snapshot.Entry{}, false},
	}
	for _, tt := range tests {
		if got := isMediaLike(&tt.e); got != tt.want {
			t.Errorf("%s: isMediaLike = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestSampleGroup(t *testing.T) {
	tests := map[string]string{
		"playground/css":                      "playground",
		"packages/create-vite/template-react": "templates",
		"packages/vite/src/node/__tests__/x":  "tests",
		"src/test/java":                       "tests",
		"internal/testdata/mod":               "test fixtures",
		"Examples/hello":                      "examples",
		"benches":                             "benchmarks",
		"packages/vite":                       "",
		"contest":                             "",
		"":                                    "",
	}
	for in, want := range tests {
		if got := sampleGroup(in); got != want {
			t.Errorf("sampleGroup(%q) = %q, want %q", in, got, want)
		}
	}
}
