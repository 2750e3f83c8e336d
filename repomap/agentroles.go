package repomap

import (
	"io/fs"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// What a repository's own agent instructions say a directory is for
// ("- `playground/`: E2E tests" in vite's copilot instructions). The map
// shows it as the directory's role, quoted, and uses it for nothing
// else: it hides no file and ranks nothing.

const (
	agentRoleHeadBytes = 64 << 10 // roles are read from the head of an instruction file only
	maxAgentRoles      = 64       // per file, and in all
	agentRoleRunes     = 60       // a role longer than this is cut; the map cuts more at its terser levels
)

// dirNote is one directory an instruction file describes, and how.
type dirNote struct {
	dir, text string
}

var (
	// A list item opening with a code span, then a separator and words:
	// "- `docs/`: Documentation", "* **`src/`** — the library".
	agentRoleItem = regexp.MustCompile("^\\s*(?:[-*+]|\\d{1,3}[.)])\\s+(?:\\*\\*|__)?`([^`]{1,200})`(?:\\*\\*|__)?\\s*(?::|-|–|—)\\s*(\\S.*)$")
	// A table row opening with a code span: "| `docs/` | Documentation |".
	agentRoleRow = regexp.MustCompile("^\\s*\\|\\s*`([^`]{1,200})`\\s*\\|\\s*([^|]*\\S)\\s*\\|")
)

// parseAgentRoles reads directory roles from an instruction file's text;
// scope is the directory the file speaks for ("" for the root). A key
// that is not a plain relative path (a glob, one leaving the root) is
// skipped; a file's path is kept, harmlessly: the map looks keys up only
// among the directories it shows.
func parseAgentRoles(text []byte, scope string) []dirNote {
	if len(text) > agentRoleHeadBytes {
		text = text[:agentRoleHeadBytes]
	}
	var out []dirNote
	for line := range strings.Lines(string(text)) {
		line = strings.TrimRight(line, "\r\n")
		m := agentRoleItem.FindStringSubmatch(line)
		if m == nil {
			m = agentRoleRow.FindStringSubmatch(line)
		}
		if m == nil {
			continue
		}
		dir, ok := roleDir(m[1])
		if !ok {
			continue
		}
		text := roleText(m[2])
		if text == "" {
			continue
		}
		out = append(out, dirNote{dir: joinDir(scope, dir), text: text})
		if len(out) == maxAgentRoles {
			break
		}
	}
	return out
}

// roleDir cleans a directory key ("./playground/", "packages/vite").
func roleDir(key string) (string, bool) {
	key = strings.TrimSpace(key)
	key = strings.TrimPrefix(key, "./")
	key = strings.TrimSuffix(key, "/")
	if !fs.ValidPath(key) || key == "." || strings.ContainsAny(key, "*?[]{} \\") || !utf8.ValidString(key) {
		return "", false
	}
	return key, true
}

// roleText makes one line of display text: no control characters or
// backticks, no trailing period, at most agentRoleRunes runes.
func roleText(s string) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == '`' || r == '“' || r == '”' {
			return -1
		}
		return r
	}, s)
	s = strings.TrimSpace(strings.TrimRight(strings.TrimSpace(s), "."))
	return cutWords(s, agentRoleRunes)
}

// cutWords shortens s to at most maxRunes runes, at a word boundary when
// there is one, marking the cut with "…".
func cutWords(s string, maxRunes int) string {
	r := []rune(s)
	if len(r) <= maxRunes {
		return s
	}
	// A space right after the last kept rune is a word boundary too.
	if i := strings.LastIndexByte(string(r[:maxRunes]), ' '); i > 0 {
		return strings.TrimRight(string(r[:maxRunes])[:i], " ,;:-") + "…"
	}
	return string(r[:maxRunes-1]) + "…"
}

// agentScope is the directory an instruction file speaks for: its own,
// or the root for the files tools keep in a config directory.
func agentScope(p string) string {
	for _, dir := range []string{".github/", ".claude/", ".cursor/"} {
		if strings.HasPrefix(p, dir) {
			return ""
		}
	}
	if d := path.Dir(p); d != "." {
		return d
	}
	return ""
}

// agentNotes merges the directory roles of every instruction file: the
// files every session loads first (agentMemoryNames), then the others,
// each in path order; the first text for a directory wins, and at most
// maxAgentRoles are kept.
func agentNotes(agents []mapAgent) map[string]string {
	ordered := slices.Clone(agents)
	sort.SliceStable(ordered, func(i, j int) bool {
		mi, mj := agentMemoryNames[path.Base(ordered[i].path)], agentMemoryNames[path.Base(ordered[j].path)]
		if mi != mj {
			return mi
		}
		return ordered[i].path < ordered[j].path
	})
	notes := map[string]string{}
	for _, a := range ordered {
		for _, r := range a.roles {
			if len(notes) == maxAgentRoles {
				return notes
			}
			if _, ok := notes[r.dir]; !ok {
				notes[r.dir] = r.text
			}
		}
	}
	return notes
}
