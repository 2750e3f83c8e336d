package report_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/repoprep/repoprep/instructions"
	"github.com/repoprep/repoprep/internal/secrets"
	"github.com/repoprep/repoprep/internal/testkit"
	"github.com/repoprep/repoprep/pipeline"
	"github.com/repoprep/repoprep/report"
	"github.com/repoprep/repoprep/snapshot"
	"github.com/repoprep/repoprep/snapshot/snapshottest"
)

// pageFixture is a snapshot's four files as a Page and as the JSON
// documents the page's figures name (report, files, secrets,
// instructions). n adds n files, n findings and n instruction files
// beyond the small base, so the lists overflow their caps.
func pageFixture(n int) (report.Page, map[string][]byte) {
	files := []snapshot.Entry{
		{Path: "README.md", Size: 1200, Category: "text", Language: "Markdown", Encoding: "utf-8", Staged: true, Tokens: 300, Lines: 40},
		{Path: "cmd/app/main.go", Size: 800, Category: "source", Language: "Go", Encoding: "utf-8", Staged: true, Tokens: 250, Lines: 30, CRLF: true},
		{Path: "internal/db/db.go", Size: 3000, Category: "source", Language: "Go", Encoding: "utf-8", Staged: true, Tokens: 900, Lines: 120, BOM: true, Secrets: 1, Masked: 1},
		{Path: "internal/db/db_copy.go", Size: 3000, Category: "source", Language: "Go", Encoding: "utf-8", DuplicateOf: "internal/db/db.go"},
		{Path: "docs/legacy-gbk.txt", Size: 500, Category: "text", Encoding: "gb18030", Staged: true, Tokens: 200, Lines: 1, Replaced: 2},
		{Path: "docs/broken.txt", Size: 77, Category: "text", Reason: "undecodable"},
		{Path: "docs/manual.pdf", Size: 6 << 20, Category: "document", Reason: "pdf", ExtractedFrom: "pdf", Extractor: "x", Staged: true, Tokens: 4000, Lines: 400, Truncated: "pages 5001–6000 not extracted: page limit 5000"},
		{Path: "docs/locked.pdf", Size: 9000, Category: "document", Reason: "encrypted", Err: "extract: encrypted"},
		{Path: "logs/app.log", Size: 40 << 10, Category: "junk", Reason: "log", Secrets: 1},
		{Path: "assets/logo.png", Size: 10_000, Category: "junk", Reason: "binary-media", Test: true},
		{Path: "a</script><script>alert(1)</script>.txt", Size: 10, Category: "text", Encoding: "utf-8", Staged: true, Tokens: 3, Lines: 1},
		{Path: "https:/evil.example/x.png", Size: 10, Category: "junk", Reason: "binary-media"},
		{Path: "CLAUDE.md", Size: 100, Category: "text", Language: "Markdown", Encoding: "utf-8", Staged: true, Tokens: 30, Lines: 3},
	}
	findings := []secrets.PathFinding{
		{Path: "internal/db/db.go", Staged: true, Finding: secrets.Finding{Line: 12, Column: 3, Rule: "aws-access-key", Kind: "credential", Severity: "high", Match: "AKIA…(20)"}},
		{Path: "logs/app.log", Staged: false, Finding: secrets.Finding{Line: 7, Column: 1, Rule: "email", Kind: "pii", Severity: "low", Match: "a…(17)"}},
	}
	idx := &instructions.Index{Schema: instructions.Schema, Files: []instructions.File{
		{Path: "CLAUDE.md", Agent: "claude", Kind: "memory", Activation: "always", Tokens: 30, TotalTokens: 80,
			Imports: []instructions.Ref{{Line: 2, Spec: "docs/a.md", Status: "missing"}}, Warnings: []string{"@docs/a.md (line 2): missing"}},
	}, Imported: []instructions.Text{}}
	for i := range n {
		p := fmt.Sprintf("gen/d%03d/f%04d.%s", i%60, i, []string{"go", "py", "rs", "ts", "c"}[i%5])
		files = append(files,
			snapshot.Entry{Path: p, Size: int64(100 + i), Category: "source", Language: fmt.Sprintf("Lang%02d", i%70), Encoding: "utf-8", Staged: true, Tokens: 10 + i, Lines: 5},
			snapshot.Entry{Path: p + ".copy", Size: int64(100 + i), Category: "source", DuplicateOf: p},
			snapshot.Entry{Path: p + ".bin", Size: int64(5000 + i), Category: "junk", Reason: "binary"},
			snapshot.Entry{Path: p + ".bad", Size: 10, Category: "text", Reason: "undecodable"},
		)
		findings = append(findings, secrets.PathFinding{Path: p, Staged: true, Finding: secrets.Finding{Line: i + 1, Rule: fmt.Sprintf("rule-%d", i%3), Kind: "credential", Match: "ghp_…(40)"}})
		idx.Files = append(idx.Files, instructions.File{Path: fmt.Sprintf("gen/d%03d/AGENTS.md", i), Agent: "agents", Kind: "agents-md", Activation: "always", Tokens: i, TotalTokens: i})
	}
	m := snapshottest.NewManifest(files, []snapshot.Pruned{{Path: ".git", Reason: "excluded-dir"}, {Path: "node_modules", Reason: "excluded-dir"}})
	secrets.SortFindings(findings)
	stages := []report.StageTime{{Name: "scan", Seconds: 0.125, CPUSeconds: 0.2, Files: len(files), MBPerSec: 12.5}, {Name: "write", Seconds: 0.5, Files: len(files)}}
	rep := report.Report{
		Schema: snapshot.ReportSchema, Version: "v1.2.3", Source: "/src/my-repo", Out: "/out", Started: "2026-12-02T10:00:00Z",
		Seconds: 1.25, Secrets: len(findings), Stages: stages,
		Refresh: &report.Refresh{Key: "blake3:00", Previous: report.PreviousUsed, Reused: 5, NotReused: map[string]int{"changed": 2, "new": 1}},
	}
	rep.Count(m)
	audit := report.BuildAudit(m, report.CountSecrets(findings), stages)
	audit.AddPruned([]report.AuditPruned{{Path: ".git", Reason: "excluded-dir", Files: 120}, {Path: "node_modules", Reason: "excluded-dir", Files: 100000, Capped: true}})
	rep.Audit = &audit
	docs := map[string][]byte{}
	for name, v := range map[string]any{
		"report": rep, "files": m, "secrets": secrets.FindingsFile{Schema: secrets.Schema, Findings: findings}, "instructions": idx,
	} {
		b, err := json.Marshal(v)
		if err != nil {
			panic(err)
		}
		docs[name] = b
	}
	return pipeline.ReportPage(&rep, m, findings, idx), docs
}

func writePage(t testing.TB, p report.Page) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := report.WriteHTML(&b, p); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestWriteHTMLGolden: the page of a small snapshot, byte for byte; the
// same Page gives the same bytes.
func TestWriteHTMLGolden(t *testing.T) {
	p, _ := pageFixture(0)
	got := writePage(t, p)
	for range 3 {
		if again := writePage(t, p); !bytes.Equal(again, got) {
			t.Fatal("two pages of the same Page differ")
		}
	}
	testkit.Golden(t, filepath.Join("testdata", "golden", "report.html"), got)
}

// TestWriteHTMLFigures: every figure on the page is a <data> naming its
// source, and equals what that source holds; no digit stands outside one
// in the totals, the notes and the tables' figure cells. For fixtures
// whose lists overflow their caps ("and N more") and for a real run.
func TestWriteHTMLFigures(t *testing.T) {
	tests := []struct {
		name string
		page func(t *testing.T) ([]byte, map[string][]byte)
	}{
		{"small", func(t *testing.T) ([]byte, map[string][]byte) {
			p, docs := pageFixture(0)
			return writePage(t, p), docs
		}},
		{"lists cut", func(t *testing.T) ([]byte, map[string][]byte) {
			p, docs := pageFixture(130)
			return writePage(t, p), docs
		}},
		{"empty", func(t *testing.T) ([]byte, map[string][]byte) {
			m := snapshottest.NewManifest(nil, nil)
			rep := report.Report{Schema: snapshot.ReportSchema}
			rep.Count(m)
			a := report.BuildAudit(m, nil, nil)
			rep.Audit = &a
			docs := map[string][]byte{"report": mustJSON(t, rep), "files": mustJSON(t, m), "secrets": []byte(`{"findings":[]}`), "instructions": []byte(`{"files":[]}`)}
			return writePage(t, report.Page{Report: &rep, Manifest: m}), docs
		}},
		{"real run", realRun},
		// REPOPREP_REPORT_OUT=OUT checks a snapshot made elsewhere (Go's src/).
		{"REPOPREP_REPORT_OUT", func(t *testing.T) ([]byte, map[string][]byte) {
			out := os.Getenv("REPOPREP_REPORT_OUT")
			if out == "" {
				t.Skip("REPOPREP_REPORT_OUT is not set")
			}
			return readOut(t, out)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			page, docs := tt.page(t)
			n := checkFigures(t, page, docs)
			if n < 10 {
				t.Errorf("only %d figures checked", n)
			}
		})
	}
}

func mustJSON(t testing.TB, v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// realRun publishes a small tree with a secret, a duplicate, a legacy
// encoding, CRLF, a log and an instruction file, and returns its
// report.html and the files it names.
func realRun(t *testing.T) ([]byte, map[string][]byte) {
	src, out := t.TempDir(), filepath.Join(t.TempDir(), "out")
	testkit.WriteTree(t, src, map[string]string{
		"main.go":              "package main\n\nfunc main() {}\n",
		"copy/main.go":         "package main\n\nfunc main() {}\n",
		"config/app.env":       "AWS_ACCESS_KEY_ID=AKIA" + testkit.RandomString(testkit.Upper32, 16) + "\n",
		"logs/debug.log":       "user alice@example.org logged in\n",
		"docs/gbk.txt":         "\xc4\xe3\xba\xc3\xa3\xac\xca\xc0\xbd\xe7\xa3\xa1\xd5\xe2\xca\xc7\xd2\xbb\xb8\xf6\xb2\xe2\xca\xd4\xa1\xa3\n",
		"docs/crlf.md":         "# title\r\ntext\r\n",
		"CLAUDE.md":            "Read @docs/crlf.md first.\n",
		"node_modules/x/i.js":  "module.exports = 1\n",
		"web/app.min.js":       strings.Repeat("a", 5000) + "\n",
		"a<b>&\"c\".txt":       "odd name\n",
		"https:/x/evil.txt":    "a path that reads like a URL\n",
		"pkg/deep/er/still.go": "package er\n",
	})
	if _, err := pipeline.Run(t.Context(), pipeline.Options{Root: src, OutDir: out, Workers: 2, Version: "test"}); err != nil {
		t.Fatal(err)
	}
	page, docs := readOut(t, out)
	drifts, err := snapshot.Verify(t.Context(), out)
	if err != nil || len(drifts) > 0 {
		t.Errorf("verify: %v %q", err, drifts)
	}
	return page, docs
}

// readOut reads a snapshot's report.html and the files it names.
func readOut(t *testing.T, out string) ([]byte, map[string][]byte) {
	docs := map[string][]byte{}
	for name, file := range map[string]string{"report": snapshot.ReportJSON, "files": snapshot.FilesJSON, "secrets": snapshot.SecretsJSON, "instructions": snapshot.InstructionsJSON} {
		b, err := os.ReadFile(filepath.Join(out, file))
		if err != nil {
			t.Fatal(err)
		}
		docs[name] = b
	}
	page, err := os.ReadFile(filepath.Join(out, snapshot.ReportHTML))
	if err != nil {
		t.Fatal(err)
	}
	return page, docs
}

var digit = regexp.MustCompile(`[0-9]`)

// checkFigures parses page and checks its figures against docs; it
// returns how many it checked.
func checkFigures(t *testing.T, page []byte, docs map[string][]byte) int {
	t.Helper()
	problems, n, err := figureProblems(page, docs)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
	return n
}

// figureProblems lists what is wrong with page's figures: a digit outside
// a <data> in the totals, a note or a figure cell, a <data> whose source
// does not hold its value, a count shown as another number.
func figureProblems(page []byte, docs map[string][]byte) (problems []string, checked int, err error) {
	doc, err := html.Parse(bytes.NewReader(page))
	if err != nil {
		return nil, 0, err
	}
	parsed := map[string]any{}
	for name, b := range docs {
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			return nil, 0, fmt.Errorf("%s: %v", name, err)
		}
		parsed[name] = v
	}
	var walk func(n *html.Node, scope bool)
	walk = func(n *html.Node, scope bool) {
		if n.Type == html.ElementNode {
			switch {
			case n.Data == "data":
				if p := figureProblem(n, parsed); p != "" {
					problems = append(problems, p)
				}
				checked++
				return
			case n.Data == "th" || n.Data == "dt" || hasClass(n, "t") || n.Data == "script" || n.Data == "style":
				scope = false
			case n.Data == "dl" && attr(n, "id") == "totals", n.Data == "td", n.Data == "p" && hasClass(n, "note"):
				scope = true
			}
		}
		if n.Type == html.TextNode && scope && digit.MatchString(n.Data) {
			problems = append(problems, fmt.Sprintf("a digit outside a <data>: %q in <%s>", n.Data, n.Parent.Data))
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, scope)
		}
	}
	walk(doc, false)
	return problems, checked, nil
}

var countShown = regexp.MustCompile(`^-?[0-9]+$`)

func figureProblem(n *html.Node, docs map[string]any) string {
	raw, src := attr(n, "value"), attr(n, "data-src")
	want, err := evalSource(src, docs)
	if err != nil {
		return fmt.Sprintf("<data data-src=%q>: %v", src, err)
	}
	if got, err := strconv.ParseFloat(raw, 64); err != nil || got != want {
		return fmt.Sprintf("<data value=%q data-src=%q>: the source holds %v", raw, src, want)
	}
	// A count reads as its value with thousands separators.
	if plain := strings.ReplaceAll(textOf(n), ",", ""); countShown.MatchString(plain) && plain != raw {
		return fmt.Sprintf("<data value=%q> shows %q", raw, textOf(n))
	}
	return ""
}

// TestFigureProblems: the check fails a page whose figure is wrong, names
// a source that does not exist, or stands outside a <data>.
func TestFigureProblems(t *testing.T) {
	p, docs := pageFixture(0)
	page := writePage(t, p)
	tests := []struct {
		name       string
		old, new   string
		wantPrefix string
	}{
		{"wrong value", `value="1.25" data-src="report:seconds"`, `value="1.5" data-src="report:seconds"`, `<data value="1.5" data-src="report:seconds">: the source holds 1.25`},
		{"wrong source", `data-src="report:tokens"`, `data-src="report:audit.staged"`, `<data value="5683" data-src="report:audit.staged">: the source holds 7`},
		{"no such field", `data-src="report:tokens"`, `data-src="report:tokenz"`, `<data data-src="report:tokenz">: no field "tokenz"`},
		{"bare digit", `<data value="2" data-src="report:pruned">2</data>`, `2`, `a digit outside a <data>: "2" in <dd>`},
		{"shown differs", `data-src="report:pruned">2</data>`, `data-src="report:pruned">3</data>`, `<data value="2"> shows "3"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !bytes.Contains(page, []byte(tt.old)) {
				t.Fatalf("the page holds no %s", tt.old)
			}
			bad := bytes.Replace(page, []byte(tt.old), []byte(tt.new), 1)
			problems, _, err := figureProblems(bad, docs)
			if err != nil {
				t.Fatal(err)
			}
			if len(problems) != 1 || !strings.HasPrefix(problems[0], tt.wantPrefix) {
				t.Errorf("problems = %q, want one starting %q", problems, tt.wantPrefix)
			}
		})
	}
}

// evalSource evaluates a data-src (report/html_num.go's grammar) on the
// decoded JSON documents. It is written apart from the page's code, so
// the two must agree.
func evalSource(src string, docs map[string]any) (float64, error) {
	base, minusStr, hasMinus := strings.Cut(src, "|minus:")
	file, expr, ok := strings.Cut(base, ":")
	if !ok {
		return 0, fmt.Errorf("no file in %q", src)
	}
	doc, ok := docs[file]
	if !ok {
		return 0, fmt.Errorf("unknown file %q", file)
	}
	var v float64
	var err error
	switch {
	case strings.HasPrefix(expr, "count("), strings.HasPrefix(expr, "sum("), strings.HasPrefix(expr, "distinct("):
		v, err = aggregate(file, expr, doc)
	case strings.HasPrefix(expr, "len("):
		// An omitted list (omitempty) is empty: the field's object must be there.
		p := strings.TrimSuffix(strings.TrimPrefix(expr, "len("), ")")
		parent, last := "", p
		if i := strings.LastIndexByte(p, '.'); i >= 0 {
			parent, last = p[:i], p[i+1:]
		}
		var x any
		if x, err = jsonPath(doc, parent); err == nil {
			obj, ok := x.(map[string]any)
			if !ok {
				return 0, fmt.Errorf("%s is not an object", parent)
			}
			list, _ := obj[last].([]any)
			v = float64(len(list))
		}
	default:
		var x any
		if x, err = jsonPath(doc, expr); err == nil {
			v, err = number(x)
		}
	}
	if err != nil {
		return 0, err
	}
	if hasMinus {
		k, err := strconv.Atoi(minusStr)
		if err != nil {
			return 0, err
		}
		v -= float64(k)
	}
	return v, nil
}

func number(x any) (float64, error) {
	switch x := x.(type) {
	case json.Number:
		return x.Float64()
	case nil:
		return 0, nil // an omitted zero
	}
	return 0, fmt.Errorf("%v is not a number", x)
}

// jsonPath follows a.b[3].c through decoded JSON.
func jsonPath(v any, p string) (any, error) {
	for p != "" {
		var key string
		if strings.HasPrefix(p, "[") {
			end := strings.IndexByte(p, ']')
			i, err := strconv.Atoi(p[1:end])
			list, ok := v.([]any)
			if err != nil || !ok || i >= len(list) {
				return nil, fmt.Errorf("no element %s", p[:end+1])
			}
			v, p = list[i], strings.TrimPrefix(p[end+1:], ".")
			continue
		}
		end := strings.IndexAny(p, ".[")
		if end < 0 {
			end = len(p)
		}
		key, p = p[:end], strings.TrimPrefix(p[end:], ".")
		obj, _ := v.(map[string]any) // not an object: obj is nil and has no key
		var ok bool
		if v, ok = obj[key]; !ok {
			return nil, fmt.Errorf("no field %q", key)
		}
	}
	return v, nil
}

func aggregate(file, expr string, doc any) (float64, error) {
	fn, rest, _ := strings.Cut(expr, "(")
	rest = strings.TrimSuffix(rest, ")")
	field := ""
	if fn != "count" {
		field, rest, _ = strings.Cut(rest, ";")
	}
	list := "files"
	if file == "secrets" {
		list = "findings"
	}
	entries, _ := doc.(map[string]any)[list].([]any)
	var preds []string
	if rest != "" {
		preds = strings.Split(rest, ",")
	}
	var sum float64
	seen := map[string]bool{}
	for _, e := range entries {
		obj := e.(map[string]any)
		match := true
		for _, p := range preds {
			name, val, isEq := strings.Cut(p, "=")
			neg := strings.HasPrefix(name, "!")
			name = strings.TrimPrefix(name, "!")
			if isEq {
				want, err := url.PathUnescape(val)
				if err != nil {
					return 0, err
				}
				s, _ := obj[name].(string)
				match = match && s == want
			} else {
				match = match && truthy(obj[name]) != neg
			}
		}
		if !match {
			continue
		}
		switch fn {
		case "count":
			sum++
		case "sum":
			x, err := number(obj[field])
			if err != nil {
				return 0, err
			}
			sum += x
		case "distinct":
			seen[fmt.Sprint(obj[field])] = true
		default:
			return 0, fmt.Errorf("unknown aggregate %q", fn)
		}
	}
	if fn == "distinct" {
		return float64(len(seen)), nil
	}
	return sum, nil
}

func truthy(x any) bool {
	switch x := x.(type) {
	case bool:
		return x
	case string:
		return x != ""
	case json.Number:
		return x.String() != "0"
	}
	return false
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func hasClass(n *html.Node, class string) bool {
	return n.Type == html.ElementNode && strings.Contains(" "+attr(n, "class")+" ", " "+class+" ")
}

func textOf(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}

// TestWriteHTMLSelfContained: nothing on the page loads anything: no
// src, no href but the page's own anchors, no CSS url(), no http(s)://
// outside text; the scanned tree's names (a path that closes the script,
// one that reads like a URL) are text. One h1; every data table has a
// caption and scoped header cells; exactly two scripts (the treemap's
// data, which parses, and the page's code).
func TestWriteHTMLSelfContained(t *testing.T) {
	p, _ := pageFixture(3)
	page := writePage(t, p)
	problems := pageStructure(page)
	for _, pr := range problems {
		t.Error(pr)
	}
	for _, name := range []string{"a&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;.txt", "https:/evil.example/x.png"} {
		if !bytes.Contains(page, []byte(name)) {
			t.Errorf("the page does not show %s as text", name)
		}
	}
}

var resourceRef = regexp.MustCompile(`(?i)(https?:)?//[a-z0-9]|url\(`)

// pageStructure lists what breaks the page's contract with its readers.
func pageStructure(page []byte) []string {
	var out []string
	doc, err := html.Parse(bytes.NewReader(page))
	if err != nil {
		return []string{err.Error()}
	}
	var h1, scripts, tables int
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			for _, a := range n.Attr {
				switch a.Key {
				case "src", "srcset", "poster", "action", "formaction", "background", "xlink:href":
					out = append(out, fmt.Sprintf("<%s %s=%q>", n.Data, a.Key, a.Val))
				case "href":
					if !strings.HasPrefix(a.Val, "#") {
						out = append(out, fmt.Sprintf("<%s href=%q>", n.Data, a.Val))
					}
				case "style":
					out = append(out, fmt.Sprintf("<%s style=%q>", n.Data, a.Val))
				}
			}
			switch n.Data {
			case "h1":
				h1++
			case "link", "img", "iframe", "object", "embed", "base", "image", "use":
				out = append(out, "a <"+n.Data+"> element")
			case "script":
				scripts++
				body := textOf(n)
				if attr(n, "type") == "application/json" {
					var v any
					if err := json.Unmarshal([]byte(body), &v); err != nil {
						out = append(out, "treemap data: "+err.Error())
					}
				} else if attr(n, "type") != "" {
					out = append(out, "a script of type "+attr(n, "type"))
				} else if resourceRef.MatchString(body) {
					// The data is the tree's names, which may read like anything.
					out = append(out, "a script refers to "+resourceRef.FindString(body))
				}
			case "style":
				if resourceRef.MatchString(textOf(n)) {
					out = append(out, "the style refers to "+resourceRef.FindString(textOf(n)))
				}
			case "table":
				tables++
				if !hasClass(n, "data") {
					out = append(out, "a table without class data")
				}
				if n.FirstChild == nil || n.FirstChild.Data != "caption" && (n.FirstChild.NextSibling == nil || n.FirstChild.NextSibling.Data != "caption") {
					out = append(out, "a table without a caption first")
				}
			case "th":
				if s := attr(n, "scope"); s != "col" && s != "row" {
					out = append(out, "a <th> without scope")
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	if h1 != 1 {
		out = append(out, fmt.Sprintf("%d h1 elements", h1))
	}
	if scripts != 2 {
		out = append(out, fmt.Sprintf("%d scripts", scripts))
	}
	if tables < 3 {
		out = append(out, fmt.Sprintf("%d tables", tables))
	}
	for _, scheme := range []string{"http://", "https://"} {
		if bytes.Contains(bytes.ToLower(page), []byte(scheme)) {
			out = append(out, "the page holds "+scheme)
		}
	}
	return out
}

// treeCell is the treemap's JSON.
type treeCell struct {
	N string     `json:"n"`
	T int64      `json:"t"`
	F int        `json:"f"`
	D bool       `json:"d"`
	C []treeCell `json:"c"`
}

func treeOf(t testing.TB, page []byte) treeCell {
	t.Helper()
	const open = `<script type="application/json" id="treemap-data">`
	i := bytes.Index(page, []byte(open))
	j := bytes.Index(page[i:], []byte("</script>"))
	if i < 0 || j < 0 {
		t.Fatal("no treemap data")
	}
	var root treeCell
	if err := json.Unmarshal(page[i+len(open):i+j], &root); err != nil {
		t.Fatal(err)
	}
	return root
}

// TestTreemapData: the treemap's cells add up (each directory's tokens and
// files are its cells'), the root holds every staged token, and on a tree
// of 100,000 files the data stays small.
func TestTreemapData(t *testing.T) {
	// Under -short (the race pass) 20k files, still ten times the cells
	// allowed; the whole pass draws 100k.
	many := 100_000
	if testing.Short() {
		many = 20_000
	}
	tests := []struct {
		name     string
		m        *snapshot.Manifest
		maxCells int
		maxBytes int
	}{
		{"fixture", func() *snapshot.Manifest { p, _ := pageFixture(130); return p.Manifest }(), 2000, 200 << 10},
		{"100k files", snapshottest.Synth(many), 2000, 200 << 10},
		{"no files", snapshottest.NewManifest(nil, nil), 1, 1 << 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := report.Report{Source: "/x/repo"}
			rep.Count(tt.m)
			page := writePage(t, report.Page{Report: &rep, Manifest: tt.m})
			root := treeOf(t, page)
			if root.T != rep.Tokens || root.F != rep.Staged {
				t.Errorf("root holds %d tokens in %d files, the report %d in %d", root.T, root.F, rep.Tokens, rep.Staged)
			}
			cells := 0
			var check func(c treeCell, path string)
			check = func(c treeCell, path string) {
				cells++
				if len(c.C) == 0 {
					return
				}
				var tok int64
				var files int
				for _, k := range c.C {
					tok += k.T
					files += k.F
					check(k, path+"/"+k.N)
				}
				if tok != c.T || files != c.F {
					t.Errorf("%s: %d tokens in %d files, its cells %d in %d", path, c.T, c.F, tok, files)
				}
			}
			check(root, root.N)
			if cells > tt.maxCells {
				t.Errorf("%d cells, want at most %d", cells, tt.maxCells)
			}
			i := bytes.Index(page, []byte(`id="treemap-data">`))
			j := bytes.Index(page[i:], []byte("</script>"))
			if j > tt.maxBytes {
				t.Errorf("treemap data %d bytes, want at most %d", j, tt.maxBytes)
			}
			t.Logf("%d cells, %d bytes of treemap data, page %d bytes", cells, j, len(page))
		})
	}
}

// FuzzWriteHTML: whatever names the scanned tree holds, and whatever a
// rules file calls a reason or a secret's masked value reads, the page
// keeps its structure (one h1, two scripts, nothing loaded) and its
// treemap data parses.
func FuzzWriteHTML(f *testing.F) {
	for _, s := range []string{"a.go", "</script><script>x()</script>", "<!--", "https://x.example/a.png", "]]>", "\u2028\u2029", "\xff\xfe", "url(//x)", "{{.Title}}"} {
		f.Add(s, s)
	}
	f.Fuzz(func(t *testing.T, name, word string) {
		if len(name) > 4096 || len(word) > 4096 {
			return
		}
		p, _ := pageFixture(0)
		m := *p.Manifest
		m.Files = append([]snapshot.Entry{
			{Path: name, Size: 10, Category: "text", Language: word, Encoding: word, Staged: true, Tokens: 5, DuplicateOf: ""},
			{Path: name + "/x", Size: 10, Category: word, Reason: word, DuplicateOf: name},
		}, m.Files...)
		p.Manifest = &m
		p.Secrets = append(p.Secrets, secrets.PathFinding{Path: name, Finding: secrets.Finding{Rule: word, Kind: word, Match: word}})
		p.Instructions = append(p.Instructions, report.Instruction{Path: name, Agent: word, Warnings: []string{word}})
		page := writePage(t, p)
		for _, pr := range pageStructure(page) {
			if strings.Contains(pr, "the page holds http") && (strings.Contains(strings.ToLower(name+word), "http")) {
				continue // the name is shown as text, escaped; not a reference
			}
			t.Errorf("%s (name %q, word %q)", pr, name, word)
		}
	})
}

// BenchmarkWriteHTML: the page of a 100,000-file manifest, and of the
// snapshot at $REPOPREP_REPORT_OUT when set (Go's src/).
func BenchmarkWriteHTML(b *testing.B) {
	b.Run("synth-100k", func(b *testing.B) {
		m := snapshottest.Synth(100_000)
		rep := report.Report{Source: "/x/repo"}
		rep.Count(m)
		a := report.BuildAudit(m, nil, nil)
		rep.Audit = &a
		benchPage(b, report.Page{Report: &rep, Manifest: m})
	})
	b.Run("REPOPREP_REPORT_OUT", func(b *testing.B) {
		out := os.Getenv("REPOPREP_REPORT_OUT")
		if out == "" {
			b.Skip("REPOPREP_REPORT_OUT is not set")
		}
		docs := map[string][]byte{}
		for name, file := range map[string]string{"report": snapshot.ReportJSON, "files": snapshot.FilesJSON, "secrets": snapshot.SecretsJSON, "instructions": snapshot.InstructionsJSON} {
			data, err := os.ReadFile(filepath.Join(out, file))
			if err != nil {
				b.Fatal(err)
			}
			docs[name] = data
		}
		var rep report.Report
		var found secrets.FindingsFile
		m, err := snapshot.ParseManifest(docs["files"])
		if err == nil {
			err = json.Unmarshal(docs["report"], &rep)
		}
		if err == nil {
			err = json.Unmarshal(docs["secrets"], &found)
		}
		idx, ierr := instructions.Parse(docs["instructions"])
		if err != nil || ierr != nil {
			b.Fatal(err, ierr)
		}
		benchPage(b, pipeline.ReportPage(&rep, m, found.Findings, idx))
	})
}

func benchPage(b *testing.B, p report.Page) {
	var buf bytes.Buffer
	b.ReportAllocs()
	for b.Loop() {
		buf.Reset()
		if err := report.WriteHTML(&buf, p); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(buf.Len()), "page-bytes")
}
