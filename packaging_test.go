// Tests of what ships beside the code: the GitHub Action, the GitLab CI
// template, the Dockerfile and the release configuration. They lint each
// file with the tool its ecosystem uses (actionlint, GitLab's own CI schema,
// BuildKit's Dockerfile parser) and check that the three build recipes agree
// on the flags that make a binary static and reproducible.
package repoprep_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/moby/buildkit/frontend/dockerfile/parser"
	"github.com/rhysd/actionlint"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"gopkg.in/yaml.v3"

	"github.com/repoprep/repoprep/rules"
)

// readmeWorkflow is the workflow the README tells users to copy: the YAML
// block after the line "<!-- github-action-workflow -->".
func readmeWorkflow(t *testing.T) string {
	t.Helper()
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)<!-- github-action-workflow -->\\s*```yaml\n(.*?)```").FindSubmatch(readme)
	if m == nil {
		t.Fatal("README.md has no ```yaml block after <!-- github-action-workflow -->")
	}
	return string(m[1])
}

// lintWorkflow runs actionlint on workflow in a scratch repository holding
// this repository's action.yml at its root, so `uses: ./` resolves to it and
// actionlint checks the step's inputs against the action's metadata.
func lintWorkflow(t *testing.T, workflow string) []*actionlint.Error {
	t.Helper()
	root := t.TempDir()
	action, err := os.ReadFile("action.yml")
	if err != nil {
		t.Fatal(err)
	}
	wfDir := filepath.Join(root, ".github", "workflows")
	for _, dir := range []string{filepath.Join(root, ".git"), wfDir} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "action.yml"), action, 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(wfDir, "repoprep.yml")
	if err := os.WriteFile(path, []byte(workflow), 0o644); err != nil {
		t.Fatal(err)
	}
	proj, err := actionlint.NewProject(root)
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	linter, err := actionlint.NewLinter(&log, &actionlint.LinterOptions{WorkingDir: root})
	if err != nil {
		t.Fatal(err)
	}
	errs, err := linter.Lint(path, []byte(workflow), proj)
	if err != nil {
		t.Fatal(err)
	}
	return errs
}

const actionRef = "repoprep/repoprep@v1"

func TestActionWorkflowLints(t *testing.T) {
	wf := readmeWorkflow(t)
	if !strings.Contains(wf, "uses: "+actionRef) {
		t.Fatalf("README workflow does not use %s:\n%s", actionRef, wf)
	}
	local := strings.ReplaceAll(wf, "uses: "+actionRef, "uses: ./")
	for _, e := range lintWorkflow(t, local) {
		t.Errorf("README workflow: %s", e.Error())
	}

	// The lint reads our action.yml: an input it does not declare is an error.
	bad := strings.Replace(local, "uses: ./", "uses: ./\n        with:\n          no-such-input: x", 1)
	if errs := lintWorkflow(t, bad); !slices.ContainsFunc(errs, func(e *actionlint.Error) bool {
		return strings.Contains(e.Message, "no-such-input")
	}) {
		t.Errorf("an undeclared input passed the lint: %v", errs)
	}
}

// actionMeta is the part of action.yml the tests look into.
type actionMeta struct {
	Name   string                    `yaml:"name"`
	Inputs map[string]map[string]any `yaml:"inputs"`
	Runs   struct {
		Using string `yaml:"using"`
		Steps []struct {
			Name  string            `yaml:"name"`
			Uses  string            `yaml:"uses"`
			Run   string            `yaml:"run"`
			Shell string            `yaml:"shell"`
			If    string            `yaml:"if"`
			With  map[string]string `yaml:"with"`
			Env   map[string]string `yaml:"env"`
		} `yaml:"steps"`
	} `yaml:"runs"`
}

// readAction reads action.yml, and the part of it the tests look into.
func readAction(t *testing.T) ([]byte, actionMeta) {
	t.Helper()
	data, err := os.ReadFile("action.yml")
	if err != nil {
		t.Fatal(err)
	}
	var meta actionMeta
	if err := yaml.Unmarshal(data, &meta); err != nil {
		t.Fatal(err)
	}
	return data, meta
}

// TestActionSteps checks what actionlint does not look into: the composite
// action's own steps. Every expression parses, every run script is valid
// bash, and every ${{ inputs.X }} names a declared input.
func TestActionSteps(t *testing.T) {
	data, meta := readAction(t)
	if meta.Runs.Using != "composite" || len(meta.Runs.Steps) == 0 {
		t.Fatalf("action.yml: runs.using %q with %d steps", meta.Runs.Using, len(meta.Runs.Steps))
	}
	exprRe := regexp.MustCompile(`\$\{\{(.*?)\}\}`)
	inputRe := regexp.MustCompile(`inputs\.([A-Za-z0-9_-]+)`)
	for _, m := range exprRe.FindAllStringSubmatch(string(data), -1) {
		if _, perr := actionlint.NewExprParser().Parse(actionlint.NewExprLexer(m[1] + "}}")); perr != nil {
			t.Errorf("action.yml: expression %q: %s", m[0], perr.Message)
		}
		for _, in := range inputRe.FindAllStringSubmatch(m[1], -1) {
			if _, ok := meta.Inputs[in[1]]; !ok {
				t.Errorf("action.yml: %s names undeclared input %q", m[0], in[1])
			}
		}
	}
	for i, s := range meta.Runs.Steps {
		if s.Run == "" {
			continue
		}
		if s.Shell != "bash" {
			t.Errorf("step %d (%s): shell %q, want bash", i, s.Name, s.Shell)
		}
		cmd := exec.Command("bash", "-n")
		cmd.Stdin = strings.NewReader(s.Run)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("step %d (%s): bash -n: %v\n%s", i, s.Name, err, out)
		}
	}
}

// gitlabSchema fetches GitLab's CI JSON schema as gitlab-ci-local ships it
// (src/schema/schema.js in its npm package) into a temp dir. The schema is
// not committed: it is GitLab's, and it changes with GitLab.
func gitlabSchema(t *testing.T) any {
	t.Helper()
	for _, tool := range []string{"npm", "node"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed: cannot fetch GitLab's CI schema", tool)
		}
	}
	dir := t.TempDir()
	const pkg = "gitlab-ci-local@4.60.0" // the last version whose package carries the schema as plain source
	pack := exec.Command("npm", "pack", "--silent", pkg)
	pack.Dir = dir
	out, err := pack.CombinedOutput()
	if err != nil {
		t.Fatalf("npm pack %s: %v\n%s", pkg, err, out)
	}
	tgz := filepath.Join(dir, strings.TrimSpace(string(out)))
	if out, err := exec.Command("tar", "-xzf", tgz, "-C", dir, "package/src/schema/schema.js").CombinedOutput(); err != nil {
		t.Fatalf("untar %s: %v\n%s", tgz, err, out)
	}
	// schema.js is a JavaScript module, not JSON: let node print it as JSON.
	js := exec.Command("node", "--input-type=module", "-e",
		`import("./package/src/schema/schema.js").then(m => process.stdout.write(JSON.stringify(m.schema)))`)
	js.Dir = dir
	var stderr bytes.Buffer
	js.Stderr = &stderr
	j, err := js.Output()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, stderr.Bytes())
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(j))
	if err != nil {
		t.Fatalf("schema.js: %v", err)
	}
	return doc
}

// yamlToJSON turns a YAML document into the JSON value a schema validates.
func yamlToJSON(t *testing.T, data []byte) any {
	t.Helper()
	var v any
	if err := yaml.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	j, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	out, err := jsonschema.UnmarshalJSON(bytes.NewReader(j))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestGitLabTemplateValidates(t *testing.T) {
	const file = "ci/gitlab/repoprep.gitlab-ci.yml"
	tmpl, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("https://gitlab.com/.gitlab-ci.yml", gitlabSchema(t)); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("https://gitlab.com/.gitlab-ci.yml")
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(yamlToJSON(t, tmpl)); err != nil {
		t.Errorf("%s: %v", file, err)
	}
	// The schema is strict enough to catch a misspelt job keyword.
	bad := bytes.Replace(tmpl, []byte("\n  script:"), []byte("\n  scripts:"), 1)
	var verr *jsonschema.ValidationError
	if err := sch.Validate(yamlToJSON(t, bad)); !errors.As(err, &verr) {
		t.Errorf("a job with `scripts:` validated: %v", err)
	}
}

// dockerfile is the parsed Dockerfile: each instruction with its arguments.
type instruction struct {
	cmd   string
	args  []string
	flags []string
}

func parseDockerfile(t *testing.T) []instruction {
	t.Helper()
	f, err := os.Open("Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	res, err := parser.Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range res.Warnings {
		t.Errorf("Dockerfile: %s", w.Short)
	}
	var out []instruction
	for _, n := range res.AST.Children {
		in := instruction{cmd: strings.ToLower(n.Value), flags: n.Flags}
		for a := n.Next; a != nil; a = a.Next {
			in.args = append(in.args, a.Value)
		}
		out = append(out, in)
	}
	return out
}

func TestDockerfile(t *testing.T) {
	ins := parseDockerfile(t)
	var froms []instruction
	var user, entry string
	var volumes []string
	var buildRun string
	for _, in := range ins {
		switch in.cmd {
		case "from":
			froms = append(froms, in)
		case "user":
			user = in.args[0]
		case "volume":
			volumes = append(volumes, in.args...)
		case "entrypoint":
			entry = strings.Join(in.args, " ")
		case "run":
			if s := strings.Join(in.args, " "); strings.Contains(s, "go build") {
				buildRun = s
			}
		}
	}
	if len(froms) < 2 {
		t.Fatalf("Dockerfile has %d stages, want a multi-stage build", len(froms))
	}
	final := froms[len(froms)-1].args[0]
	if final != "scratch" && !strings.HasPrefix(final, "gcr.io/distroless/static") {
		t.Errorf("final stage FROM %s, want scratch or distroless/static", final)
	}
	if uid, _, _ := strings.Cut(user, ":"); user == "" || uid == "0" || uid == "root" {
		t.Errorf("USER %q: the image must not run as root", user)
	}
	for _, v := range []string{"/src", "/out"} {
		if !slices.Contains(volumes, v) {
			t.Errorf("VOLUME misses %s (have %v)", v, volumes)
		}
	}
	if !strings.Contains(entry, "repoprep") {
		t.Errorf("ENTRYPOINT %q does not run repoprep", entry)
	}
	for _, flag := range releaseFlags {
		if !strings.Contains(buildRun, flag) {
			t.Errorf("Dockerfile's go build lacks %q: %s", flag, buildRun)
		}
	}
}

// releaseFlags make a binary static and reproducible; the Dockerfile and
// .goreleaser.yaml must both use them.
var releaseFlags = []string{"CGO_ENABLED=0", "-trimpath", "-buildid=", "-X main.version=", "-X main.commit="}

func TestGoreleaserConfig(t *testing.T) {
	data, err := os.ReadFile(".goreleaser.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		Version int `yaml:"version"`
		Builds  []struct {
			Main    string   `yaml:"main"`
			Env     []string `yaml:"env"`
			Goos    []string `yaml:"goos"`
			Goarch  []string `yaml:"goarch"`
			Flags   []string `yaml:"flags"`
			Ldflags []string `yaml:"ldflags"`
		} `yaml:"builds"`
		Checksum map[string]string `yaml:"checksum"`
		Sboms    []map[string]any  `yaml:"sboms"`
	}
	if err := yaml.Unmarshal(data, &cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.Version != 2 || len(cfg.Builds) != 1 {
		t.Fatalf(".goreleaser.yaml: version %d with %d builds", cfg.Version, len(cfg.Builds))
	}
	b := cfg.Builds[0]
	if b.Main != "./cmd/repoprep" {
		t.Errorf("builds main %q", b.Main)
	}
	slices.Sort(b.Goos)
	slices.Sort(b.Goarch)
	if !slices.Equal(b.Goos, []string{"darwin", "linux", "windows"}) || !slices.Equal(b.Goarch, []string{"amd64", "arm64"}) {
		t.Errorf("targets %v × %v, want linux/darwin/windows × amd64/arm64", b.Goos, b.Goarch)
	}
	all := strings.Join(slices.Concat(b.Env, b.Flags, b.Ldflags), " ")
	for _, flag := range releaseFlags {
		if !strings.Contains(all, flag) {
			t.Errorf(".goreleaser.yaml lacks %q", flag)
		}
	}
	if cfg.Checksum["name_template"] == "" || len(cfg.Sboms) == 0 {
		t.Errorf(".goreleaser.yaml: checksum %v, sboms %v", cfg.Checksum, cfg.Sboms)
	}
}

// TestCIKeepsPDFEngine: both CI templates keep the directory the run
// compiles PDFium into, so an ephemeral runner does not compile it again:
// the cache's path is the REPOPREP_WAZERO_CACHE the run sees.
func TestCIKeepsPDFEngine(t *testing.T) {
	_, meta := readAction(t)
	var cached, used string
	for _, s := range meta.Runs.Steps {
		if strings.HasPrefix(s.Uses, "actions/cache@") {
			cached = strings.Replace(s.With["path"], "~", "$HOME", 1)
		}
		if m := regexp.MustCompile(`export REPOPREP_WAZERO_CACHE="([^"]+)"`).FindStringSubmatch(s.Run); m != nil {
			used = m[1]
		}
	}
	if cached == "" || cached != used {
		t.Errorf("action.yml caches %q, the run uses REPOPREP_WAZERO_CACHE=%q", cached, used)
	}

	data, err := os.ReadFile("ci/gitlab/repoprep.gitlab-ci.yml")
	if err != nil {
		t.Fatal(err)
	}
	var gl struct {
		Job struct {
			Variables map[string]string `yaml:"variables"`
			Cache     struct {
				Paths []string `yaml:"paths"`
			} `yaml:"cache"`
		} `yaml:"repoprep"`
	}
	if err := yaml.Unmarshal(data, &gl); err != nil {
		t.Fatal(err)
	}
	dir := strings.TrimPrefix(gl.Job.Variables["REPOPREP_WAZERO_CACHE"], "$CI_PROJECT_DIR/")
	if len(gl.Job.Cache.Paths) != 1 || strings.TrimSuffix(gl.Job.Cache.Paths[0], "/") != dir || dir == "" {
		t.Errorf("GitLab template caches %q, the run uses REPOPREP_WAZERO_CACHE=%q", gl.Job.Cache.Paths, gl.Job.Variables["REPOPREP_WAZERO_CACHE"])
	}
	// The cache sits inside the project (GitLab's rule), so it must be a
	// directory the scan prunes by default.
	set, err := rules.LoadSources()
	if err != nil {
		t.Fatal(err)
	}
	if top, _, _ := strings.Cut(dir, "/"); !set.ExcludeDirs[top] {
		t.Errorf("the GitLab cache %s is inside the project and %s is not pruned by default", dir, top)
	}
}
