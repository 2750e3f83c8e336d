package pipeline

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/repoprep/repoprep/internal/dirfd"
	"github.com/repoprep/repoprep/rules"
	"github.com/repoprep/repoprep/stages"
)

// ExplainOptions configures Explain; the fields mean what they mean for Run.
type ExplainOptions struct {
	Root      string // the source tree; "" means "."
	RulesFile string // --rules, merged after the repository's .repoprep.toml
	NoIgnore  bool
}

// Explanation says what a run would do with one path and which rule
// decided it, so a user can see why a file was left out and what to write
// in a rules file to change it.
type Explanation struct {
	Path  string `json:"path"`
	Found bool   `json:"found"` // the path names a file in the tree (or one below a pruned directory)

	// Set when a directory above the path (or the path itself) is not walked.
	PrunedDir    string `json:"pruned_dir,omitempty"`
	PrunedReason string `json:"pruned_reason,omitempty"`
	PrunedRule   string `json:"pruned_rule,omitempty"`

	Category string `json:"category,omitempty"`
	Reason   string `json:"reason,omitempty"`
	Language string `json:"language,omitempty"`
	Mime     string `json:"mime,omitempty"`
	Rule     string `json:"rule,omitempty"`   // the step that decided category and reason
	Detail   string `json:"detail,omitempty"` // the pattern, directory or language that matched
	Test     bool   `json:"test"`
	TestRule string `json:"test_rule,omitempty"`

	RulesFiles []string `json:"rules_files"` // merged over the defaults, in order
}

// Explain runs the scan along each path's way down and classify and
// triage on the file itself, with the same rules a run would use, and says
// which rule decided. It reads only the directories on the way and the
// files named; SRC is never written.
func Explain(ctx context.Context, opts ExplainOptions, paths []string) ([]Explanation, error) {
	if opts.Root == "" {
		opts.Root = "."
	}
	root, err := filepath.Abs(opts.Root)
	if err != nil {
		return nil, err
	}
	rs, err := LoadRules(root, opts.RulesFile)
	if err != nil {
		return nil, badOptions(err)
	}
	var files []string
	if _, err := os.Stat(filepath.Join(root, rules.RepoConfig)); err == nil {
		files = append(files, rules.RepoConfig)
	}
	if opts.RulesFile != "" {
		files = append(files, opts.RulesFile)
	}
	rels := make([]string, len(paths))
	wanted := map[string]bool{} // OS paths to walk: each target and its ancestors
	for i, p := range paths {
		rel, err := relPath(root, p)
		if err != nil {
			return nil, badOptions(err)
		}
		rels[i] = rel
		for d := rel; d != "." && d != ""; d = filepath.Dir(d) {
			wanted[d] = true
		}
	}
	src, err := dirfd.Open(root, dirfd.Options{})
	if err != nil {
		return nil, err
	}
	defer src.Close()
	recs, pruned, err := stages.Scan(ctx, stages.ScanOptions{
		Root: src, Rules: rs, NoIgnore: opts.NoIgnore, Workers: 1,
		Only: func(rel string) bool { return wanted[rel] },
	})
	if err != nil {
		return nil, err
	}
	env := &stages.Env{Src: src, Rules: rs}
	out := make([]Explanation, len(rels))
	for i, rel := range rels {
		x := &out[i]
		x.Path, x.RulesFiles = filepath.ToSlash(rel), files
		for _, p := range pruned {
			if x.Path == p.Path || p.Path == "." || strings.HasPrefix(x.Path, p.Path+"/") {
				x.Found = true
				x.PrunedDir, x.PrunedReason, x.PrunedRule = p.Path, p.Reason, prunedRule(rs, p)
			}
		}
		for _, rec := range recs {
			if rec.Src() != rel {
				continue
			}
			x.Found = true
			if err := env.Sniff(ctx, rec); err != nil {
				return nil, err
			}
			why, testWhy := rec.Why(), rec.TestWhy()
			x.Category, x.Reason, x.Language, x.Mime = rec.Category, rec.Reason, rec.Language, rec.Mime
			x.Rule, x.Detail, x.Test, x.TestRule = why.Rule, why.Detail, rec.Test, testWhy.Rule
			if testWhy.Detail != "" {
				x.TestRule += ": " + testWhy.Detail
			}
			if rec.Err != "" {
				x.Detail = rec.Err
			}
		}
	}
	return out, nil
}

// relPath turns a path given on the command line (relative to SRC, or
// absolute inside it) into a clean OS path relative to SRC.
func relPath(root, p string) (string, error) {
	if filepath.IsAbs(p) {
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return "", err
		}
		p = rel
	}
	p = filepath.Clean(p)
	if p == "." || !filepath.IsLocal(p) {
		return "", fmt.Errorf("%s: want a path inside %s", p, root)
	}
	return p, nil
}

// prunedRule names the rule behind a pruned directory.
func prunedRule(rs *rules.Set, p stages.Pruned) string {
	name := path.Base(p.Path)
	switch p.Reason {
	case stages.ReasonExcludedByRule:
		pat, _ := rs.Paths.Exclude.Match(p.Path, true)
		return "exclude pattern " + pat
	case "excluded-dir":
		if rs.ExcludeDirs[name] {
			return "exclude_dirs: " + name + " (rules/defaults/exclude_dirs.txt or a rules file); take it back with include = [\"" + p.Path + "/\"]"
		}
		return "output_dirs: " + name + " beside a build manifest (rules/defaults/output_dirs.txt); take it back with include = [\"" + p.Path + "/\"]"
	case "ignored":
		return "a .gitignore, .ignore or .git/info/exclude pattern (git check-ignore -v names it); --no-ignore or include = [\"" + p.Path + "/\"] takes it back"
	case "unreadable":
		return "the directory could not be read"
	}
	return ""
}
