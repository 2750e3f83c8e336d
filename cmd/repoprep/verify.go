package main

import (
	"context"
	"fmt"
	"io"

	"github.com/repoprep/repoprep/snapshot"
)

// runVerify is `repoprep verify OUT`: it prints each drift of a published
// snapshot as "path: problem" and exits 1 on any, or says "snapshot OK"
// and exits 0 when the snapshot is whole.
func runVerify(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("verify", "OUT", `
Checks that a published snapshot is whole: every staged file in OUT/tree has
the hash, line and token counts files.json records, tree/ holds nothing
else, and every index file parses with its schema and agrees with
files.json. Prints each drift as "path: problem".`,
		[]exitDoc{{exitOK, "the snapshot is whole"}, {exitFailed, "drift found, or OUT is not a snapshot"}, {exitUsage, "usage error"}})
	if code, ok := fs.parse(args, stdout, stderr); !ok {
		return code
	}
	out, ok := fs.snapshotArg(stderr)
	if !ok {
		return exitUsage
	}
	drifts, err := snapshot.Verify(ctx, out)
	if err != nil {
		fmt.Fprintf(stderr, "repoprep: %v\n", err)
		return exitFailed
	}
	for _, d := range drifts {
		fmt.Fprintln(stdout, d)
	}
	if len(drifts) > 0 {
		fmt.Fprintf(stderr, "repoprep: %s: %d drift(s) from files.json\n", out, len(drifts))
		return exitFailed
	}
	// Whole, so files.json parses; count what was checked.
	m, err := snapshot.ReadManifest(out)
	if err != nil {
		fmt.Fprintf(stderr, "repoprep: %v\n", err)
		return exitFailed
	}
	staged := 0
	for _, e := range m.Files {
		if e.Staged {
			staged++
		}
	}
	fmt.Fprintf(stdout, "%s: snapshot OK (%d files, %d staged)\n", out, len(m.Files), staged)
	return exitOK
}
