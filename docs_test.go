package repoprep_test

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/repoprep/repoprep/pipeline"
	"github.com/repoprep/repoprep/serve"
)

// The README and docs/ are read in a fresh clone, offline: every link must
// stay in the repository and lead somewhere, and nothing may depend on a
// file outside it.

// markdownFiles lists README.md, CONTRIBUTING.md, CHANGELOG.md and every
// Markdown file under docs/.
func markdownFiles(t *testing.T) []string {
	t.Helper()
	files := []string{"README.md", "CONTRIBUTING.md", "CHANGELOG.md"}
	err := filepath.WalkDir("docs", func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

var (
	fenced     = regexp.MustCompile("(?ms)^ {0,3}```.*?^ {0,3}```[^\n]*$")
	codeSpan   = regexp.MustCompile("`[^`]*`")
	inlineLink = regexp.MustCompile(`\]\(([^)\s]*)(?:\s+"[^"]*")?\)`)
	bareURL    = regexp.MustCompile(`(?i)\b(https?|ftp)://|<[a-z][a-z0-9+.-]*:[^>\s]*>|\bwww\.[a-z0-9-]+\.`)
	heading    = regexp.MustCompile(`(?m)^#{1,6}\s+(.*?)\s*#*\s*$`)
)

// prose is a Markdown file without its code: fenced blocks, indented
// blocks and code spans, where a URL is text, not a link.
func prose(md string) string {
	md = fenced.ReplaceAllString(md, "")
	var keep []string
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "    ") || strings.HasPrefix(line, "\t") {
			trimmed := strings.TrimSpace(line)
			if !strings.HasPrefix(trimmed, "- ") && !strings.HasPrefix(trimmed, "* ") {
				continue // an indented code block (or a list item's continuation, which rarely links)
			}
		}
		keep = append(keep, line)
	}
	return codeSpan.ReplaceAllString(strings.Join(keep, "\n"), "``")
}

// anchors lists the heading anchors GitHub makes for a Markdown file.
func anchors(md string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	for _, m := range heading.FindAllStringSubmatch(fenced.ReplaceAllString(md, ""), -1) {
		text := regexp.MustCompile(`\]\([^)]*\)`).ReplaceAllString(m[1], "]")
		var b strings.Builder
		for _, r := range strings.ToLower(text) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.M, r):
				b.WriteRune(r)
			}
		}
		slug := b.String()
		if n := seen[slug]; n > 0 {
			seen[slug]++
			slug += "-" + strconv.Itoa(n)
		} else {
			seen[slug] = 1
		}
		out[slug] = true
	}
	return out
}

// TestDocsLinksStayInRepository: no link in README.md or docs/ leaves the
// repository, and every link leads to a file (and heading) that exists.
func TestDocsLinksStayInRepository(t *testing.T) {
	root, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	cache := map[string]map[string]bool{}
	anchorsOf := func(p string) map[string]bool {
		if a, ok := cache[p]; ok {
			return a
		}
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		cache[p] = anchors(string(data))
		return cache[p]
	}
	for _, file := range markdownFiles(t) {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		text := prose(string(data))
		for _, m := range bareURL.FindAllString(text, -1) {
			t.Errorf("%s: %q links outside the repository", file, m)
		}
		for _, m := range inlineLink.FindAllStringSubmatch(text, -1) {
			target := m[1]
			if strings.Contains(target, ":") {
				t.Errorf("%s: link %q leaves the repository", file, target)
				continue
			}
			p, frag, _ := strings.Cut(target, "#")
			dest := file
			if p != "" {
				dest = filepath.Join(filepath.Dir(file), filepath.FromSlash(p))
				abs, _ := filepath.Abs(dest)
				if rel, err := filepath.Rel(root, abs); err != nil || !filepath.IsLocal(rel) {
					t.Errorf("%s: link %q leaves the repository", file, target)
					continue
				}
				if _, err := os.Stat(dest); err != nil {
					t.Errorf("%s: link %q: %v", file, target, err)
					continue
				}
			}
			if frag != "" && strings.HasSuffix(dest, ".md") && !anchorsOf(dest)[frag] {
				t.Errorf("%s: link %q: %s has no heading with anchor #%s", file, target, dest, frag)
			}
		}
	}
}

// TestReadmeFirstScreen: the first screen of the README (its first 40
// lines) still holds the two commands a new user runs.
func TestReadmeFirstScreen(t *testing.T) {
	data, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	first := strings.Join(lines[:min(40, len(lines))], "\n")
	for _, cmd := range []string{"go run ./cmd/repoprep run", "make test"} {
		if !strings.Contains(first, cmd) {
			t.Errorf("the README's first 40 lines lack %q", cmd)
		}
	}
}

// agentConfigs returns the README's agent configuration blocks by name:
// each ```json block after a line "<!-- agent-config: NAME -->".
func agentConfigs(t *testing.T, readme string) map[string]map[string]any {
	t.Helper()
	out := map[string]map[string]any{}
	re := regexp.MustCompile("(?s)<!-- agent-config: (\\S+) -->\\s*```json\n(.*?)```")
	for _, m := range re.FindAllStringSubmatch(readme, -1) {
		var doc map[string]any
		if err := json.Unmarshal([]byte(m[2]), &doc); err != nil {
			t.Errorf("README agent config %s is not JSON: %v", m[1], err)
			continue
		}
		out[m[1]] = doc
	}
	return out
}

// TestAgentSnippets: every agent configuration in the README parses, uses
// the key and fields its client reads (Claude Code and Cursor: mcpServers
// with command/args or url; VS Code: servers with type), starts `serve`
// on an absolute snapshot through an absolute binary or `go -C` on an
// absolute clone, and agrees with the README's `claude mcp add` lines; the
// HTTP URL they give answers an MCP initialize from a real server.
func TestAgentSnippets(t *testing.T) {
	data, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(data)
	configs := agentConfigs(t, readme)
	var stdio []any // command then args, of each stdio entry
	var urls []string
	for _, name := range []string{"claude-code", "cursor", "vscode", "vscode-http", "cursor-http"} {
		doc, ok := configs[name]
		if !ok {
			t.Errorf("README has no agent config %s", name)
			continue
		}
		key := "mcpServers"
		if strings.HasPrefix(name, "vscode") {
			key = "servers" // VS Code's mcp.json
		}
		servers, _ := doc[key].(map[string]any)
		entry, _ := servers["repo"].(map[string]any)
		if len(doc) != 1 || len(servers) != 1 || entry == nil {
			t.Errorf("%s: want {%q: {\"repo\": {...}}}, got %v", name, key, doc)
			continue
		}
		typ, _ := entry["type"].(string)
		if url, ok := entry["url"].(string); ok {
			if strings.HasPrefix(name, "vscode") && typ != "http" {
				t.Errorf("%s: an HTTP server needs \"type\": \"http\" in VS Code, got %q", name, typ)
			}
			urls = append(urls, url)
			continue
		}
		if strings.HasPrefix(name, "vscode") && typ != "stdio" {
			t.Errorf("%s: VS Code needs \"type\": \"stdio\", got %q", name, typ)
		}
		command, _ := entry["command"].(string)
		var args []string
		for _, a := range entry["args"].([]any) {
			args = append(args, a.(string))
		}
		switch {
		case command == "go":
			if len(args) < 4 || args[0] != "-C" || !filepath.IsAbs(args[1]) || args[2] != "run" || args[3] != "./cmd/repoprep" {
				t.Errorf("%s: go must run ./cmd/repoprep with -C and the clone's absolute path, got %q", name, args)
				continue
			}
			args = args[4:]
		case !filepath.IsAbs(command) || filepath.Base(command) != "repoprep":
			t.Errorf("%s: command %q is not an absolute path to the repoprep binary", name, command)
		}
		if len(args) != 2 || args[0] != "serve" || !filepath.IsAbs(args[1]) {
			t.Errorf("%s: args %q, want serve and an absolute snapshot", name, args)
		}
		stdio = append(stdio, entry["command"], entry["args"])
	}
	// The `claude mcp add` lines say what the JSON says.
	add := regexp.MustCompile(`(?m)^claude mcp add --scope project repo -- (\S+) (.*)$`).FindStringSubmatch(readme)
	if add == nil || len(stdio) < 2 || add[1] != stdio[0] || add[2] != strings.Join(anyStrings(stdio[1]), " ") {
		t.Errorf("the README's claude mcp add line %q does not match its .mcp.json %v", add, stdio)
	}
	httpAdd := regexp.MustCompile(`(?m)^claude mcp add --transport http repo (\S+)$`).FindStringSubmatch(readme)
	serveLine := regexp.MustCompile(`(?m)^\S+ serve --http (\S+) (\S+)$`).FindStringSubmatch(readme)
	if httpAdd == nil || serveLine == nil {
		t.Fatal("the README lacks its `serve --http` and `claude mcp add --transport http` lines")
	}
	urls = append(urls, httpAdd[1])
	for _, u := range urls {
		if u != "http://"+serveLine[1]+"/mcp" {
			t.Errorf("URL %s is not the /mcp endpoint of `serve --http %s`", u, serveLine[1])
		}
	}
	mcpInitialize(t, "/mcp")
}

func anyStrings(v any) []string {
	var out []string
	for _, a := range v.([]any) {
		out = append(out, a.(string))
	}
	return out
}

// mcpInitialize publishes a small snapshot, serves it over HTTP on a free
// loopback port and sends an MCP initialize to path, as a client
// configured from the README would.
func mcpInitialize(t *testing.T, path string) {
	t.Helper()
	src := t.TempDir()
	if err := os.WriteFile(filepath.Join(src, "main.go"), []byte("package main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "snap")
	if _, err := pipeline.Run(context.Background(), pipeline.Options{Root: src, OutDir: out}); err != nil {
		t.Fatal(err)
	}
	srv, err := serve.New(out, serve.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()
	defer func() { cancel(); <-done }()
	body := `{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "readme-test", "version": "1"}}}`
	req, err := http.NewRequest("POST", "http://"+ln.Addr().String()+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(answer), `"serverInfo"`) {
		t.Errorf("initialize at %s: %s\n%s", path, resp.Status, answer)
	}
}
