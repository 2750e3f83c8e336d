package report

import (
	"fmt"
	"sort"
	"strings"

	"github.com/repoprep/repoprep/internal/numfmt"
	"github.com/repoprep/repoprep/snapshot"
)

// What reading the snapshot costs an agent: the o200k tokens of the staged
// files (duplicates once, through their canonical copy), by category, by
// top-level directory, and the files that cost the most. repomix,
// gitingest and code2prompt all lead with this number.

// AuditTokens is the token count of one category or top-level directory.
type AuditTokens struct {
	Name   string `json:"name"`
	Files  int    `json:"files"`  // staged files
	Tokens int64  `json:"tokens"` // their o200k tokens
}

// AuditTokenFile is one of the staged files that cost the most tokens.
type AuditTokenFile struct {
	Path     string `json:"path"`
	Tokens   int    `json:"tokens"`
	Lines    int    `json:"lines"`
	Category string `json:"category"`
}

const (
	auditTopTokenFiles = 10 // the files an agent should read by range
	auditTopTokenDirs  = 50 // top-level directories kept in report.json; the rest are summed in the total
)

// TokenTally is where a snapshot's tokens sit: a function of the manifest
// that the audit and REPO_MAP.md both show.
type TokenTally struct {
	Total      int64
	ByCategory []AuditTokens    // by tokens
	ByDir      []AuditTokens    // top-level directories ("." for root files), by tokens, at most auditTopTokenDirs
	TopFiles   []AuditTokenFile // the auditTopTokenFiles staged files with the most tokens
}

// Tokens tallies the o200k tokens of the staged entries of m.
func Tokens(m *snapshot.Manifest) TokenTally {
	var a TokenTally
	cats, dirs := map[string]*AuditTokens{}, map[string]*AuditTokens{}
	add := func(byName map[string]*AuditTokens, name string, tokens int) {
		c := byName[name]
		if c == nil {
			c = &AuditTokens{Name: name}
			byName[name] = c
		}
		c.Files++
		c.Tokens += int64(tokens)
	}
	var top []AuditTokenFile // largest first, at most auditTopTokenFiles
	for i := range m.Files {
		e := &m.Files[i]
		if !e.Staged {
			continue
		}
		a.Total += int64(e.Tokens)
		add(cats, e.Category, e.Tokens)
		add(dirs, topLevelDir(e.Path), e.Tokens)
		if len(top) == auditTopTokenFiles && !tokensBefore(e.Tokens, e.Path, top[len(top)-1]) {
			continue
		}
		j := sort.Search(len(top), func(j int) bool { return tokensBefore(e.Tokens, e.Path, top[j]) })
		if len(top) < auditTopTokenFiles {
			top = append(top, AuditTokenFile{})
		}
		copy(top[j+1:], top[j:])
		top[j] = AuditTokenFile{Path: e.Path, Tokens: e.Tokens, Lines: e.Lines, Category: e.Category}
	}
	a.ByCategory = rankTokens(cats, 0)
	a.ByDir = rankTokens(dirs, auditTopTokenDirs)
	a.TopFiles = top
	if a.TopFiles == nil {
		a.TopFiles = []AuditTokenFile{}
	}
	return a
}

// addTokens fills the audit's token totals (Tokens).
func (a *Audit) addTokens(m *snapshot.Manifest) {
	t := Tokens(m)
	a.Tokens, a.TokensByCategory, a.TokensByDir, a.TopTokenFiles = t.Total, t.ByCategory, t.ByDir, t.TopFiles
}

// topLevelDir is the first segment of a slash path, or "." for a file at
// the root.
func topLevelDir(p string) string {
	if i := strings.IndexByte(p, '/'); i >= 0 {
		return p[:i]
	}
	return "."
}

// tokensBefore orders by tokens, most first, then by path.
func tokensBefore(tokens int, p string, f AuditTokenFile) bool {
	if tokens != f.Tokens {
		return tokens > f.Tokens
	}
	return p < f.Path
}

// rankTokens sorts by tokens, most first, then by name; top > 0 keeps that many.
func rankTokens(byName map[string]*AuditTokens, top int) []AuditTokens {
	out := make([]AuditTokens, 0, len(byName))
	for _, c := range byName {
		out = append(out, *c)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Tokens != out[j].Tokens {
			return out[i].Tokens > out[j].Tokens
		}
		return out[i].Name < out[j].Name
	})
	if top > 0 && len(out) > top {
		out = out[:top]
	}
	return out
}

// renderTokens writes the token totals: the whole, by category, by
// top-level directory (the rows cut summed into "and N more", so the
// column adds up to the whole) and the costliest files.
func (r *auditWriter) renderTokens(a Audit) {
	if a.Staged == 0 {
		return
	}
	r.title(fmt.Sprintf("Tokens of the staged files (o200k): %s", numfmt.Int(a.Tokens)))
	for _, c := range a.TokensByCategory {
		r.row(c.Name, numfmt.Int(c.Files)+" "+numfmt.Plural(c.Files, "file", "files"), numfmt.Int(c.Tokens), numfmt.Pct(c.Tokens, a.Tokens))
	}
	r.title("Tokens by top-level directory")
	var shown int64
	for i, c := range a.TokensByDir {
		if i == auditMaxRows {
			break
		}
		name := c.Name + "/"
		if c.Name == "." {
			name = "(root files)"
		}
		r.row(name, numfmt.Int(c.Files)+" "+numfmt.Plural(c.Files, "file", "files"), numfmt.Int(c.Tokens), numfmt.Pct(c.Tokens, a.Tokens))
		shown += c.Tokens
	}
	if len(a.TokensByDir) > auditMaxRows {
		rest := a.Tokens - shown
		r.row("other directories", "", numfmt.Int(rest), numfmt.Pct(rest, a.Tokens))
	}
	if len(a.TopTokenFiles) > 0 {
		r.title(fmt.Sprintf("Largest files by tokens: top %d", len(a.TopTokenFiles)))
		for _, f := range a.TopTokenFiles {
			r.row(f.Path, numfmt.Int(f.Tokens), numfmt.Int(f.Lines)+" "+numfmt.Plural(f.Lines, "line", "lines"), f.Category)
		}
	}
}
