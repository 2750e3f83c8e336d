package instructions

import "strings"

// lookup indexes the texts a chain can load by the path naming them: the
// Claude files holding their own Refs, then Imported (which holds a Claude
// file's Refs when that file's own chain was left out).
func (idx *Index) lookup() map[string]*node {
	m := make(map[string]*node, len(idx.Files)+len(idx.Imported))
	for i := range idx.Files {
		if f := &idx.Files[i]; f.Agent == AgentClaude && f.Source != "" {
			m[f.Path] = &node{source: f.Source, chars: f.Chars, tokens: f.Tokens, refs: f.Imports}
		}
	}
	for i := range idx.Imported {
		t := &idx.Imported[i]
		m[t.Path] = &node{source: t.Source, chars: t.Chars, tokens: t.Tokens, refs: t.Imports}
	}
	return m
}

// Load gives f's imports as an agent loading f meets them, each with the
// status it has for f, expanded only where f's stored Chain says so, and
// every warning of f and of the texts it loads, in the order Build found
// them. The index stores each text's imports once; Load puts them back
// together for one file. It only reads idx: the server calls it from many
// requests at once.
func (idx *Index) Load(f *File) ([]Import, []string) {
	texts := idx.texts
	if texts == nil { // an Index made by hand, not by Build or Parse
		texts = idx.lookup()
	}
	if f.Agent != AgentClaude || f.Source == "" || len(f.Imports) == 0 {
		return nil, f.Warnings
	}
	w := newWalker(f, func(p string) (*node, error) { return texts[p], nil })
	w.replaying, w.replay, w.tree = true, f.Chain, true
	imports, _ := w.walkRoot(f.Imports) // a lookup never fails
	total := ""
	if f.TotalChars > WarnChars {
		total = totalWarning(f.TotalChars)
	}
	var warnings []string
	for _, s := range f.Warnings {
		if !strings.HasPrefix(s, "line ") && !strings.HasPrefix(s, chainPrefix) && s != total {
			warnings = append(warnings, s)
		}
	}
	warnings = append(warnings, w.warnings...)
	if total != "" && len(f.Warnings) > 0 && f.Warnings[len(f.Warnings)-1] == total {
		warnings = append(warnings, total)
	}
	return imports, warnings
}
