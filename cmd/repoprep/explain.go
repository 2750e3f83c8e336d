package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/repoprep/repoprep/pipeline"
	"github.com/repoprep/repoprep/snapshot"
)

// runExplain is `repoprep explain [--src DIR] [--rules FILE] PATH...`: it
// says which rule decided each path's category and reason. Exit 1 when a
// path is not in the tree.
func runExplain(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("explain", "[flags] PATH...", `
Says what repoprep run would make of each PATH (relative to --src, as
files.json writes it, or absolute inside it) and which rule decided: a
pruned directory above it, a vendoring directory, a junk name, the content
type, the language, the decoder's refusal... The file goes through the
run's per-file steps (decode or extract, the secret rules) into a scratch
directory, so what explain says is staged, in which encoding, is what the
run stages; duplicates need the whole tree and are not shown. SRC's
.repoprep.toml and --rules apply as in a run.`,
		[]exitDoc{{exitOK, "every path explained"}, {exitFailed, "a path is not in the tree"}, {exitUsage, "usage error, a path outside --src, or a bad rules file"}})
	var (
		opts   pipeline.ExplainOptions
		asJSON bool
	)
	fs.StringVar(&opts.Root, "src", ".", "the source tree the paths are in")
	fs.doc("src", "", "DIR", "")
	fs.StringVar(&opts.RulesFile, "rules", "", "TOML rules, as for run")
	fs.doc("rules", "", "FILE", "")
	fs.BoolVar(&opts.NoIgnore, "no-ignore", false, "do not honour .gitignore / .ignore files, as for run")
	fs.doc("no-ignore", "", "", "")
	fs.BoolVar(&asJSON, "json", false, "print the explanations as JSON")
	fs.doc("json", "", "", "")
	if code, ok := fs.parse(args, stdout, stderr); !ok {
		return code
	}
	if fs.NArg() == 0 {
		fs.usageError(stderr, "at least one path")
		return exitUsage
	}
	xs, err := pipeline.Explain(ctx, opts, fs.Args())
	if err != nil {
		fmt.Fprintf(stderr, "repoprep: %v\n", err)
		if errors.Is(err, pipeline.ErrBadOptions) {
			return exitUsage
		}
		return exitFailed
	}
	code := exitOK
	for _, x := range xs {
		if !x.Found {
			fmt.Fprintf(stderr, "repoprep: %s: not found in %s\n", x.Path, opts.Root)
			code = exitFailed
		}
	}
	if asJSON {
		if err := snapshot.EncodeJSON(stdout, xs); err != nil {
			fmt.Fprintf(stderr, "repoprep: %v\n", err)
			return exitFailed
		}
		return code
	}
	for i, x := range xs {
		if !x.Found {
			continue
		}
		if i > 0 {
			fmt.Fprintln(stdout)
		}
		writeExplanation(stdout, x)
	}
	return code
}

func writeExplanation(w io.Writer, x pipeline.Explanation) {
	fmt.Fprintln(w, x.Path)
	row := func(name, value string) {
		if value != "" {
			fmt.Fprintf(w, "  %-10s %s\n", name+":", value)
		}
	}
	if x.PrunedDir != "" {
		row("left out", "not walked: "+x.PrunedDir+"/ is pruned ("+x.PrunedReason+")")
		row("rule", x.PrunedRule)
	} else {
		cat := x.Category
		if x.Reason != "" {
			cat += "/" + x.Reason
		}
		row("category", cat)
		row("language", x.Language)
		row("content", x.Mime)
		decided := x.Rule
		if x.Detail != "" {
			decided += ": " + x.Detail
		}
		row("decided", decided)
		test := "no"
		if x.Test {
			test = "yes, " + x.TestRule
		}
		row("test", test)
		row("text", explainedText(x))
	}
	files := "defaults"
	if len(x.RulesFiles) > 0 {
		files += ", then " + strings.Join(x.RulesFiles, ", then ")
	}
	row("rules", files)
}

// explainedText is what the per-file steps made of the file's text:
// staged (in which encoding, how much) or not.
func explainedText(x pipeline.Explanation) string {
	if !x.Staged {
		return "not staged"
	}
	s := fmt.Sprintf("staged, %s, %d lines, %d tokens", x.Encoding, x.Lines, x.Tokens)
	if x.Mojibake {
		s += ", flagged mojibake"
	}
	if x.Truncated != "" {
		s += ", cut short: " + x.Truncated
	}
	if x.Secrets > 0 {
		s += fmt.Sprintf(", %d secrets masked", x.Secrets)
	}
	return s
}
