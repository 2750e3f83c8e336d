package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rhysd/actionlint"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// examplesDir holds docs/examples/, the corpus's Kubernetes and GitHub
// Actions examples.
var examplesDir = filepath.Join("..", "..", "docs", "examples")

// TestCorpusKubernetesExample: every document of the Kubernetes example
// decodes strictly into the API's own types (k8s.io/api: an unknown or
// misspelt field fails, as kubectl apply --validate=strict fails), the
// shards are an Indexed Job whose completions are --shards N, and each
// container's command line is one `repoprep corpus` accepts.
func TestCorpusKubernetesExample(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(examplesDir, "corpus-k8s.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var jobs []batchv1.Job
	for i, doc := range regexp.MustCompile(`(?m)^---\n`).Split(string(data), -1) {
		var meta struct {
			APIVersion string `json:"apiVersion"`
			Kind       string `json:"kind"`
		}
		if err := yaml.Unmarshal([]byte(doc), &meta); err != nil {
			t.Fatalf("document %d: %v", i, err)
		}
		switch meta.APIVersion + " " + meta.Kind {
		case "batch/v1 Job":
			var job batchv1.Job
			if err := yaml.UnmarshalStrict([]byte(doc), &job); err != nil {
				t.Fatalf("document %d (Job): %v", i, err)
			}
			jobs = append(jobs, job)
		case "v1 PersistentVolumeClaim":
			var pvc corev1.PersistentVolumeClaim
			if err := yaml.UnmarshalStrict([]byte(doc), &pvc); err != nil {
				t.Fatalf("document %d (PersistentVolumeClaim): %v", i, err)
			}
		default:
			t.Fatalf("document %d: %s %s, which this test does not know", i, meta.APIVersion, meta.Kind)
		}
	}
	if len(jobs) != 2 {
		t.Fatalf("%d Jobs, want the shards and the merge", len(jobs))
	}
	shards, merge := jobs[0], jobs[1]
	if shards.Spec.CompletionMode == nil || *shards.Spec.CompletionMode != batchv1.IndexedCompletion || shards.Spec.Completions == nil {
		t.Fatal("the shards' Job is not Indexed with completions")
	}
	for _, job := range jobs {
		spec := job.Spec.Template.Spec
		if spec.RestartPolicy != corev1.RestartPolicyNever || len(spec.Containers) != 1 {
			t.Errorf("%s: want one container and restartPolicy Never (a pod failure policy needs it)", job.Name)
			continue
		}
		c := spec.Containers[0]
		if p := job.Spec.PodFailurePolicy; p != nil {
			for _, r := range p.Rules {
				if r.OnExitCodes == nil || r.OnExitCodes.ContainerName == nil || *r.OnExitCodes.ContainerName != c.Name {
					t.Errorf("%s: a pod failure rule names no container or another than %s", job.Name, c.Name)
				}
			}
		}
		checkCorpusArgs(t, job.Name, c.Args)
	}
	args := shards.Spec.Template.Spec.Containers[0].Args
	if i := slices.Index(args, "--shards"); i < 0 || i+1 >= len(args) || args[i+1] != strconv.Itoa(int(*shards.Spec.Completions)) {
		t.Errorf("shards: args %q: want --shards %d, the Job's completions", args, *shards.Spec.Completions)
	}
	if a := merge.Spec.Template.Spec.Containers[0].Args; len(a) < 2 || a[1] != "merge" {
		t.Errorf("merge: args %q: want corpus merge", a)
	}
	// The strict decoding is what catches a misspelt field.
	bad := strings.Replace(string(data), "completionMode:", "completionMod:", 1)
	var job batchv1.Job
	if err := yaml.UnmarshalStrict([]byte(strings.Split(bad, "\n---\n")[1]), &job); err == nil {
		t.Error("a misspelt field decoded")
	}
}

// checkCorpusArgs fails unless args is a `repoprep corpus` command line
// whose flags the command accepts: parsed with -h added, a bad flag fails
// before the help is printed.
func checkCorpusArgs(t *testing.T, job string, args []string) {
	t.Helper()
	if len(args) == 0 || args[0] != "corpus" {
		t.Errorf("%s: args %q do not run repoprep corpus", job, args)
		return
	}
	code, _, stderr := runCmd(t, append(slices.Clone(args), "-h")...)
	if code != exitOK {
		t.Errorf("%s: repoprep %s: exit %d: %s", job, strings.Join(args, " "), code, stderr)
	}
}

// TestCorpusWorkflowExample: the GitHub Actions example passes
// actionlint (expressions, job needs, the matrix, action inputs), runs a
// shard per matrix entry and merges after them, and its repoprep command
// lines use flags the command has.
func TestCorpusWorkflowExample(t *testing.T) {
	path := filepath.Join(examplesDir, "corpus-github-actions.yml")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	wfDir := filepath.Join(root, ".github", "workflows")
	if err := os.MkdirAll(wfDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	wf := filepath.Join(wfDir, "corpus.yml")
	lint := func(content []byte) []*actionlint.Error {
		proj, err := actionlint.NewProject(root)
		if err != nil {
			t.Fatal(err)
		}
		var log bytes.Buffer
		linter, err := actionlint.NewLinter(&log, &actionlint.LinterOptions{WorkingDir: root})
		if err != nil {
			t.Fatal(err)
		}
		errs, err := linter.Lint(wf, content, proj)
		if err != nil {
			t.Fatal(err)
		}
		return errs
	}
	for _, e := range lint(data) {
		t.Errorf("%s: %s", path, e.Error())
	}
	if errs := lint(bytes.Replace(data, []byte("matrix.k }}/$SHARDS"), []byte("matrix.shard }}/$SHARDS"), 1)); len(errs) == 0 {
		t.Error("actionlint passed a matrix key that does not exist")
	}
	var doc struct {
		Env  map[string]any `json:"env"`
		Jobs map[string]struct {
			Needs    any `json:"needs"`
			Strategy struct {
				Matrix map[string][]int `json:"matrix"`
			} `json:"strategy"`
			Steps []struct {
				Run string `json:"run"`
			} `json:"steps"`
		} `json:"jobs"`
	}
	if err := yaml.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	shard, merge := doc.Jobs["shard"], doc.Jobs["merge"]
	if n := len(shard.Strategy.Matrix["k"]); n == 0 || doc.Env["SHARDS"] != float64(n) {
		t.Errorf("matrix k %v, env SHARDS %v: want SHARDS the matrix's length", shard.Strategy.Matrix["k"], doc.Env["SHARDS"])
	}
	if merge.Needs != "shard" {
		t.Errorf("merge needs %v, want shard", merge.Needs)
	}
	// Each repoprep command line, its shell and Actions expressions made
	// concrete, is one the command accepts.
	concrete := strings.NewReplacer(`"${{ matrix.k }}/$SHARDS"`, "0/4", "|| code=$?", "")
	n := 0
	for _, job := range doc.Jobs {
		for _, step := range job.Steps {
			for _, line := range strings.Split(step.Run, "\n") {
				line = strings.TrimSpace(concrete.Replace(line))
				if rest, ok := strings.CutPrefix(line, "repoprep corpus "); ok {
					checkCorpusArgs(t, "workflow", append([]string{"corpus"}, strings.Fields(rest)...))
					n++
				}
			}
		}
	}
	if n != 2 {
		t.Errorf("%d repoprep corpus command lines in the workflow, want the shard's and the merge's", n)
	}
}
