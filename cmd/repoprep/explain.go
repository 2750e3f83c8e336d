package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/repoprep/repoprep/internal/manifest"
	"github.com/repoprep/repoprep/pipeline"
)

// runExplain is `repoprep explain [--src DIR] [--rules FILE] PATH...`: it
// says which rule decided each path's category and reason. Exit 1 when a
// path is not in the tree.
func runExplain(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("explain", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		opts   pipeline.ExplainOptions
		asJSON bool
	)
	fs.StringVar(&opts.Root, "src", ".", "`DIR` the source tree the paths are in")
	fs.StringVar(&opts.RulesFile, "rules", "", "TOML `FILE` of extra rules, as for run")
	fs.BoolVar(&opts.NoIgnore, "no-ignore", false, "do not honour .gitignore / .ignore files, as for run")
	fs.BoolVar(&asJSON, "json", false, "print the explanations as JSON")
	fs.Usage = func() {
		fmt.Fprint(stderr, "usage: repoprep explain [--src DIR] [--rules FILE] [--no-ignore] [--json] PATH...\n\n"+
			"Says what `repoprep run` would make of each PATH (relative to --src, as\n"+
			"files.json writes it) and which rule decided: a pruned directory above it,\n"+
			"a vendoring directory, a junk name, the content type, the language...\n"+
			"The repository's .repoprep.toml and --rules are applied as in a run.\n\n")
		fs.PrintDefaults()
	}
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(stderr, "repoprep: explain takes at least one path")
		fs.Usage()
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
		if err := manifest.EncodeJSON(stdout, xs); err != nil {
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
	}
	files := "defaults"
	if len(x.RulesFiles) > 0 {
		files += ", then " + strings.Join(x.RulesFiles, ", then ")
	}
	row("rules", files)
}
