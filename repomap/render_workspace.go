package repomap

import (
	"fmt"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/repoprep/repoprep/internal/numfmt"
)

// Rendering what the manifests declare: the "Workspace packages"
// section, and the declared commands and library entries that open
// "Entry points".

// renderWorkspaces lists the workspace packages, first-party ones by
// size, then the rest as counts per group ("playground 197").
func (f *mapFacts) renderWorkspaces(b *strings.Builder, c mapCaps) {
	pkgs := f.ws.packages
	if len(pkgs) == 0 {
		return
	}
	b.WriteString("\n## Workspace packages\n")
	fmt.Fprintf(b, "%s %s declared by %s", numfmt.Int(len(pkgs)), numfmt.Plural(len(pkgs), "package", "packages"), strings.Join(f.ws.sources, ", "))
	if c.packages == 0 {
		b.WriteString(".\n")
		return
	}
	// A package that is a top-level directory listed above is described
	// there (hutool's Maven modules, vite's docs/): say so instead of
	// listing it twice.
	above := map[string]bool{}
	for i, d := range f.modules {
		if i == c.modules {
			break
		}
		above[d.path] = true
	}
	var rest []*mapPackage
	for _, p := range pkgs {
		if !above[p.dir] {
			rest = append(rest, p)
		}
	}
	if n := len(pkgs) - len(rest); n > 0 {
		fmt.Fprintf(b, "; %s %s above", numfmt.Int(n), numfmt.Plural(n, "is a top-level directory listed", "are top-level directories listed"))
		pkgs = rest
	}
	b.WriteString(".\n")
	firstParty := 0
	for _, p := range pkgs {
		if p.group == "" {
			firstParty++
		}
	}
	// Packages under examples and tests are listed one by one only when
	// there is nothing else to list.
	listed := min(c.packages, len(pkgs))
	if firstParty > 0 {
		listed = min(listed, firstParty)
	}
	if len(pkgs) == 0 {
		return
	}
	for _, p := range pkgs[:listed] {
		b.WriteString("- " + mapCode(mapElide(p.dir+"/", c.pathRunes)))
		if p.name != "" {
			b.WriteString(" " + mapCode(mapElide(p.name, c.pathRunes)))
		}
		fmt.Fprintf(b, " %s %s, %s tokens", numfmt.Int(p.files), numfmt.Plural(p.files, "file", "files"), mapTokenCount(p.tokens))
		if role := f.packageRole(p, c); role != "" {
			b.WriteString(" — " + role)
		}
		b.WriteString("\n")
	}
	rest = pkgs[listed:]
	if len(rest) == 0 {
		return
	}
	groups := map[string]int{}
	for _, p := range rest {
		groups[cmpOr(p.group, "other")]++
	}
	fmt.Fprintf(b, "- and %s more", numfmt.Int(len(rest)))
	if ranked := rankCounts(groups); len(ranked) > 1 || ranked[0].name != "other" {
		b.WriteString(":")
		for i, g := range ranked {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(b, " %s %s", g.name, numfmt.Int(g.n))
		}
	}
	b.WriteString("\n")
}

// packageRole is what a package is for: the commands it declares (the
// most concrete thing to say), else what the repository's agent
// instructions call it, else its sample group's role, else the
// conventional role of its directory's name.
func (f *mapFacts) packageRole(p *mapPackage, c mapCaps) string {
	var names []string
	for _, d := range f.ws.declared.commands {
		if strings.HasPrefix(d.path, p.dir+"/") {
			names = append(names, d.names...)
		}
	}
	if len(names) > 0 {
		return numfmt.Plural(len(names), "command ", "commands ") + codeList(names, 2)
	}
	if note := quoteNote(p.note, c); note != "" {
		return note
	}
	if r := groupRoles[p.group]; r != "" {
		return r
	}
	return dirRoles[strings.ToLower(path.Base(p.dir))]
}

// quoteNote shows an instruction file's words as a quotation, so a
// reader can tell them from the map's own; "" when they are longer than
// this level affords (c.pathRunes+16 runes): a note cut to "The source
// code for the…" says nothing.
func quoteNote(s string, c mapCaps) string {
	if s == "" || utf8.RuneCountInString(s) > c.pathRunes+16 {
		return ""
	}
	return "“" + s + "”"
}

// codeList writes up to n names as code spans, then how many more.
func codeList(names []string, n int) string {
	var parts []string
	for i, name := range names {
		if i == n {
			parts = append(parts, "and "+numfmt.Int(len(names)-i)+" more")
			break
		}
		parts = append(parts, mapCode(mapElide(name, 24)))
	}
	return strings.Join(parts, ", ")
}

// declaredRunes is the shortest a declared entry point's path is elided
// to: vite's packages/vite/bin/vite.js whole, with room to spare.
const declaredRunes = 48

// renderDeclared writes the commands and library entries manifests
// declare, commands first: they are where a user starts.
func (f *mapFacts) renderDeclared(b *strings.Builder, c mapCaps) {
	list := func(label string, ds []mapDeclared, limit int) {
		if len(ds) == 0 {
			return
		}
		b.WriteString("- " + label + ": ")
		for i, d := range ds {
			if i >= limit {
				fmt.Fprintf(b, ", and %s more", numfmt.Int(len(ds)-i))
				break
			}
			if i > 0 {
				b.WriteString(", ")
			}
			// An elided path cannot be read: these few are where a reader
			// starts, so they keep up to declaredRunes at every level.
			b.WriteString(mapCode(mapElide(d.path, max(c.pathRunes, declaredRunes))))
			if len(d.names) > 0 {
				b.WriteString(" (" + codeList(d.names, 2) + ")")
			}
		}
		b.WriteString("\n")
	}
	list("Declared commands", f.ws.declared.commands, c.entries)
	// Library entries follow a crate's or package's convention more often
	// than commands do (src/lib.rs): fewer of them.
	list("Declared library entries", f.ws.declared.libs, max(c.entries/2, min(c.entries, 2)))
}
