// Package instructionstest writes, at test time, a repository whose agent
// instructions exercise every rule the instructions index follows: nested
// CLAUDE.md files at three levels, CLAUDE.local.md, Claude rules with and
// without paths:, an import cycle, a six-hop import chain, imports that
// leave the repository, AGENTS.md as a symlink to CLAUDE.md, a file over
// 40,000 characters, Cursor's and Copilot's files. Only tests import it.
package instructionstest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Outside is the text of a file beside the repository that imports and
// symlinks try to reach; no answer may ever contain it.
const Outside = "OUTSIDE THE REPOSITORY: never served"

// Files is the repository as slash path -> content (symlinks are in Links).
func Files() map[string]string {
	files := map[string]string{
		"CLAUDE.md": "# Project memory\n\nRun `make test` before committing.\n" +
			"Style: @docs/style.md\n" +
			"Cycle starts here: @docs/a.md\n" +
			"Missing: @docs/missing.md\n" +
			"See @docs/guide.md.\n" +
			"Not imports: `@docs/never.md`, me@example.com and\n\n" +
			"```\n@docs/never.md\n```\n",
		"CLAUDE.local.md": "# Local notes\n\nUse the staging database.\n",
		"docs/style.md":   "Tabs for indentation.\n",
		"docs/a.md":       "A imports B: @b.md\n",
		"docs/b.md":       "B imports A again: @a.md\nand the project memory: @../CLAUDE.md\n",
		"docs/guide.md":   "# Guide\n\nRead the README first.\n",
		"src/CLAUDE.md":   "# src\n\nEvery package has a doc comment.\nChain: @../chain/h1.md\n",
		"chain/h1.md":     "hop 1 @h2.md\n",
		"chain/h2.md":     "hop 2 @h3.md\n",
		"chain/h3.md":     "hop 3 @h4.md\n",
		"chain/h4.md":     "hop 4 @h5.md\n",
		"chain/h5.md":     "hop 5 @h6.md\n",
		"chain/h6.md":     "hop 6: too deep to be read\n",
		"src/util.go":     "package src\n",
		"src/api/CLAUDE.md": "# api\n\nHandlers return errors, never panic.\n" +
			"Escapes: @../../../outside.md and @~/.claude/me.md and @/etc/hostname\n",
		"src/api/CLAUDE.local.md":                     "ignored by .gitignore\n",
		"src/api/handler.go":                          "package api\n",
		"src/api/handler_test.go":                     "package api\n",
		".gitignore":                                  "src/api/CLAUDE.local.md\n",
		".claude/rules/style.md":                      "# Style rule (no paths: applies everywhere)\n\nKeep functions short.\n",
		".claude/rules/api.md":                        "---\npaths:\n  - \"src/api/**/*.go\"\n---\n# API rule\n\nValidate every request.\n",
		".claude/rules/tests.md":                      "---\npaths: [\"**/*_test.go\", \"web/**/*.{spec,test}.ts\"]\n---\nTable tests, please.\n",
		"web/AGENTS.md":                               "# web\n\nUse pnpm.\n",
		"web/app.ts":                                  "export {}\n",
		"web/app.test.ts":                             "export {}\n",
		".cursorrules":                                "Legacy Cursor rules: be brief.\n",
		".cursor/rules/go.mdc":                        "---\ndescription: Go style\nglobs: *.go,src/**/*.go\nalwaysApply: false\n---\nGo: gofmt everything.\n",
		".cursor/rules/always.mdc":                    "---\nalwaysApply: true\n---\nAlways answer in English.\n",
		".cursor/rules/db.mdc":                        "---\ndescription: Database migrations\n---\nNever edit an applied migration.\n",
		".github/copilot-instructions.md":             "Copilot: prefer small functions.\n",
		".github/instructions/ts.instructions.md":     "---\napplyTo: \"**/*.ts\"\n---\nTypeScript: strict mode.\n",
		".github/instructions/manual.instructions.md": "No applyTo: attached by hand only.\n",
		"big/CLAUDE.md":                               Big(),
		"big/notes.txt":                               "beside the big memory file\n",
	}
	return files
}

// Links is every symlink of the repository: path -> target as written.
func Links() map[string]string {
	return map[string]string{
		"AGENTS.md":         "CLAUDE.md",                // the common alias
		"lib/CLAUDE.md":     "../../outside.md",         // leaves the repository
		"lib/code.go":       "../src/util.go",           // an ordinary link, not an instruction
		"docs/CLAUDE.md":    "/etc/hostname",            // absolute
		".claude/CLAUDE.md": "../docs/style.md",         // .claude/CLAUDE.md governs the root
		"src/AGENTS.md":     "../web/missing-AGENTS.md", // dangling
	}
}

// Big is a memory file over 40,000 characters (and fewer bytes' worth of
// characters than bytes: it is not ASCII).
func Big() string {
	var b strings.Builder
	b.WriteString("# A memory file that grew too large\n\n")
	for i := 1; b.Len() < 56_000; i++ {
		fmt.Fprintf(&b, "Règle numéro %d : écrire un test avant le code.\n", i)
	}
	return b.String()
}

// Write creates the repository under dir/repo and the file it must never
// leak beside it (dir/outside.md); it returns the repository's path.
func Write(t testing.TB, dir string) string {
	t.Helper()
	root := filepath.Join(dir, "repo")
	for name, content := range Files() {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, target := range Links() {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "outside.md"), []byte(Outside+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return root
}
