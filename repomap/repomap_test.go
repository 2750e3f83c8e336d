package repomap

import (
	"bytes"
	"cmp"
	"encoding/hex"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/zeebo/blake3"

	"github.com/repoprep/repoprep/internal/testkit"
	"github.com/repoprep/repoprep/internal/tokens"
	"github.com/repoprep/repoprep/snapshot"
	"github.com/repoprep/repoprep/snapshot/snapshottest"
)

// checkGoldenFile compares got with testdata/<dir>/<name>, rewriting it
// under -update.
func checkGoldenFile(t *testing.T, dir, name string, got []byte) {
	t.Helper()
	testkit.Golden(t, filepath.Join("testdata", dir, name), got)
}

// stagedEntries turns a staged tree into manifest entries the way the
// pipeline would fill them: category and language from the extension,
// lines from the content, test from the name.
func stagedEntries(tree fstest.MapFS) []snapshot.Entry {
	var out []snapshot.Entry
	for p, f := range tree {
		lines := bytes.Count(f.Data, []byte("\n"))
		if len(f.Data) > 0 && f.Data[len(f.Data)-1] != '\n' {
			lines++
		}
		cat, lang := "text", ""
		switch path.Ext(p) {
		case ".go":
			cat, lang = "source", "Go"
		case ".py":
			cat, lang = "source", "Python"
		case ".ts":
			cat, lang = "source", "TypeScript"
		case ".tsx":
			cat, lang = "source", "TSX"
		case ".sql":
			cat, lang = "source", "SQL"
		case ".md":
			lang = "Markdown"
		case ".yaml", ".yml":
			lang = "YAML"
		case ".json":
			lang = "JSON"
		case ".html":
			lang = "HTML"
		case ".toml":
			lang = "TOML"
		}
		switch path.Base(p) {
		case "Makefile":
			cat, lang = "source", "Makefile"
		case "Dockerfile":
			cat, lang = "source", "Dockerfile"
		}
		_, _, inTestDir := testDir(p)
		base := path.Base(p)
		isTest := inTestDir || strings.Contains(base, "_test.") || strings.Contains(base, ".test.") || strings.HasPrefix(base, "test_")
		out = append(out, snapshot.Entry{
			Path: p, Size: int64(len(f.Data)), Category: cat, Language: lang, Encoding: "utf-8",
			Lines: lines, Tokens: tokens.Count(string(f.Data)), Test: isTest, Staged: true, Mime: "text/plain; charset=utf-8",
			Hash: "blake3:" + hashHex(f.Data),
		})
	}
	return out
}

func goServiceFixture() (*snapshot.Manifest, fstest.MapFS) {
	tree := fstest.MapFS{
		"go.mod":                               {Data: []byte("module github.com/acme/orders\n\ngo 1.26\n")},
		"README.md":                            {Data: []byte("# orders\n\nThe order service.\n")},
		"CLAUDE.md":                            {Data: []byte("Run make test before committing.\n")},
		"AGENTS.md":                            {Data: []byte(strings.Repeat("Always write tests. Keep functions short.\n", 1100))},
		"Makefile":                             {Data: []byte(".PHONY: build test\nbuild:\n\tgo build ./...\ntest: build\n\tgo test ./...\nlint:\n\tstaticcheck ./...\n%.pb.go: %.proto\n\tprotoc $<\nVERSION := 1\n")},
		"Dockerfile":                           {Data: []byte("FROM golang:1.26\nCOPY . .\nRUN go build ./cmd/orders\n")},
		"release.sh":                           {Data: []byte("#!/bin/sh\ngoreleaser release\n")},
		"build.sh":                             {Data: []byte("#!/bin/sh\ngo build ./...\n")},
		"build.bat":                            {Data: []byte("go build ./...\r\n")},
		"internal/store/crc_amd64.s":           {Data: []byte("TEXT ·crc(SB),4,$0\n\tRET\n")},
		"internal/store/crc_arm64.s":           {Data: []byte("TEXT ·crc(SB),4,$0\n\tRET\n")},
		"cmd/orders/main.go":                   {Data: []byte("// Command orders serves the order API.\npackage main\n\nfunc main() {}\n")},
		"cmd/migrate/doc.go":                   {Data: []byte("// Command migrate applies migrations.\npackage main\n")},
		"cmd/migrate/run.go":                   {Data: []byte("package main\n\nfunc main() {}\n")},
		"tools/gen.go":                         {Data: []byte("//go:build ignore\n\npackage main\n\nfunc main() {}\n")},
		"tools/tools.go":                       {Data: []byte("package tools\n")},
		"internal/api/handler.go":              {Data: []byte("package api\n\nfunc Handle() {}\n")},
		"internal/api/handler_test.go":         {Data: []byte("package api\n\nimport \"testing\"\n\nfunc TestHandle(t *testing.T) {}\n")},
		"internal/api/routes.go":               {Data: []byte("package api\n")},
		"internal/store/store.go":              {Data: []byte("package store\n\ntype Store struct{}\n")},
		"internal/store/store_test.go":         {Data: []byte("package store\n")},
		"internal/store/testdata/orders.json":  {Data: []byte("[{\"id\": 1}]\n")},
		"internal/models/order.go":             {Data: []byte("package models\n\ntype Order struct{ ID int }\n")},
		"internal/models/order_test.go":        {Data: []byte("package models\n")},
		"internal/models/testdata/gen/main.go": {Data: []byte("package main\n")},
		"pkg/client/client.go":                 {Data: []byte("package client\n\nfunc New() {}\n")},
		"api/openapi.yaml":                     {Data: []byte("openapi: 3.1.0\ninfo:\n  title: orders\n")},
		"migrations/001_init.sql":              {Data: []byte("CREATE TABLE orders (id int);\n")},
		"docs/architecture.md":                 {Data: []byte("# Architecture\n")},
		"docs/runbook.md":                      {Data: []byte("# Runbook\n")},
		"docs/incidents.log.md":                {Data: []byte(strings.Repeat("2026-01-01 incident\n", 50))},
	}
	files := stagedEntries(tree)
	for i := range files {
		switch files[i].Path {
		case "docs/incidents.log.md":
			files[i].Oversize = true
		case "internal/store/crc_amd64.s":
			// go-enry's classifier guesses a different dialect per file.
			files[i].Category, files[i].Language = "source", "Unix Assembly"
		case "internal/store/crc_arm64.s":
			files[i].Category, files[i].Language = "source", "Motorola 68K Assembly"
		case "release.sh", "build.sh":
			files[i].Category, files[i].Language = "source", "Shell"
		case "build.bat":
			files[i].Category, files[i].Language = "source", "Batchfile"
		}
	}
	files = append(files,
		snapshot.Entry{Path: "bin/orders", Size: 9 << 20, Category: "junk", Reason: "executable", Mime: "application/x-elf"},
		snapshot.Entry{Path: "backup/orders.sql.gz", Size: 3 << 20, Category: "data", Reason: "archive", Mime: "application/gzip"},
		snapshot.Entry{Path: "internal/store/testdata/orders-copy.json", Size: 12, Category: "text", Language: "JSON", Test: true, DuplicateOf: "internal/store/testdata/orders.json"},
		snapshot.Entry{Path: "coverage.out", Size: 100, Category: "junk", Reason: "ignored"},
	)
	return snapshottest.NewManifest(files, []snapshot.Pruned{{Path: ".git", Reason: "excluded-dir"}, {Path: "vendor", Reason: "excluded-dir"}}), tree
}

func jsPythonFixture() (*snapshot.Manifest, fstest.MapFS) {
	tree := fstest.MapFS{
		"README.md":                               {Data: []byte("# shop\n")},
		"docker-compose.yml":                      {Data: []byte("services:\n  web: {}\n  api: {}\n")},
		".cursorrules":                            {Data: []byte("Use TypeScript strict mode.\n")},
		".github/copilot-instructions.md":         {Data: []byte("Prefer small components.\n")},
		".claude/rules/style.md":                  {Data: []byte("Format with prettier.\n")},
		"frontend/package.json":                   {Data: []byte(`{"name": "shop-web", "scripts": {"lint": "eslint .", "build": "vite build", "dev": "vite", "preview": "vite preview", "test": "vitest", "typecheck": "tsc"}}`)},
		"frontend/index.html":                     {Data: []byte("<div id=root></div>\n")},
		"frontend/vite.config.ts":                 {Data: []byte("export default {}\n")},
		"frontend/src/main.tsx":                   {Data: []byte("import App from './App'\n")},
		"frontend/src/App.tsx":                    {Data: []byte("export default function App() {}\n")},
		"frontend/src/components/Button.tsx":      {Data: []byte("export const Button = () => null\n")},
		"frontend/src/components/Button.test.tsx": {Data: []byte("test('renders', () => {})\n")},
		"frontend/src/components/Nav.tsx":         {Data: []byte("export const Nav = () => null\n")},
		"frontend/src/components/Card.tsx":        {Data: []byte("export const Card = () => null\n")},
		"frontend/src/components/index.ts":        {Data: []byte("export * from './Button'\n")},
		"frontend/src/pages/Home.tsx":             {Data: []byte("export default () => null\n")},
		"frontend/src/pages/About.tsx":            {Data: []byte("export default () => null\n")},
		"frontend/src/hooks/useAuth.ts":           {Data: []byte("export function useAuth() {}\n")},
		"frontend/src/api/client.ts":              {Data: []byte("export const get = fetch\n")},
		"backend/pyproject.toml":                  {Data: []byte("[project]\nname = \"shop-api\"\n")},
		"backend/Dockerfile":                      {Data: []byte("FROM python:3.13\n")},
		"backend/app/main.py":                     {Data: []byte("from fastapi import FastAPI\napp = FastAPI()\n")},
		"backend/app/__init__.py":                 {Data: []byte("")},
		"backend/app/models/user.py":              {Data: []byte("class User: pass\n")},
		"backend/app/models/order.py":             {Data: []byte("class Order: pass\n")},
		"backend/app/api/routes.py":               {Data: []byte("def routes(): pass\n")},
		"backend/tests/test_api.py":               {Data: []byte("def test_api(): pass\n")},
		"backend/tests/test_models.py":            {Data: []byte("def test_models(): pass\n")},
		"backend/tests/conftest.py":               {Data: []byte("import pytest\n")},
	}
	files := append(stagedEntries(tree),
		snapshot.Entry{Path: "frontend/src/assets/hero.png", Size: 200 << 10, Category: "junk", Reason: "media", Mime: "image/png"},
		snapshot.Entry{Path: "frontend/public/vendor.min.js", Size: 90 << 10, Category: "junk", Reason: "minified", Mime: "text/javascript"},
		snapshot.Entry{Path: "backend/db.sqlite3", Size: 6 << 20, Category: "data", Reason: "database", Mime: "application/vnd.sqlite3"},
		snapshot.Entry{Path: "backend/legacy/notes_gbk.txt", Size: 800, Category: "text", Reason: "undecodable"},
	)
	return snapshottest.NewManifest(files, []snapshot.Pruned{
		{Path: ".git", Reason: "excluded-dir"},
		{Path: "frontend/node_modules", Reason: "excluded-dir"},
		{Path: "frontend/dist", Reason: "excluded-dir"},
		{Path: "node_modules", Reason: "excluded-dir"},
		{Path: "backend/.venv", Reason: "ignored"},
	}), tree
}

func TestRepoMapGolden(t *testing.T) {
	tests := []struct {
		name    string
		fixture func() (*snapshot.Manifest, fstest.MapFS)
		repo    string
	}{
		{"go-service", goServiceFixture, "orders"},
		{"js-python", jsPythonFixture, "shop"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, tree := tt.fixture()
			got := Render(m, Options{Name: tt.repo, Tree: tree})
			if n := tokens.Count(string(got)); n >= defaultMapTokens {
				t.Errorf("map is %d tokens, want under %d", n, defaultMapTokens)
			}
			if again := Render(m, Options{Name: tt.repo, Tree: tree}); !bytes.Equal(got, again) {
				t.Error("two renders of the same manifest differ")
			}
			checkGoldenFile(t, "golden", tt.name+".md", got)
		})
	}
}

// Without the staged tree the map still finds main packages by main.go
// and lists package.json and Makefiles without their scripts.
func TestRepoMapWithoutTree(t *testing.T) {
	m, _ := goServiceFixture()
	got := string(Render(m, Options{}))
	for _, want := range []string{"# Repository map\n", "Go main packages (1): `cmd/orders/`", "- `Makefile`\n", "Go module."} {
		if !strings.Contains(got, want) {
			t.Errorf("map lacks %q:\n%s", want, got)
		}
	}
}

func TestRepoMapFacts(t *testing.T) {
	m, tree := goServiceFixture()
	got := string(Render(m, Options{Tree: tree}))
	tests := []struct{ name, want string }{
		{"module path from go.mod", "Go module `github.com/acme/orders`"},
		{"main packages, ignore-tagged generator and testdata skipped", "Go main packages (2): `cmd/migrate/`, `cmd/orders/`"},
		{"make targets, pattern rules and variables skipped", "`Makefile` targets: build, test, lint"},
		{"large agent file warned", "`AGENTS.md` (46,200 characters) ⚠\n- `CLAUDE.md` (33 characters)\n⚠ marks a file over 40,000 characters"},
		{"duplicates counted", "1 duplicate point"},
		{"oversize mentioned", "1 oversize file is served by line range only"},
		{"pruned dirs", "2 directories not walked: `.git`, `vendor`"},
		{"role from name", "`internal/` 11 files, Go — internal packages"},
		{"assembly dialects folded", "Makefile 16%, Assembly 6%, Shell"},
		{"root scripts, usual names first, .bat beside .sh dropped", "- Scripts at the root: `build.sh`, `release.sh`\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !strings.Contains(got, tt.want) {
				t.Errorf("map lacks %q:\n%s", tt.want, got)
			}
		})
	}
}

func TestRepoMapTokenLimit(t *testing.T) {
	// Under -short (make test's race pass, where these took 13 s of CPU) a
	// fifth of the files, still hundreds of times what the map can name;
	// the whole pass renders 50k and 100k.
	files := func(n int) int {
		if testing.Short() {
			return n / 5
		}
		return n
	}
	tests := []struct {
		name  string
		m     *snapshot.Manifest
		limit int
	}{
		{"empty", &snapshot.Manifest{Schema: snapshot.FilesSchema}, 0},
		{"50k files", snapshottest.Synth(files(50_000)), 0},
		{"100k files", snapshottest.Synth(files(100_000)), 0},
		{"50k files, tight limit", snapshottest.Synth(files(50_000)), 350},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := string(Render(tt.m, Options{Name: strings.Repeat("名", 200), TokenLimit: tt.limit}))
			limit := cmp.Or(tt.limit, defaultMapTokens)
			if n := tokens.Count(got); n >= limit {
				t.Errorf("map is %d tokens, want under %d:\n%s", n, limit, got)
			}
			for _, section := range []string{"## Top-level directories", "## Tests", "## Entry points", "## Agent instructions", "## Left out", "## Reading more"} {
				if !strings.Contains(got, section) {
					t.Errorf("map lacks %q", section)
				}
			}
			if !strings.HasSuffix(got, ".\n") {
				t.Errorf("map does not end on a whole sentence: %q", got[max(0, len(got)-80):])
			}
		})
	}
}

func TestMapLanguage(t *testing.T) {
	tests := map[string]string{
		"Unix Assembly": "Assembly", "Motorola 68K Assembly": "Assembly", "Assembly": "Assembly",
		"WebAssembly": "WebAssembly", "Go": "Go", "": "",
	}
	for in, want := range tests {
		if got := mapLanguage(in); got != want {
			t.Errorf("mapLanguage(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRankRootScripts(t *testing.T) {
	got := rankRootScripts([]string{"all.bash", "all.bat", "clean.bash", "deploy.ps1", "make.bash", "make.bat", "run.rc.bash", "setup.cmd"})
	want := []string{"make.bash", "all.bash", "setup.cmd", "clean.bash", "deploy.ps1", "run.rc.bash"}
	if !slices.Equal(got, want) {
		t.Errorf("rankRootScripts = %q, want %q", got, want)
	}
}

// A pruned directory is named by its path when its name is unique, so a
// reader sees where it was; shared names are counted.
func TestRankPruned(t *testing.T) {
	got := rankPruned([]snapshot.Pruned{{Path: ".git"}, {Path: "cmd/dist"}, {Path: "a/node_modules"}, {Path: "node_modules"}, {Path: "b/node_modules"}})
	want := []mapCount{{"node_modules", 3}, {".git", 1}, {"cmd/dist", 1}}
	if !slices.Equal(got, want) {
		t.Errorf("rankPruned = %v, want %v", got, want)
	}
}

func TestTestPattern(t *testing.T) {
	tests := map[string]string{
		"store_test.go":   "*_test.go",
		"test_api.py":     "test_*.py",
		"api_test.py":     "*_test.py",
		"Button.test.tsx": "*.test.tsx",
		"user.spec.ts":    "*.spec.ts",
		"UserTest.java":   "*Test.java",
		"conftest.py":     "other",
	}
	for in, want := range tests {
		if got := testPattern(in); got != want {
			t.Errorf("testPattern(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestIsAgentFile(t *testing.T) {
	tests := map[string]bool{
		"CLAUDE.md": true, "sub/CLAUDE.local.md": true, "AGENTS.md": true, ".cursorrules": true,
		".github/copilot-instructions.md": true, ".claude/rules/go.md": true, "pkg/.claude/rules/x.md": true,
		"docs/CLAUDE.md.bak": false, ".claude/settings.json": false, "README.md": false,
		// What instructions.json indexes too: a Rails app's Cursor rules.
		".cursor/rules/project-conventions.mdc": true, ".github/instructions/go.instructions.md": true,
		".cursor/rules/notes.md": false,
	}
	for in, want := range tests {
		if got := isAgentFile(in); got != want {
			t.Errorf("isAgentFile(%q) = %v, want %v", in, got, want)
		}
	}
}

func TestMapElide(t *testing.T) {
	if got := mapElide("short", 10); got != "short" {
		t.Errorf("mapElide kept %q", got)
	}
	got := mapElide("services/billing/internal/very/deep/path/handler.go", 24)
	if n := len([]rune(got)); n != 24 || !strings.HasSuffix(got, "handler.go") || !strings.HasPrefix(got, "services") {
		t.Errorf("mapElide = %q (%d runes)", got, n)
	}
}

func BenchmarkRepoMap(b *testing.B) {
	m := snapshottest.Synth(50_000)
	b.ReportAllocs()
	for b.Loop() {
		Render(m, Options{Name: "mono"})
	}
}

func TestMapTokenCount(t *testing.T) {
	for n, want := range map[int64]string{
		0: "0", 812: "812", 9_999: "9,999", 10_000: "10k", 943_204: "943k",
		1_000_000: "1.0M", 1_424_978: "1.4M", 9_999_999: "9.9M", 26_446_048: "26M",
	} {
		if got := mapTokenCount(n); got != want {
			t.Errorf("mapTokenCount(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestProjectKind: the root's manifests name the project; a web application
// with a package.json for its assets is named for both (a Rails app, laravel
// and matomo were "npm package" alone).
func TestProjectKind(t *testing.T) {
	tests := []struct {
		name string
		tree fstest.MapFS
		want string
	}{
		{"rails", fstest.MapFS{
			"Gemfile":               {Data: []byte("source \"https://rubygems.org\"\ngem \"rails\"\n")},
			"config/application.rb": {Data: []byte("module Maybe\nend\n")},
			"package.json":          {Data: []byte(`{"name": "maybe"}`)},
		}, "Rails application; npm package `maybe`"},
		{"ruby gem", fstest.MapFS{"Gemfile": {Data: []byte("gemspec\n")}}, "Ruby project"},
		{"laravel", fstest.MapFS{
			"composer.json": {Data: []byte(`{"name": "laravel/laravel", "type": "project"}`)},
			"package.json":  {Data: []byte(`{"private": true}`)},
		}, "PHP package `laravel/laravel`; npm package"},
		{"maven and gradle", fstest.MapFS{
			"build.gradle.kts": {Data: []byte("plugins { java }\n")},
			"pom.xml":          {Data: []byte("<project/>\n")},
		}, "Gradle project; Maven project"},
		{"nested manifests are not the root's", fstest.MapFS{"web/composer.json": {Data: []byte(`{"name": "a/b"}`)}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			entries := stagedEntries(tt.tree)
			sort.Slice(entries, func(i, j int) bool { return entries[i].Path < entries[j].Path }) // as files.json
			staged := make([]*snapshot.Entry, len(entries))
			for i := range entries {
				staged[i] = &entries[i]
			}
			if got := projectKind(staged, tt.tree); got != tt.want {
				t.Errorf("projectKind = %q, want %q", got, tt.want)
			}
		})
	}
}

func hashHex(data []byte) string {
	sum := blake3.Sum256(data)
	return hex.EncodeToString(sum[:])
}
