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
	"github.com/repoprep/repoprep/snapshot"
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

	// What the run's per-file steps (decode or extract, the secret rules)
	// make of the file, run on it into a scratch directory: whether its
	// text is staged, in which encoding, or why it is refused. Duplicates
	// and the cross-file secret pass need the whole tree and are not here.
	Staged    bool   `json:"staged"`
	Encoding  string `json:"encoding,omitempty"`
	Mojibake  bool   `json:"mojibake,omitempty"`
	Truncated string `json:"truncated,omitempty"`
	Lines     int    `json:"lines,omitempty"`
	Tokens    int    `json:"tokens,omitempty"`
	Secrets   int    `json:"secrets,omitempty"`
	// EncodingPrior: the file's own evidence for its charset was weak (or
	// its single-byte charset is one the repository's may contest), so the
	// run decides it with the charset the repository's other files were
	// decided in (docs/encoding.md, "The repository prior"), and so does
	// explain: that charset, "" when the file was decided alone.
	EncodingPrior string `json:"encoding_prior,omitempty"`

	RulesFiles []string `json:"rules_files"` // merged over the defaults, in order
}

// Explain runs the scan along each path's way down and the per-file steps
// of a run (classify, triage, decode or extract, the secret rules) on the
// file itself, with the same rules a run would use, and says which rule
// decided, including a refusal by the decoder. It reads only the
// directories on the way and the files named; SRC is never written, and
// the staged copies go to a scratch directory removed before it returns.
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
		Root: src, RootPath: root, Rules: rs, NoIgnore: opts.NoIgnore, Workers: 1,
		Only: func(rel string) bool { return wanted[rel] },
	})
	if err != nil {
		return nil, err
	}
	scratch, err := os.MkdirTemp("", "repoprep-explain-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(scratch)
	tree := filepath.Join(scratch, snapshot.TreeDir)
	if err := os.Mkdir(tree, 0o700); err != nil {
		return nil, err
	}
	secretOpts, scanner, err := newSecretOptions(Options{}, rs)
	if err != nil {
		return nil, err
	}
	if secretOpts.Scanner, err = scanner(); err != nil {
		return nil, err
	}
	env := &stages.Env{Src: src, TreeDir: tree, Rules: rs,
		MaxTextBytes: defaultMaxTextBytes, SecretScanner: secretOpts.Scanner}
	defer env.Close()
	out := make([]Explanation, len(rels))
	var priors *stages.EncodingPriors // found on first need: a scan of the tree and a decoding of its texts
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
			if err := explainFile(ctx, env, rec, x); err != nil {
				return nil, err
			}
			if !rec.Memo.Enc.Weak && rec.Memo.Enc.Strong == "" {
				continue // decided alone, whatever the repository's other files say
			}
			if priors == nil {
				p, err := findPriors(ctx, env, src, root, rs, opts.NoIgnore)
				if err != nil {
					return nil, err
				}
				priors = &p
			}
			if prior := priors.For(rec.Path); rec.NeedsRedecide(prior) {
				// As the run's pass after its loop (redecideWeak).
				env.Redecide(rec, prior)
				if err := explainFile(ctx, env, rec, x); err != nil {
					return nil, err
				}
				x.EncodingPrior = prior
			}
		}
	}
	return out, nil
}

// findPriors finds the repository priors a run would (redecideWeak): it
// scans the whole tree as a run does and decodes every text into nothing
// (stages.Env.DecideEncoding), so its cost is a run's scan and reads
// without the token counts, the writes and the secret rules.
func findPriors(ctx context.Context, env *stages.Env, src *dirfd.Tree, root string, rs *rules.Set, noIgnore bool) (stages.EncodingPriors, error) {
	recs, _, err := stages.Scan(ctx, stages.ScanOptions{Root: src, RootPath: root, Rules: rs, NoIgnore: noIgnore, Workers: 1})
	if err != nil {
		return stages.EncodingPriors{}, err
	}
	for _, rec := range recs {
		if rec.Skip() {
			continue
		}
		if err := env.DecideEncoding(ctx, rec); err != nil {
			return stages.EncodingPriors{}, err
		}
	}
	return stages.FindEncodingPriors(recs), nil
}

// explainFile fills x from classify and triage on rec, then from the rest
// of the per-file loop: a refusal there (a text no charset reads, a
// document that cannot be extracted) overrides triage's verdict, and is
// named as the rule that decided.
func explainFile(ctx context.Context, env *stages.Env, rec *stages.Record, x *Explanation) error {
	sniffed := *rec // classify and triage alone, on a copy: Process starts from the scan's record
	if err := env.Sniff(ctx, &sniffed); err != nil {
		return err
	}
	why, testWhy := sniffed.Why(), sniffed.TestWhy()
	x.Rule, x.Detail, x.Test, x.TestRule = why.Rule, why.Detail, sniffed.Test, testWhy.Rule
	if testWhy.Detail != "" {
		x.TestRule += ": " + testWhy.Detail
	}
	if err := env.Process(ctx, rec, &stages.Worker{}, &stages.Clock{}); err != nil {
		return err
	}
	category, reason := sniffed.Category, sniffed.Reason
	x.Category, x.Reason, x.Language, x.Mime = rec.Category, rec.Reason, rec.Language, rec.Mime
	x.Staged, x.Encoding, x.Mojibake, x.Truncated = rec.Staged, rec.Encoding, rec.Mojibake, rec.Truncated
	x.Lines, x.Tokens, x.Secrets = rec.Lines, rec.Tokens, rec.Secrets
	switch {
	case rec.Err != "":
		x.Detail = rec.Err
	case rec.Category != category || rec.Reason != reason:
		said := category
		if reason != "" {
			said += "/" + reason
		}
		by := why.Rule
		if why.Detail != "" {
			by += ": " + why.Detail
		}
		x.Rule, x.Detail = refusalRule(rec.Category, rec.Reason), "triage said "+said+" ("+by+")"
	}
	if x.Mojibake {
		x.Rule, x.Detail = "decode", "valid UTF-8 that looks double-encoded: staged as written, flagged mojibake"
	}
	return nil
}

// refusalRule names the step that overrode triage: the decoder's refusals
// (docs/encoding.md) and the extractor's.
func refusalRule(category, reason string) string {
	switch reason {
	case "undecodable":
		return "decode: no charset reads it as text without garbling"
	case "mojibake":
		return "decode: every reading is garbled (double-encoded text)"
	case "invalid-utf8":
		return "decode: UTF-8 with invalid bytes"
	case "binary":
		return "decode: binary content"
	}
	if category == "junk" || category == "document" {
		return "extract or decode: " + reason
	}
	return "per-file steps"
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
