package instructions

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// Bounds on what one file may cost to parse. Instruction files are a few
// KB; these stop a hostile one from costing more than a bounded read.
const (
	maxParseBytes     = 4 << 20  // imports are looked for in the first 4 MiB (Claude Code skips larger files)
	maxFrontLines     = 200      // a front matter block longer than this is taken as text
	maxFrontBytes     = 64 << 10 // likewise in bytes
	maxParagraphBytes = 64 << 10 // a paragraph is scanned for code spans in pieces of this size
	maxLineBytes      = 64 << 10 // a longer line is scanned only this far for imports
	maxImportsPerText = 1000     // @paths kept from one file
)

// rawImport is an @path found in a file's text, before it is resolved.
type rawImport struct {
	line int
	spec string
}

// parsed is what one read of a file yields.
type parsed struct {
	chars    int // characters in the whole file
	bodyLine int // first line after the front matter
	front    map[string]any
	frontErr string // why the front matter is not valid YAML ("" if it is, or absent)
	imports  []rawImport
	partial  bool // only the first maxParseBytes were searched for imports

	scannedImports bool // imports were looked for (only Claude's files have them)
}

// scanText reads one staged file once: it counts characters, parses a
// leading YAML front matter block and, when wantImports is set, finds the
// @path imports outside code blocks and code spans. Memory stays bounded by
// a paragraph, whatever the file's size.
func scanText(r io.Reader, wantImports bool) (*parsed, error) {
	return scanWith(bufio.NewReaderSize(r, 64<<10), wantImports, &scratch{})
}

// scratch is the memory one scan needs, kept by a caller that scans many
// files one after another.
type scratch struct {
	line []byte
	sc   importScanner
}

// scanWith is scanText on a reader and scratch memory the caller reuses.
func scanWith(br *bufio.Reader, wantImports bool, st *scratch) (*parsed, error) {
	p := &parsed{bodyLine: 1}
	st.sc = importScanner{para: st.sc.para[:0], paraLines: st.sc.paraLines[:0], paraEnds: st.sc.paraEnds[:0]}
	sc := &st.sc
	var front [][]byte
	inFront, frontBytes := false, 0
	read := 0
	for lineNo := 1; ; lineNo++ {
		// One line at a time in reused memory: what is kept below is copied.
		line, err := readLine(br, &p.chars, st.line[:0])
		if line != nil {
			st.line = line
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, err
		}
		if line == nil && errors.Is(err, io.EOF) {
			break
		}
		read += len(line) + 1
		text := bytes.TrimRight(line, " \t\r")
		switch {
		case lineNo == 1 && string(text) == "---":
			inFront = true
			continue
		case inFront && (string(text) == "---" || string(text) == "..."):
			inFront = false
			p.bodyLine = lineNo + 1
			p.front, p.frontErr = parseFront(front)
			front = nil
			continue
		case inFront:
			front = append(front, bytes.Clone(line))
			frontBytes += len(line)
			if len(front) <= maxFrontLines && frontBytes <= maxFrontBytes {
				continue
			}
			// Not front matter after all: scan what was held back as text.
			inFront = false
			if wantImports {
				sc.line(1, []byte("---"))
				for i, l := range front {
					sc.line(i+2, l)
				}
			}
			front = nil
		}
		if wantImports && !p.partial {
			if read > maxParseBytes {
				p.partial = true
			} else {
				sc.line(lineNo, line)
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
	}
	if inFront && wantImports { // an unclosed block is text
		sc.line(1, []byte("---"))
		for i, l := range front {
			sc.line(i+2, l)
		}
	}
	sc.flush()
	p.imports = sc.found
	return p, nil
}

// readLine appends the next line without its '\n' to line and returns it
// (nil at the end), keeping at most maxLineBytes of it and adding its
// characters to chars.
func readLine(br *bufio.Reader, chars *int, line []byte) ([]byte, error) {
	seen := false
	for {
		chunk, err := br.ReadSlice('\n')
		if len(chunk) > 0 {
			seen = true
		}
		body := bytes.TrimSuffix(chunk, []byte{'\n'})
		*chars += utf8.RuneCount(body)
		if err == nil {
			*chars++ // the newline is a character too
		}
		if room := maxLineBytes - len(line); room > 0 {
			line = append(line, body[:min(room, len(body))]...)
		}
		switch {
		case err == nil:
			return line, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			if !seen {
				return nil, io.EOF
			}
			if line == nil {
				line = []byte{}
			}
			return line, io.EOF
		default:
			return nil, err
		}
	}
}

// parseFront decodes a front matter block. Cursor writes globs unquoted
// (`globs: *.ts`), which YAML reads as an alias and refuses; such a block is
// read line by line instead, and the reason is kept as a warning.
func parseFront(lines [][]byte) (map[string]any, string) {
	block := bytes.Join(lines, []byte{'\n'})
	var m map[string]any
	err := yaml.Unmarshal(block, &m)
	if err == nil {
		if m == nil {
			m = map[string]any{}
		}
		return m, ""
	}
	return frontByLines(lines), firstLine(err.Error())
}

// frontByLines reads `key: value` lines and `- item` lists under a key, the
// shape every instruction front matter has, without YAML's rules.
func frontByLines(lines [][]byte) map[string]any {
	m := map[string]any{}
	key := ""
	for _, raw := range lines {
		l := strings.TrimRight(string(raw), " \t\r")
		trimmed := strings.TrimSpace(l)
		switch {
		case trimmed == "" || strings.HasPrefix(trimmed, "#"):
		case strings.HasPrefix(trimmed, "- ") && key != "":
			list, _ := m[key].([]any)
			m[key] = append(list, unquote(strings.TrimSpace(trimmed[2:])))
		case l[0] != ' ' && l[0] != '\t' && strings.Contains(l, ":"):
			k, v, _ := strings.Cut(l, ":")
			key = strings.TrimSpace(k)
			v = strings.TrimSpace(v)
			if v == "" {
				m[key] = []any{}
				continue
			}
			switch v {
			case "true":
				m[key] = true
			case "false":
				m[key] = false
			default:
				m[key] = unquote(v)
			}
		}
	}
	return m
}

func unquote(s string) string {
	if len(s) >= 2 && (s[0] == '"' && s[len(s)-1] == '"' || s[0] == '\'' && s[len(s)-1] == '\'') {
		return s[1 : len(s)-1]
	}
	return s
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// frontStrings reads a front matter value that lists globs: a YAML list, or
// one string with globs separated by commas (Cursor's and Copilot's form).
// Commas inside braces belong to the glob ("*.{ts,tsx}").
func frontStrings(m map[string]any, key string) ([]string, bool, string) {
	v, ok := m[key]
	if !ok || v == nil {
		return nil, false, ""
	}
	var out []string
	switch v := v.(type) {
	case string:
		out = splitGlobs(v)
	case []any:
		for _, e := range v {
			s, ok := e.(string)
			if !ok {
				return nil, true, fmt.Sprintf("%s: %v is not a string", key, e)
			}
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
	default:
		return nil, true, fmt.Sprintf("%s: want a string or a list of strings, not %v", key, v)
	}
	return out, true, ""
}

// splitGlobs splits a comma-separated glob list at the commas outside braces.
func splitGlobs(s string) []string {
	var out []string
	depth, start := 0, 0
	add := func(part string) {
		if part = strings.TrimSpace(unquote(strings.TrimSpace(part))); part != "" {
			out = append(out, part)
		}
	}
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '{':
			depth++
		case '}':
			depth = max(0, depth-1)
		case ',':
			if depth == 0 {
				add(s[start:i])
				start = i + 1
			}
		}
	}
	add(s[start:])
	return out
}
