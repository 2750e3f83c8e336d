package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/repoprep/repoprep/pipeline"
)

// runVerify is `repoprep verify OUT`: it prints each drift of a published
// snapshot as "path: problem" and exits 1 on any, 0 when the snapshot is
// whole.
func runVerify(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("verify", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, "usage: repoprep verify OUT\n\n"+
			"Checks that every staged file in OUT/tree has the hash and line count\n"+
			"files.json records, that tree/ holds nothing else, and that the index\n"+
			"files parse with their schemas. Exits 1 on any drift.\n")
	}
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if fs.NArg() != 1 {
		fmt.Fprintf(stderr, "repoprep: verify takes one snapshot directory, got %d\n", fs.NArg())
		fs.Usage()
		return exitUsage
	}
	drifts, err := pipeline.Verify(ctx, fs.Arg(0))
	if err != nil {
		fmt.Fprintf(stderr, "repoprep: %v\n", err)
		return exitFailed
	}
	for _, d := range drifts {
		fmt.Fprintln(stdout, d)
	}
	if len(drifts) > 0 {
		fmt.Fprintf(stderr, "repoprep: %s: %d drift(s) from files.json\n", fs.Arg(0), len(drifts))
		return exitFailed
	}
	return exitOK
}
