package repomap

import (
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/repoprep/repoprep/internal/numfmt"
)

// Rendering: each section of the map at one detail level (mapCaps), and
// the number and path formatting they share.

// render writes the map at one level of detail.
func (f *mapFacts) render(c mapCaps) string {
	var b strings.Builder
	if f.name != "" {
		fmt.Fprintf(&b, "# Repository map: %s\n\n", mapElide(f.name, 60))
	} else {
		b.WriteString("# Repository map\n\n")
	}
	if f.kind != "" {
		b.WriteString(mapElide(f.kind, c.pathRunes+20) + ". ")
	}
	fmt.Fprintf(&b, "%s of %s scanned files are staged for reading (%s", numfmt.Int(f.staged), numfmt.Int(f.scanned), numfmt.Bytes(f.stagedBytes))
	f.tokens.render(&b, c)
	b.WriteString(").")
	if len(f.langs) > 0 {
		b.WriteString(" Languages by lines of source: ")
		shown := 0
		for i, l := range f.langs {
			pct := l.n * 100 / max(f.langLines, 1)
			if i >= c.langs || (pct < 1 && i > 0) {
				break
			}
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%s %s", l.name, numfmt.Pct(l.n, f.langLines))
			shown += l.n
		}
		if rest := f.langLines - shown; rest*100/max(f.langLines, 1) >= 1 {
			fmt.Fprintf(&b, ", other %s", numfmt.Pct(rest, f.langLines))
		}
		b.WriteString(".")
	}
	b.WriteString("\n")

	f.renderModules(&b, c)
	f.renderWorkspaces(&b, c)
	f.renderTests(&b, c)
	f.renderEntryPoints(&b, c)
	f.renderAgents(&b, c)
	f.renderLeftOut(&b, c)

	b.WriteString("\n## Reading more\n")
	b.WriteString("- `list_files` pages through files.json (filter by prefix, glob, category, test); `search` runs a regular expression over the staged tree.\n")
	b.WriteString("- `read_file` takes paths from files.json, with optional line ranges; a duplicate path serves its canonical copy.\n")
	f.tokens.renderFiles(&b, c)
	if f.documentsTotal+f.documentsRefused > 0 {
		f.renderDocuments(&b, c)
	}
	if f.masked > 0 {
		fmt.Fprintf(&b, "- %s %s masked as `[REDACTED:<rule>]` in %s %s (files.json `masked`, secrets.json); the staged text is otherwise the source decoded to UTF-8.\n",
			numfmt.Int(f.masked), numfmt.Plural(f.masked, "secret is", "secrets are"), numfmt.Int(f.maskedFiles), numfmt.Plural(f.maskedFiles, "file", "files"))
	}
	if f.oversize > 0 {
		fmt.Fprintf(&b, "- %s oversize %s served by line range only; oversize.json lists %s with %s first lines.\n",
			numfmt.Int(f.oversize), numfmt.Plural(f.oversize, "file is", "files are"), numfmt.Plural(f.oversize, "it", "them"), numfmt.Plural(f.oversize, "its", "their"))
	}
	return b.String()
}

func (f *mapFacts) renderModules(b *strings.Builder, c mapCaps) {
	b.WriteString("\n## Top-level directories\n")
	if len(f.modules) == 0 {
		fmt.Fprintf(b, "All %s staged files sit at the root.\n", numfmt.Int(f.rootFiles))
		return
	}
	if c.modules == 0 {
		fmt.Fprintf(b, "%s directories; the largest is %s (%s files).", numfmt.Int(len(f.modules)),
			mapCode(mapElide(f.modules[0].path+"/", c.pathRunes)), numfmt.Int(f.modules[0].files))
		if f.rootFiles > 0 {
			fmt.Fprintf(b, " %s %s at the root.", numfmt.Int(f.rootFiles), numfmt.Plural(f.rootFiles, "file sits", "files sit"))
		}
		b.WriteString("\n")
		return
	}
	shown := 0
	for i, d := range f.modules {
		if i >= c.modules {
			break
		}
		shown += d.files
		b.WriteString("- " + f.describeDir(d, c) + "\n")
		if c.children == 0 || float64(d.files) < largeModuleShare*float64(f.staged) {
			continue
		}
		kids := d.kids
		if len(kids) > 0 && float64(kids[0].files) >= dominantChildShare*float64(d.files) && len(kids[0].kids) > 1 {
			kids = kids[0].kids // look through frontend/src to frontend/src/*
		}
		if len(kids) < 2 || c.packages > 0 && f.ws.listsMost(kids[:min(len(kids), c.children)]) {
			continue // crates/*: the workspace packages below say more
		}
		b.WriteString("  - inside: ")
		for j, k := range kids {
			if j >= c.children {
				fmt.Fprintf(b, ", and %s more", numfmt.Int(len(kids)-j))
				break
			}
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString(mapCode(mapElide(k.path+"/", c.pathRunes)) + " " + numfmt.Int(k.files))
			switch role := dirRole(k); {
			case quoteNote(f.notes[k.path], c) != "":
				b.WriteString(" (" + quoteNote(f.notes[k.path], c) + ")")
			case sampleGroup(d.path) != "":
				// playground/css/ holds a demo of CSS handling, not the styles
			case role != "" && role != dirRole(d): // docs/tutorial/ in docs/ says nothing new
				b.WriteString(" (" + role + ")")
			}
		}
		b.WriteString("\n")
	}
	if f.rootFiles > 0 {
		fmt.Fprintf(b, "- %s %s at the root\n", numfmt.Int(f.rootFiles), numfmt.Plural(f.rootFiles, "file", "files"))
	}
	if rest := len(f.modules) - c.modules; rest > 0 {
		fmt.Fprintf(b, "- and %s more %s (%s files)\n", numfmt.Int(rest), numfmt.Plural(rest, "directory", "directories"),
			numfmt.Int(f.staged-f.rootFiles-shown))
	}
}

// describeDir is one module line: path, staged files, main language, role.
func (f *mapFacts) describeDir(d *mapDir, c mapCaps) string {
	s := mapCode(mapElide(d.path+"/", c.pathRunes)) + " " + numfmt.Int(d.files) + " " + numfmt.Plural(d.files, "file", "files")
	if lang := d.language(); lang != "" {
		s += ", " + lang
	}
	if note := quoteNote(f.notes[d.path], c); note != "" {
		s += " — " + note
	} else if role := dirRole(d); role != "" {
		s += " — " + role
	}
	return s
}
func (f *mapFacts) renderTests(b *strings.Builder, c mapCaps) {
	b.WriteString("\n## Tests\n")
	if f.tests == 0 {
		b.WriteString("No staged test files.\n")
		return
	}
	fmt.Fprintf(b, "%s staged test %s (%s of staged).", numfmt.Int(f.tests), numfmt.Plural(f.tests, "file", "files"), numfmt.Pct(f.tests, f.staged))
	list := func(label string, items []mapCount, item func(mapCount) string) {
		if len(items) == 0 || c.testPlaces == 0 {
			return
		}
		b.WriteString(" " + label + ": ")
		for i, it := range items {
			if i >= c.testPlaces {
				fmt.Fprintf(b, ", and %s more", numfmt.Int(len(items)-i))
				break
			}
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(item(it))
		}
		b.WriteString(".")
	}
	list("Beside the code", f.testPatterns, func(it mapCount) string {
		if it.name == "other" {
			return numfmt.Int(it.n) + " other"
		}
		return numfmt.Int(it.n) + " " + mapCode(it.name)
	})
	dirs := f.testDirs
	if c.pathRunes < 60 {
		dirs = elideCounts(dirs, c.pathRunes)
	}
	list("In test directories", dirs, func(it mapCount) string { return numfmt.Int(it.n) + " in " + it.name })
	b.WriteString("\n")
}

// elideCounts shortens the code-span names of counts to about maxRunes.
// renderDocuments says which staged files are documents read as text.
func (f *mapFacts) renderDocuments(b *strings.Builder, c mapCaps) {
	var kinds []string
	for i, d := range f.documents {
		if i == c.reasons {
			kinds = append(kinds, "…")
			break
		}
		kinds = append(kinds, d.name+" "+numfmt.Int(d.n))
	}
	list := ""
	if len(kinds) > 0 && kinds[0] != "…" {
		list = " (" + strings.Join(kinds, ", ") + ")"
	}
	b.WriteString("- ")
	if f.documentsTotal > 0 {
		fmt.Fprintf(b, "%s %s%s %s as the text extracted from %s, under %s own %s (`extracted_from` in files.json)",
			numfmt.Int(f.documentsTotal), numfmt.Plural(f.documentsTotal, "document", "documents"), list,
			numfmt.Plural(f.documentsTotal, "reads", "read"), numfmt.Plural(f.documentsTotal, "it", "them"),
			numfmt.Plural(f.documentsTotal, "its", "their"), numfmt.Plural(f.documentsTotal, "path", "paths"))
		if f.documentsTruncated > 0 {
			fmt.Fprintf(b, ", %s cut short at a work limit (`truncated` in files.json says what was left out)", numfmt.Int(f.documentsTruncated))
		}
		if f.documentsRefused > 0 {
			b.WriteString("; ")
		}
	}
	if f.documentsRefused > 0 {
		fmt.Fprintf(b, "%s %s could not be read as text (encrypted, unreadable, over a limit or without text: `reason` in files.json)",
			numfmt.Int(f.documentsRefused), numfmt.Plural(f.documentsRefused, "document", "documents"))
	}
	b.WriteString(".\n")
}

func elideCounts(cs []mapCount, maxRunes int) []mapCount {
	out := make([]mapCount, len(cs))
	for i, c := range cs {
		out[i] = mapCount{mapElide(c.name, maxRunes+2), c.n}
	}
	return out
}

func (f *mapFacts) renderLeftOut(b *strings.Builder, c mapCaps) {
	b.WriteString("\n## Left out\n")
	if f.leftTotal == 0 {
		b.WriteString("Every scanned file is staged")
	} else {
		fmt.Fprintf(b, "%s %s not staged: ", numfmt.Int(f.leftTotal), numfmt.Plural(f.leftTotal, "file", "files"))
		for i, l := range f.leftOut {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(mapElide(l.category, 20) + " " + numfmt.Int(l.n))
			var rs []string
			for _, r := range l.reasons {
				if len(rs) == c.reasons {
					rs = append(rs, "…")
					break
				}
				if r.name != "" && r.name != l.category {
					rs = append(rs, mapElide(r.name, 24)+" "+numfmt.Int(r.n))
				}
			}
			if len(rs) > 0 && rs[0] != "…" {
				b.WriteString(" (" + strings.Join(rs, ", ") + ")")
			}
		}
	}
	b.WriteString(".")
	if f.dups > 0 {
		fmt.Fprintf(b, " %s %s to a staged copy (`duplicate_of`).", numfmt.Int(f.dups), numfmt.Plural(f.dups, "duplicate points", "duplicates point"))
	}
	if f.prunedTotal > 0 {
		fmt.Fprintf(b, " %s %s not walked", numfmt.Int(f.prunedTotal), numfmt.Plural(f.prunedTotal, "directory", "directories"))
		limit := max(c.modules/2, 1)
		for i, p := range f.pruned {
			if i == 0 {
				b.WriteString(": ")
			} else {
				b.WriteString(", ")
			}
			if i >= limit {
				fmt.Fprintf(b, "and %s more", numfmt.Int(len(f.pruned)-i))
				break
			}
			b.WriteString(mapCode(mapElide(p.name, c.pathRunes)))
			if p.n > 1 {
				b.WriteString(" ×" + numfmt.Int(p.n))
			}
		}
		b.WriteString(".")
	}
	b.WriteString("\n")
}

// mapCode writes s as a Markdown code span, widening the fence when s
// holds a backtick.
func mapCode(s string) string {
	if !strings.Contains(s, "`") {
		return "`" + s + "`"
	}
	return "`` " + s + " ``"
}

// mapElide shortens s to maxRunes by cutting its middle, so both the start
// of a path and its file name stay readable.
func mapElide(s string, maxRunes int) string {
	if maxRunes <= 0 || utf8.RuneCountInString(s) <= maxRunes {
		return s
	}
	r := []rune(s)
	head := maxRunes / 3
	tail := maxRunes - head - 1
	return string(r[:head]) + "…" + string(r[len(r)-tail:])
}

func (f *mapFacts) renderEntryPoints(b *strings.Builder, c mapCaps) {
	b.WriteString("\n## Entry points\n")
	declared := &f.ws.declared
	total := len(declared.commands) + len(declared.libs) + len(f.goMains) + len(f.mainFiles) + len(f.rootScripts) + len(f.scripts) + len(f.docker) + len(f.makeTargets)
	if total == 0 {
		b.WriteString("None recognised (no declared command, Go main package, main file, root script, package.json, Dockerfile or Makefile).\n")
		return
	}
	if c.entries == 0 {
		if len(declared.commands)+len(declared.libs) > 0 {
			fmt.Fprintf(b, "%s declared commands, %s library entry points, ", numfmt.Int(len(declared.commands)), numfmt.Int(len(declared.libs)))
		}
		fmt.Fprintf(b, "%s Go main packages, %s main files, %s root scripts, %s package.json, %s Docker files, %s Makefiles.\n",
			numfmt.Int(len(f.goMains)), numfmt.Int(len(f.mainFiles)), numfmt.Int(len(f.rootScripts)), numfmt.Int(len(f.scripts)), numfmt.Int(len(f.docker)), numfmt.Int(len(f.makeTargets)))
		return
	}
	f.renderDeclared(b, c)
	paths := func(ps []string, suffix string) string {
		var s []string
		for i, p := range ps {
			if i >= c.entries {
				s = append(s, "and "+numfmt.Int(len(ps)-i)+" more")
				break
			}
			s = append(s, mapCode(mapElide(p+suffix, c.pathRunes)))
		}
		return strings.Join(s, ", ")
	}
	if len(f.goMains) > 0 {
		fmt.Fprintf(b, "- Go main packages (%s): %s\n", numfmt.Int(len(f.goMains)), paths(f.goMains, "/"))
	}
	if len(f.mainFiles) > 0 {
		fmt.Fprintf(b, "- Main files: %s\n", paths(f.mainFiles, ""))
	}
	if len(f.rootScripts) > 0 {
		fmt.Fprintf(b, "- Scripts at the root: %s\n", paths(f.rootScripts, ""))
	}
	scripts := func(label string, list []mapScripts, verb string) {
		for i, s := range list {
			if i >= max(c.entries/3, 1) {
				fmt.Fprintf(b, "- and %s more %s\n", numfmt.Int(len(list)-i), label)
				break
			}
			b.WriteString("- " + mapCode(mapElide(s.path, c.pathRunes)))
			if len(s.names) > 0 {
				b.WriteString(" " + verb + ": ")
				for j, n := range s.names {
					if j >= c.entries {
						fmt.Fprintf(b, ", and %s more", numfmt.Int(len(s.names)-j))
						break
					}
					if j > 0 {
						b.WriteString(", ")
					}
					b.WriteString(mapElide(n, 24))
					if cmd := s.cmds[n]; cmd != "" && c.cmdRunes > 0 {
						b.WriteString(" " + mapCode(mapElide(cmd, c.cmdRunes)))
					}
				}
			}
			b.WriteString("\n")
		}
	}
	scripts("package.json files", f.scripts, "scripts")
	if len(f.docker) > 0 {
		fmt.Fprintf(b, "- Docker: %s\n", paths(f.docker, ""))
	}
	scripts("Makefiles", f.makeTargets, "targets")
}

// agentMemoryNames are the instruction files an agent loads in every
// session, listed before rules that apply only to some paths.
var agentMemoryNames = map[string]bool{"CLAUDE.md": true, "CLAUDE.local.md": true, "AGENTS.md": true, ".cursorrules": true}

func (f *mapFacts) renderAgents(b *strings.Builder, c mapCaps) {
	b.WriteString("\n## Agent instructions\n")
	if len(f.agents) == 0 {
		b.WriteString("None found (CLAUDE.md, AGENTS.md, .cursorrules, .cursor/rules/, .github/copilot-instructions.md, .claude/rules/).\n")
		return
	}
	large := 0
	for _, a := range f.agents {
		if a.chars > agentFileWarnChars {
			large++
		}
	}
	if c.agents == 0 {
		fmt.Fprintf(b, "%s instruction %s found", numfmt.Int(len(f.agents)), numfmt.Plural(len(f.agents), "file", "files"))
		if large > 0 {
			fmt.Fprintf(b, "; %s over 40,000 characters, which agents may truncate", numfmt.Int(large))
		}
		b.WriteString(".\n")
		return
	}
	// Large files first: the warning matters more than the listing. Then
	// the files every session loads (CLAUDE.md, AGENTS.md), then the rules
	// that apply by path or on request (.cursor/rules/*.mdc...), each in
	// path order.
	rank := func(a mapAgent) int {
		switch {
		case a.chars > agentFileWarnChars:
			return 0
		case agentMemoryNames[path.Base(a.path)]:
			return 1
		}
		return 2
	}
	agents := slices.Clone(f.agents)
	sort.SliceStable(agents, func(i, j int) bool { return rank(agents[i]) < rank(agents[j]) })
	for i, a := range agents {
		if i >= c.agents {
			fmt.Fprintf(b, "- and %s more\n", numfmt.Int(len(agents)-i))
			break
		}
		fmt.Fprintf(b, "- %s (%s characters)", mapCode(mapElide(a.path, c.pathRunes)), numfmt.Int(a.chars))
		switch {
		case a.source != "" && a.reason == "symlink":
			fmt.Fprintf(b, ", symlink to %s", mapCode(mapElide(a.source, c.pathRunes)))
		case a.source != "":
			fmt.Fprintf(b, ", same text as %s", mapCode(mapElide(a.source, c.pathRunes)))
		case !a.staged:
			fmt.Fprintf(b, ", not staged (%s)", mapElide(a.reason, 24))
		}
		if a.chars > agentFileWarnChars {
			b.WriteString(" ⚠")
		}
		b.WriteString("\n")
	}
	if large > 0 {
		fmt.Fprintf(b, "⚠ marks %s over 40,000 characters: agents may truncate %s; read %s by line range.\n",
			numfmt.Plural(large, "a file", "files"), numfmt.Plural(large, "it", "them"), numfmt.Plural(large, "it", "them"))
	}
}
