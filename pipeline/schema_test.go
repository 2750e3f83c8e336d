package pipeline

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/encoding/simplifiedchinese"

	"github.com/repoprep/repoprep/instructions"
	xt "github.com/repoprep/repoprep/internal/extract/extracttest"
	"github.com/repoprep/repoprep/internal/lineindex"
	"github.com/repoprep/repoprep/internal/secrets"
	"github.com/repoprep/repoprep/internal/testkit"
	"github.com/repoprep/repoprep/report"
	"github.com/repoprep/repoprep/rules"
	"github.com/repoprep/repoprep/schema"
	"github.com/repoprep/repoprep/snapshot"
	"github.com/repoprep/repoprep/stages"
)

// The contract's machine-readable half: every output file's "schema"
// value has a schema file under schema/, that file describes exactly the
// fields the Go type writes, and real runs validate against it.

// outputSchemas maps each "schema" value to the Go type written under it.
var outputSchemas = map[string]reflect.Type{
	snapshot.FilesSchema:    reflect.TypeFor[snapshot.Manifest](),
	secrets.Schema:          reflect.TypeFor[secrets.FindingsFile](),
	snapshot.OversizeSchema: reflect.TypeFor[snapshot.OversizeIndex](),
	snapshot.ReportSchema:   reflect.TypeFor[report.Report](),
	instructions.Schema:     reflect.TypeFor[instructions.Index](),
	lineindex.Schema:        reflect.TypeFor[lineindex.Index](),
	secrets.BaselineSchema:  reflect.TypeFor[secrets.Baseline](),
}

// outputFiles maps each file of OUT that has a schema to its value.
var outputFiles = map[string]string{
	"files.json":        snapshot.FilesSchema,
	"secrets.json":      secrets.Schema,
	"oversize.json":     snapshot.OversizeSchema,
	"report.json":       snapshot.ReportSchema,
	"instructions.json": instructions.Schema,
	snapshot.LinesJSON:  lineindex.Schema,
}

// schemaDoc reads one schema file as generic JSON.
func schemaDoc(t testing.TB, value string) map[string]any {
	t.Helper()
	data, err := fs.ReadFile(schema.FS, schema.File(value))
	if err != nil {
		t.Fatalf("no schema file for %q: %v", value, err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("%s: %v", schema.File(value), err)
	}
	return doc
}

// compileSchemas compiles every schema file with format assertions on.
func compileSchemas(t testing.TB) map[string]*jsonschema.Schema {
	t.Helper()
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	c.DefaultDraft(jsonschema.Draft2020)
	out := map[string]*jsonschema.Schema{}
	for value := range outputSchemas {
		data, err := fs.ReadFile(schema.FS, schema.File(value))
		if err != nil {
			t.Fatal(err)
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("%s: %v", schema.File(value), err)
		}
		if err := c.AddResource(schema.ID(value), doc); err != nil {
			t.Fatal(err)
		}
	}
	for value := range outputSchemas {
		sch, err := c.Compile(schema.ID(value))
		if err != nil {
			t.Fatalf("%s does not compile: %v", schema.File(value), err)
		}
		out[value] = sch
	}
	return out
}

// TestSchemaFiles: one schema file per value the code writes and no other,
// each with the $id and the "schema" const the mapping promises.
func TestSchemaFiles(t *testing.T) {
	var files []string
	err := fs.WalkDir(schema.FS, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for value := range outputSchemas {
		want = append(want, schema.File(value))
		doc := schemaDoc(t, value)
		if doc["$id"] != schema.ID(value) {
			t.Errorf("%s: $id %v, want %s", schema.File(value), doc["$id"], schema.ID(value))
		}
		if doc["$schema"] != "https://json-schema.org/draft/2020-12/schema" {
			t.Errorf("%s: $schema %v, want draft 2020-12", schema.File(value), doc["$schema"])
		}
		props, _ := doc["properties"].(map[string]any)
		if c, _ := props["schema"].(map[string]any); c["const"] != value {
			t.Errorf("%s: properties.schema.const is %v, want %q", schema.File(value), c["const"], value)
		}
	}
	// corpus's manifest is written by the corpus room, which imports this
	// package: corpus/schema_test.go checks its schema against its type.
	want = append(want, schema.File("repoprep.corpus/v1"))
	sort.Strings(files)
	sort.Strings(want)
	if !slices.Equal(files, want) {
		t.Errorf("schema/ holds %q, want %q", files, want)
	}
	compileSchemas(t)
}

// TestSchemasDescribeTypes walks each Go type beside its schema: every
// JSON field is a property, every property a field, a field is required
// exactly when it has no omitempty, and every object is closed
// (additionalProperties false). A field added in code without the
// contract fails here.
func TestSchemasDescribeTypes(t *testing.T) {
	for value, typ := range outputSchemas {
		t.Run(value, func(t *testing.T) {
			testkit.SchemaDescribes(t, typ, schemaDoc(t, value), schema.File(value))
		})
	}
}

// enumOf returns the enum of a $defs entry, or of the property at a
// dotted path of $defs and properties.
func enumOf(t *testing.T, doc map[string]any, path ...string) []string {
	t.Helper()
	node := doc
	for _, p := range path {
		next, ok := node[p].(map[string]any)
		if !ok {
			t.Fatalf("no %s in the schema", strings.Join(path, "."))
		}
		node = next
	}
	var out []string
	for _, v := range node["enum"].([]any) {
		out = append(out, v.(string))
	}
	return out
}

// TestSchemaEnums: the schemas' enums are the values the code and the
// rules data produce.
func TestSchemaEnums(t *testing.T) {
	files := schemaDoc(t, snapshot.FilesSchema)
	if got := enumOf(t, files, "$defs", "category"); !slices.Equal(got, rules.Categories) {
		t.Errorf("category enum %q, want rules.Categories %q", got, rules.Categories)
	}
	reasons := enumOf(t, files, "$defs", "reason")
	rs, err := rules.Load("")
	if err != nil {
		t.Fatal(err)
	}
	var fromRules []string
	for _, j := range rs.Junk {
		fromRules = append(fromRules, j.Reason)
	}
	for _, c := range rs.Classes {
		fromRules = append(fromRules, c.Reason)
	}
	fromRules = append(fromRules, stages.ReasonExcludedByRule)
	for _, r := range fromRules {
		if !slices.Contains(reasons, r) {
			t.Errorf("reason %q of the default rules is not in the reason enum", r)
		}
	}
	if got, want := enumOf(t, files, "$defs", "pruned", "properties", "reason"), []string{"excluded-dir", "ignored", "unreadable", stages.ReasonExcludedByRule}; !slices.Equal(got, want) {
		t.Errorf("pruned reason enum %q, want %q", got, want)
	}
	secretsDoc := schemaDoc(t, secrets.Schema)
	kinds, sevs := map[string]bool{}, map[string]bool{}
	for _, r := range rs.Secrets {
		kinds[r.Kind], sevs[r.Severity] = true, true
	}
	for k := range kinds {
		if !slices.Contains(enumOf(t, secretsDoc, "$defs", "finding", "properties", "kind"), k) {
			t.Errorf("kind %q of the default secret rules is not in the enum", k)
		}
	}
	for s := range sevs {
		if !slices.Contains(enumOf(t, secretsDoc, "$defs", "finding", "properties", "severity"), s) {
			t.Errorf("severity %q of the default secret rules is not in the enum", s)
		}
	}
	if got := enumOf(t, secretsDoc, "$defs", "finding", "properties", "kind"); !slices.Equal(got, []string{rules.KindCredential, rules.KindPII}) {
		t.Errorf("kind enum %q", got)
	}
	if got := enumOf(t, secretsDoc, "$defs", "finding", "properties", "severity"); !slices.Equal(got, []string{rules.SeverityHigh, rules.SeverityMedium, rules.SeverityLow}) {
		t.Errorf("severity enum %q", got)
	}
	instr := schemaDoc(t, instructions.Schema)
	if got := enumOf(t, instr, "$defs", "file", "properties", "agent"); !slices.Equal(got, instructions.Agents) {
		t.Errorf("agent enum %q, want %q", got, instructions.Agents)
	}
	// The report repeats files.json's enums.
	report := schemaDoc(t, snapshot.ReportSchema)
	for _, def := range []string{"category", "reason"} {
		if a, b := enumOf(t, report, "$defs", def), enumOf(t, files, "$defs", def); !slices.Equal(a, b) {
			t.Errorf("report.json's %s enum differs from files.json's", def)
		}
	}
}

// validateOut validates every file of OUT that has a schema.
func validateOut(t *testing.T, schemas map[string]*jsonschema.Schema, out string) map[string]any {
	t.Helper()
	docs := map[string]any{}
	for name, value := range outputFiles {
		data, err := os.ReadFile(filepath.Join(out, name))
		if err != nil {
			t.Fatal(err)
		}
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := schemas[value].Validate(inst); err != nil {
			t.Errorf("%s does not validate against %s:\n%v", name, schema.File(value), err)
		}
		docs[name] = inst
	}
	return docs
}

// schemaFixture is fixtureTree with every other kind of entry the pipeline
// writes: documents read and refused, secrets of both kinds, a secret in a
// file name, vendored, generated and lock files, undecodable text,
// mojibake, a rules file's exclusions, an ignored directory, an unsafe
// name, instruction files with imports.
func schemaFixture(t *testing.T) string {
	src := fixtureTree(t)
	s := plantedSecrets(t)
	docx := xt.DOCX(t, "Deploy key: "+s["aws"])
	files := map[string]string{
		"docs/spec.docx":                string(docx),
		"docs/locked.odt":               string(xt.ODT(t, true)),
		"docs/broken.docx":              string(docx[:len(docx)/2]),
		"legacy/drawing.vsd":            "\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1" + strings.Repeat("\x00", 504),
		"config/app.env":                fmt.Sprintf("GITHUB_TOKEN=%s\nSERVER=%s\n", s["github"], s["ip"]),
		"keys/" + s["gitlab"] + ".txt":  "a token in the name\n",
		"vendor/modules.txt":            "# example.com/dep v1.0.0\n",
		"vendor/example.com/dep/dep.go": "package dep\n",
		"api/api.pb.go":                 "// Code generated by protoc-gen-go. DO NOT EDIT.\n\npackage api\n",
		"web/package-lock.json":         "{}\n",
		"web/package.json":              `{"name": "web", "scripts": {"build": "vite build"}}` + "\n",
		"docs/latin.txt":                "caf\xe9 cr\xe8me\n",
		"docs/garbled.md":               strings.Repeat(latin1Garble("Café crème brûlée, déjà vu. "), 20) + "\n",
		"docs/kunjinkao.txt":            gbkMojibake(t),
		"bin/tool.bin":                  "\x7fELF\x02\x01\x01\x00" + strings.Repeat("\x00", 120),
		"db/app.sqlite":                 "SQLite format 3\x00" + strings.Repeat("\x00", 200),
		"backup/site.bak":               "old site\n",
		".repoprep.toml":                "exclude = [\"drafts/\", \"*.draft\"]\n",
		"drafts/idea.md":                "# later\n",
		"notes.draft":                   "not yet\n",
		"tmp/.gitignore":                "",
		"build-cache/x.o":               "\x7fELF",
		"AGENTS.md":                     "# Agents\n\nSee @docs/agent-style.md and @docs/missing.md\n",
		"docs/agent-style.md":           "Tabs.\n",
		".cursor/rules/go.mdc":          "---\ndescription: Go style\nglobs: \"*.go\"\n---\nGo: gofmt.\n",
	}
	writeFiles(t, src, files)
	gi, err := os.ReadFile(filepath.Join(src, ".gitignore"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(src, ".gitignore"), append(gi, "build-cache/\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(src, "odd\x01name.txt"), []byte("unsafe\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../keys/"+s["gitlab"]+".txt", filepath.Join(src, "docs", "link-to-key")); err != nil {
		t.Fatal(err)
	}
	return src
}

// gbkMojibake is GBK text holding 锟斤拷, the U+FFFD pair GBK round trips
// leave: a legacy file every reading of which is garbled (reason
// mojibake; valid UTF-8 is staged with the mojibake flag instead).
func gbkMojibake(t *testing.T) string {
	s, err := simplifiedchinese.GBK.NewEncoder().String("配置文件读取失败，请检查目录权限。默认用户名是管理员。\n锟斤拷锟斤拷\n")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// latin1Garble reads UTF-8 as Latin-1, the classic mojibake (é as two
// characters), made at run time so that this file holds none and stays
// staged itself.
func latin1Garble(s string) string {
	var b strings.Builder
	for i := range len(s) {
		b.WriteRune(rune(s[i]))
	}
	return b.String()
}

// TestSchemasValidateFixtureRun runs the pipeline over a tree with every
// kind of entry, then validates each output file, and checks the fixture
// really has what it claims: every category, the optional fields, the
// reasons and finding kinds below. Run again in exclude mode for the
// "secret" reason.
func TestSchemasValidateFixtureRun(t *testing.T) {
	schemas := compileSchemas(t)
	src := schemaFixture(t)
	for _, mode := range []string{"redact", "exclude"} {
		t.Run(mode, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			res := runFixture(t, src, out, func(o *Options) { o.Secrets = mode; o.MaxTextBytes = 2048 })
			docs := validateOut(t, schemas, out)
			seen := map[string]bool{}
			for _, e := range res.Manifest.Files {
				seen["category:"+e.Category] = true
				seen["reason:"+e.Reason] = true
				for _, f := range []struct {
					name string
					set  bool
				}{{"link_target", e.LinkTarget != ""}, {"error", e.Err != ""}, {"extracted_from", e.ExtractedFrom != ""},
					{"duplicate_of", e.DuplicateOf != ""}, {"oversize", e.Oversize}, {"bom", e.BOM}, {"crlf", e.CRLF},
					{"ext_mismatch", e.ExtMismatch}, {"test", e.Test}, {"secrets", e.Secrets > 0}} {
					if f.set {
						seen["field:"+f.name] = true
					}
				}
			}
			for _, p := range res.Manifest.Pruned {
				seen["pruned:"+p.Reason] = true
			}
			for _, f := range res.Findings {
				seen["kind:"+f.Kind] = true
			}
			want := []string{
				"category:source", "category:text", "category:document", "category:data", "category:junk",
				"field:link_target", "field:error", "field:extracted_from", "field:duplicate_of", "field:oversize",
				"field:bom", "field:crlf", "field:ext_mismatch", "field:test", "field:secrets",
				"reason:", "reason:symlink", "reason:special-file", "reason:unsafe-name", "reason:ignored",
				"reason:empty", "reason:vendored", "reason:generated", "reason:minified", "reason:lockfile",
				"reason:binary-media", "reason:archive", "reason:dump", "reason:database", "reason:backup",
				"reason:compiled", "reason:office", "reason:encrypted", "reason:unreadable", "reason:mojibake",
				"reason:excluded-by-rule", "reason:secret-in-name",
				"pruned:excluded-dir", "pruned:ignored", "pruned:excluded-by-rule",
				"kind:credential", "kind:pii",
			}
			if mode == "exclude" {
				want = append(want, "reason:secret")
			}
			for _, w := range want {
				if !seen[w] {
					t.Errorf("the fixture has no %s", w)
				}
			}
			var baseline bytes.Buffer
			if err := snapshot.EncodeJSON(&baseline, secrets.NewBaseline(res.Findings)); err != nil {
				t.Fatal(err)
			}
			if inst, err := jsonschema.UnmarshalJSON(&baseline); err != nil {
				t.Fatal(err)
			} else if err := schemas[secrets.BaselineSchema].Validate(inst); err != nil {
				t.Errorf("the baseline of this run does not validate: %v", err)
			}
			instr := docs["instructions.json"].(map[string]any)["files"].([]any)
			if len(instr) < 3 {
				t.Errorf("instructions.json lists %d files, want CLAUDE.md, AGENTS.md and a Cursor rule", len(instr))
			}
			if lines := docs[snapshot.LinesJSON].(map[string]any)["files"].([]any); len(lines) == 0 {
				t.Error("lines.json lists no oversize file")
			}
			if a := docs["report.json"].(map[string]any)["audit"].(map[string]any); len(a["large_files"].([]any)) != 0 {
				t.Error("the fixture has a file over 5 MiB?")
			}
		})
	}
}

// TestSchemasValidateGoSource validates the output of a run over part of
// Go's own source tree: nobody here wrote it, and it holds certificates
// and keys (findings), archives, test fixtures that lie about their
// extension, assembly, generated files and files in many encodings. A
// rules file keeps the run to archive/, mime/ and crypto/x509/ and
// prunes the rest by rule.
func TestSchemasValidateGoSource(t *testing.T) {
	src := testkit.GoSrc(t)
	if _, err := os.Stat(filepath.Join(src, "crypto", "x509")); err != nil {
		t.Skip("no Go source tree at", src)
	}
	if testing.Short() {
		t.Skip("-short: runs over 600 files of GOROOT/src; make test's whole pass runs it")
	}
	schemas := compileSchemas(t)
	rulesFile := filepath.Join(t.TempDir(), "rules.toml")
	if err := os.WriteFile(rulesFile, []byte(`exclude = ["/*", "!/archive", "!/mime", "!/crypto", "/crypto/*", "!/crypto/x509"]`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out")
	res := runFixture(t, src, out, func(o *Options) { o.RulesFile = rulesFile; o.MaxTextBytes = 64 << 10; o.PreviewLines = 20 })
	validateOut(t, schemas, out)
	if r := res.Report; r.Staged < 100 || r.Secrets == 0 || r.Audit.MismatchCount == 0 || r.Categories["data"] == 0 || r.Pruned < 10 {
		t.Errorf("the run saw less of Go's tree than expected: %d staged, %d findings, %d mismatches, %d data files, %d pruned",
			r.Staged, r.Secrets, r.Audit.MismatchCount, r.Categories["data"], r.Pruned)
	}
}

// TestOutputDocsDescribeSchemas: docs/output.md, the contract in words,
// names every property of every schema as `name`, and its reasons table
// has a row for every reason the files.json schema lists.
func TestOutputDocsDescribeSchemas(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "docs", "output.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	var walk func(where string, node any)
	walk = func(where string, node any) {
		switch n := node.(type) {
		case map[string]any:
			if props, ok := n["properties"].(map[string]any); ok {
				for name := range props {
					if !strings.Contains(doc, "`"+name+"`") && !strings.Contains(doc, `"`+name+`"`) {
						t.Errorf("docs/output.md never names %s's field `%s`", where, name)
					}
				}
			}
			for _, v := range n {
				walk(where, v)
			}
		case []any:
			for _, v := range n {
				walk(where, v)
			}
		}
	}
	for value := range outputSchemas {
		walk(schema.File(value), schemaDoc(t, value))
		if !strings.Contains(doc, "`"+value+"`") {
			t.Errorf("docs/output.md does not name the schema %s", value)
		}
	}
	_, table, _ := strings.Cut(doc, "### Reasons\n")
	table, _, _ = strings.Cut(table, "\n\n")
	for _, r := range enumOf(t, schemaDoc(t, snapshot.FilesSchema), "$defs", "reason") {
		if r == "" {
			r = `""` // plain source and text: the row reads | `""` |
		}
		if !strings.Contains(table, "\n| `"+r+"`") && !strings.Contains(table, ", `"+r+"`") && !strings.Contains(table, "| `"+r+"`,") {
			t.Errorf("docs/output.md's reasons table has no row for %q", r)
		}
	}
}
