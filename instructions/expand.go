package instructions

import (
	"fmt"
	"path"
	"slices"
	"strings"
)

// expansion follows one instruction file's @imports, depth first in the
// order they appear, as an agent loading the file would.
type expansion struct {
	b     *builder
	root  *File
	seen  map[string]bool // staged texts already expanded for this file
	count int
}

// expand resolves the imports found in the file at logical path from (whose
// relative imports resolve against its directory); chain holds the logical
// paths from the root file down to from, sources their staged texts.
func (x *expansion) expand(from string, raws []rawImport, chain, sources []string) []Import {
	var out []Import
	for _, raw := range raws {
		imp := x.one(from, raw, chain, sources)
		if imp.Status != ImportOK && imp.Status != ImportRepeat {
			where := ""
			if from != x.root.Path {
				where = " of " + from
			}
			x.root.Warnings = append(x.root.Warnings, fmt.Sprintf("line %d%s: @%s: %s", imp.Line, where, imp.Spec, imp.Detail))
		}
		out = append(out, imp)
	}
	return out
}

func (x *expansion) one(from string, raw rawImport, chain, sources []string) Import {
	imp := Import{Line: raw.line, Spec: raw.spec}
	target, status, detail := x.b.resolveImport(from, raw.spec)
	if status != ImportOK {
		imp.Status, imp.Detail = status, detail
		return imp
	}
	if t := strings.TrimRight(raw.spec, ".,;:!?)]}'\""); target != path.Join(parentDir(from), raw.spec) && t != raw.spec {
		imp.Spec = t // "see @docs/a.md." imports docs/a.md
	}
	imp.Path = target
	src, why := x.b.source(target)
	hops := len(chain) // the root is chain[0]: its own imports are one hop away
	switch {
	case src == "":
		imp.Status, imp.Detail = ImportMissing, why
	case slices.Contains(sources, src):
		i := slices.Index(sources, src)
		imp.Source = src
		imp.Status = ImportCycle
		imp.Detail = "import cycle: " + strings.Join(append(slices.Clone(chain[i:]), target), " → ") + "; not imported again"
	case hops > MaxHops:
		imp.Source = src
		imp.Status = ImportTooDeep
		imp.Detail = fmt.Sprintf("more than %d hops from %s (%s); not imported", MaxHops, x.root.Path, strings.Join(append(slices.Clone(chain), target), " → "))
	case x.seen[src]:
		imp.Source = src
		imp.Status, imp.Detail = ImportRepeat, "already imported above"
	case x.count >= maxImportsPerFile:
		imp.Source = src
		imp.Status, imp.Detail = ImportTooMany, fmt.Sprintf("more than %d imports for one file; not imported", maxImportsPerFile)
	default:
		pt, err := x.b.parse(src, true)
		if err != nil {
			imp.Status, imp.Detail = ImportMissing, err.Error()
			return imp
		}
		x.count++
		x.seen[src] = true
		imp.Source, imp.Status = src, ImportOK
		imp.Chars, imp.Tokens = pt.chars, x.b.byPath[src].Tokens
		x.root.TotalChars += imp.Chars
		x.root.TotalTokens += imp.Tokens
		imp.Imports = x.expand(target, pt.imports, append(slices.Clone(chain), target), append(slices.Clone(sources), src))
	}
	return imp
}

// resolveImport turns an @path written in the file at from into a snapshot
// path. Anything that would leave the snapshot is refused: a home-directory
// path, an absolute path, or one that climbs above the root.
func (b *builder) resolveImport(from, spec string) (string, string, string) {
	switch {
	case strings.HasPrefix(spec, "~"):
		return "", ImportOutside, "a home-directory path, outside the snapshot; refused"
	case path.IsAbs(spec):
		return "", ImportOutside, "an absolute path, outside the snapshot; refused"
	}
	target := path.Join(parentDir(from), spec)
	if target == ".." || strings.HasPrefix(target, "../") {
		return "", ImportOutside, fmt.Sprintf("resolves to %s, which leaves the snapshot; refused", target)
	}
	if target == "." {
		return "", ImportMissing, "names the root directory, not a file"
	}
	if _, ok := b.byPath[target]; ok {
		return target, ImportOK, ""
	}
	// "See @docs/a.md." means docs/a.md: try without trailing punctuation.
	if t := strings.TrimRight(spec, ".,;:!?)]}'\""); t != spec && t != "" {
		if alt := path.Join(parentDir(from), t); alt != ".." && !strings.HasPrefix(alt, "../") {
			if _, ok := b.byPath[alt]; ok {
				return alt, ImportOK, ""
			}
		}
	}
	if b.isDir(target) {
		return "", ImportMissing, fmt.Sprintf("%s is a directory, not a file", target)
	}
	return "", ImportMissing, b.absent(target)
}
