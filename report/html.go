package report

import (
	"bufio"
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"html/template"
	"io"
	"path"

	"github.com/repoprep/repoprep/internal/secrets"
	"github.com/repoprep/repoprep/snapshot"
)

// report.html: the audit as a page a person looks at, one self-contained
// file (the CSS, the script and the treemap's data inline; nothing loaded
// from anywhere). The tables are HTML and read without the script; the
// script draws the treemap and sorts the tables. Every figure on it is a
// <data> element naming the JSON it was taken from (html_num.go).

//go:embed html
var htmlAssets embed.FS

// pageTemplate is parsed once; the CSS and the script are put in verbatim.
var pageTemplate = template.Must(template.New("page.tmpl").ParseFS(htmlAssets, "html/page.tmpl"))

// Page is what report.html shows: the files of one published snapshot.
type Page struct {
	Report   *Report            // report.json, with its audit
	Manifest *snapshot.Manifest // files.json
	// Secrets are secrets.json's findings, masked, in its order.
	Secrets []secrets.PathFinding
	// Instructions are instructions.json's files, in its order (the page
	// names each as instructions:files[i]). report does not read
	// instructions.json itself: the caller, who may, fills this.
	Instructions []Instruction
}

// Instruction is one agent instruction file as the page lists it.
type Instruction struct {
	Path        string
	Agent       string
	Kind        string
	Activation  string
	Tokens      int // its own text's o200k tokens
	TotalTokens int // with every text its imports load
	Imports     int // its own @imports
	Warnings    []string
}

// pageMaxRows caps every list on the page; the rest is "and N more".
const pageMaxRows = 50

// WriteHTML writes report.html for p. The same Page gives the same bytes:
// the page holds no time but report.json's own, and every list is sorted.
func WriteHTML(w io.Writer, p Page) error {
	if p.Report == nil || p.Manifest == nil {
		return errors.New("report.html: no report or no manifest")
	}
	v, err := buildView(p)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	if err := pageTemplate.Execute(bw, v); err != nil {
		return err
	}
	return bw.Flush()
}

// view is what the template fills in.
type view struct {
	Title    string
	Source   string
	Version  string
	Started  string
	CSS      template.CSS
	Script   template.JS
	TreeJSON template.JS // the treemap's data, a JSON document
	Totals   []total
	Sections []section
}

// total is one figure of the summary at the top.
type total struct {
	Label  string
	Figure template.HTML
	Extra  template.HTML // a second figure (bytes beside files)
}

// section is one h2 part of the page: paragraphs, then tables.
type section struct {
	ID, Title string
	Notes     []template.HTML // short paragraphs of figures and words
	Tables    []table
}

// table is one <table class="data">: the first column names a row (a
// <th scope="row">), the others hold a figure or a text.
type table struct {
	Caption string
	Head    []string
	Rows    []row
	More    template.HTML // "and N more" below the rows, when cut
	Empty   string        // said instead of a table without rows
}

type row struct {
	Name  string
	Mark  string // a label beside the name ("not staged", "test")
	Cells []cell
}

// cell is a figure (Fig) or words (Text): only a figure may hold a digit
// outside a <data>, which is what the page's test checks.
type cell struct {
	Fig  template.HTML
	Text string
}

func fig(h template.HTML) cell { return cell{Fig: h} }
func text(s string) cell       { return cell{Text: s} }

// more is the "and N more" line of a list cut at shown rows of total
// (src names total).
func more(total, shown int, src string) template.HTML {
	if total <= shown {
		return ""
	}
	return "and " + numInt(total-shown, minus(src, shown)) + " more"
}

func buildView(p Page) (*view, error) {
	r := p.Report
	css, err := htmlAssets.ReadFile("html/page.css")
	if err != nil {
		return nil, err
	}
	js, err := htmlAssets.ReadFile("html/page.js")
	if err != nil {
		return nil, err
	}
	name := path.Base(filepathToSlash(r.Source))
	if name == "." || name == "/" || name == "" {
		name = "repository"
	}
	tree, err := treeJSON(p.Manifest, name)
	if err != nil {
		return nil, err
	}
	v := &view{
		Title: "repoprep audit: " + name, Source: r.Source, Version: r.Version, Started: r.Started,
		CSS: template.CSS(css), Script: template.JS(js), TreeJSON: template.JS(tree),
	}
	a := r.Audit
	if a == nil {
		a = &Audit{}
	}
	v.Totals = []total{
		{Label: "Files scanned", Figure: numInt(r.Files, srcReport("files")), Extra: numBytes(r.Bytes, srcReport("bytes"))},
		{Label: "Staged", Figure: numInt(r.Staged, srcReport("staged")), Extra: numBytes(r.StagedBytes, srcReport("staged_bytes"))},
		{Label: "Tokens (o200k)", Figure: numInt(r.Tokens, srcReport("tokens"))},
		{Label: "Left out", Figure: numInt(a.LeftOutCount, srcReport("audit.left_out_count")), Extra: numBytes(a.LeftOutBytes, srcReport("audit.left_out_bytes"))},
		{Label: "Directories not walked", Figure: numInt(r.Pruned, srcReport("pruned"))},
		{Label: "Secret findings", Figure: numInt(r.Secrets, srcReport("secrets"))},
		{Label: "Time", Figure: numSeconds(r.Seconds, srcReport("seconds"))},
	}
	v.Sections = []section{
		tokensSection(p, a),
		categoriesSection(p, a),
		leftOutSection(a),
		encodingsSection(p, a),
		secretsSection(p, a),
		duplicatesSection(p, a),
		documentsSection(p, a),
		instructionsSection(p),
		refreshSection(r),
		timeSection(r),
	}
	return v, nil
}

// treeJSON is the treemap's data as JSON that cannot end its <script>:
// encoding/json writes <, > and & as \u003c..., and U+2028/9 escaped.
func treeJSON(m *snapshot.Manifest, name string) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(true)
	if err := enc.Encode(tokenTree(m, name)); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// filepathToSlash turns a Windows source path's separators into slashes,
// so its base name is found on any platform.
func filepathToSlash(p string) string {
	b := []byte(p)
	for i, c := range b {
		if c == '\\' {
			b[i] = '/'
		}
	}
	return string(b)
}
