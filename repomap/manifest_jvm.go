package repomap

import (
	"bytes"
	"encoding/xml"
	"strings"
)

// What the map reads of JVM builds: a pom.xml's artifactId and
// <modules>, and the projects a settings.gradle(.kts) includes. Input is
// cut at mapConfigBytes; lists keep at most maxManifestItems.

// pomManifest is what the map uses of one pom.xml.
type pomManifest struct {
	artifactID string
	modules    []string // relative directories, as written
}

// parsePom reads a pom.xml. encoding/xml expands no external entities
// and the input is already bounded, so a hostile file costs its size.
func parsePom(data []byte) (m pomManifest, ok bool) {
	var raw struct {
		XMLName    xml.Name
		ArtifactID string   `xml:"artifactId"`
		Modules    []string `xml:"modules>module"`
	}
	dec := xml.NewDecoder(bytes.NewReader(data))
	dec.Strict = false // real poms carry the odd stray '&'
	if dec.Decode(&raw) != nil || raw.XMLName.Local != "project" {
		return m, false
	}
	m.artifactID = strings.TrimSpace(raw.ArtifactID)
	for _, mod := range raw.Modules {
		if mod = strings.TrimSpace(mod); mod != "" {
			m.modules = append(m.modules, mod)
			if len(m.modules) == maxManifestItems {
				break
			}
		}
	}
	return m, true
}

// parseGradleSettings lists the project paths a settings.gradle or
// settings.gradle.kts includes, as directories ("a:b" and ":a:b" are
// a/b): the quoted arguments of each `include` call, in either
// language's syntax (`include 'a', 'b'`, `include(":a", ":b")`, spread
// over lines). It reads the text, it runs nothing: projects named by
// computed strings are not seen.
func parseGradleSettings(data []byte) []string {
	s := stripGradleComments(string(data))
	var out []string
	seen := map[string]bool{}
	for i := 0; i < len(s) && len(out) < maxManifestItems; {
		j := strings.Index(s[i:], "include")
		if j < 0 {
			break
		}
		at := i + j
		i = at + len("include")
		if at > 0 && isGradleIdentByte(s[at-1]) || i < len(s) && isGradleIdentByte(s[i]) {
			continue // includeBuild, includeFlat, myinclude
		}
		for _, arg := range gradleCallArgs(s[i:]) {
			dir := strings.Trim(strings.ReplaceAll(arg, ":", "/"), "/")
			if dir == "" || seen[dir] {
				continue
			}
			seen[dir] = true
			out = append(out, dir)
			if len(out) == maxManifestItems {
				break
			}
		}
	}
	return out
}

const maxGradleLiteral = 256

func isGradleIdentByte(c byte) bool {
	return c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// gradleCallArgs reads the string literals that follow an `include`:
// inside its parentheses when it has them, else up to the end of a line
// that does not end in a comma.
func gradleCallArgs(s string) []string {
	t := strings.TrimLeft(s, " \t")
	paren := strings.HasPrefix(t, "(")
	if paren {
		t = t[1:]
	}
	var args []string
	for len(t) > 0 && len(args) < maxManifestItems {
		t = strings.TrimLeft(t, " \t\r")
		if t == "" {
			break
		}
		switch c := t[0]; {
		case c == '\'' || c == '"':
			// A project path is short: looking no further keeps a file of
			// unterminated quotes linear.
			end := strings.IndexByte(t[1:min(len(t), 1+maxGradleLiteral)], c)
			if end < 0 || strings.ContainsAny(t[1:1+end], "\n$") {
				return args // unterminated, or an interpolated name
			}
			args = append(args, t[1:1+end])
			t = t[2+end:]
		case c == ',':
			t = strings.TrimLeft(t[1:], " \t\r\n")
		case c == '\n':
			if !paren {
				return args
			}
			t = t[1:]
		default:
			return args // ')' or anything that is not a literal list
		}
	}
	return args
}

// stripGradleComments blanks // and /* */ comments outside string
// literals, keeping newlines so line structure stays.
func stripGradleComments(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == quote || c == '\n' {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '/' && i+1 < len(s) && s[i+1] == '/':
			for i < len(s) && s[i] != '\n' {
				i++
			}
			if i < len(s) {
				b.WriteByte('\n')
			}
			continue
		case c == '/' && i+1 < len(s) && s[i+1] == '*':
			end := strings.Index(s[i+2:], "*/")
			if end < 0 {
				return b.String()
			}
			b.WriteString(strings.Repeat("\n", strings.Count(s[i:i+2+end+2], "\n")))
			i += 2 + end + 1
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}
