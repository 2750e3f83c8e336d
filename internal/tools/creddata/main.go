// Command creddata scores repoprep's secret detection on Samsung's CredData
// benchmark, line by line, beside gitleaks when its report is given.
//
// CredData labels lines of real repositories' files: GroundTruth T (a
// credential), F or X (not one). A True line with at least one credential
// finding on it is found; a finding on a line no True label covers is false.
// Lines are counted once per file:line whatever the number of findings.
// Rows whose Category is UUID count neither way. A multi-line True label
// (a PEM key, LineStart..LineEnd) is one positive, found when a finding
// starts on any of its lines; every line of it is a true line. Personal-data
// findings (kind pii) and findings in file names are left out.
//
//	creddata -meta CREDDATA/meta -data CREDDATA/data -secrets OUT/secrets.json \
//	    [-files OUT/files.json] [-gitleaks gitleaks.json]
//
// repoprep masks every copy of a value it found anywhere in one run, so a
// run over all of data/ carries one repository's password into the others;
// -secrets 'OUTS/*/secrets.json' reads runs made one per repository
// (OUTS/<repo id>/), which is how repoprep is used.
//
// make bench-creddata REPOPREP_CREDDATA=DIR [REPOPREP_GITLEAKS=BIN] runs
// repoprep (and gitleaks) and then this. DIR holds CredData's meta/ and
// data/: clone Samsung/CredData on a Linux machine with internet, install
// its requirements.txt and run its `python download_data.py --data_dir data`,
// which clones each labelled repository at its labelled commit, copies the
// labelled files and replaces every True value with a random one of the same
// shape. Keep DIR outside this repository. Labelled files absent from data/
// (a repository that could not be cloned) are left out and listed.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// options are the command's flags.
type options struct {
	metaDir      string
	dataDir      string
	secretsFile  string
	filesFile    string
	gitleaksFile string
	examples     int
	topMissed    int
}

// run is the command with its arguments and streams, so tests can call it; it
// returns the exit code: 0, 1 when a file cannot be read, 2 on bad usage.
func run(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("creddata", flag.ContinueOnError)
	fl.SetOutput(stderr)
	var o options
	fl.StringVar(&o.metaDir, "meta", "", "CredData's meta directory (one CSV per repository)")
	fl.StringVar(&o.dataDir, "data", "", "CredData's data directory: rows of files absent from it are left out, and examples quote the lines")
	fl.StringVar(&o.secretsFile, "secrets", "", "repoprep's secrets.json from a run over the data directory, or a glob of one per repository (OUTS/*/secrets.json, each OUT named after the repository id)")
	fl.StringVar(&o.filesFile, "files", "", "repoprep's files.json from the same run(s), likewise: says which missed lines were in files it did not scan")
	fl.StringVar(&o.gitleaksFile, "gitleaks", "", "a gitleaks JSON report over the same files (optional)")
	fl.IntVar(&o.examples, "examples", 10, "example lines per false-positive rule")
	fl.IntVar(&o.topMissed, "missed", 30, "missed categories to list")
	if err := fl.Parse(args); err != nil {
		return 2
	}
	if o.metaDir == "" || o.secretsFile == "" || fl.NArg() > 0 {
		fmt.Fprintln(stderr, "usage: creddata -meta DIR -secrets FILE [-data DIR] [-files FILE] [-gitleaks FILE]")
		return 2
	}
	if err := scoreAll(o, stdout); err != nil {
		fmt.Fprintf(stderr, "creddata: %v\n", err)
		return 1
	}
	return 0
}

// scoreAll reads everything, scores each tool and prints the report.
func scoreAll(o options, w io.Writer) error {
	var exists func(string) bool
	if o.dataDir != "" {
		if _, err := os.Stat(o.dataDir); err != nil {
			return err
		}
		exists = onDisk(o.dataDir)
	}
	l, err := readMeta(o.metaDir, exists)
	if err != nil {
		return err
	}
	rf, dropped, err := readRepoprep(o.secretsFile, l.repos)
	if err != nil {
		return err
	}
	tools := []*toolScore{score("repoprep", l, rf)}
	if o.gitleaksFile != "" {
		gf, err := readGitleaks(o.gitleaksFile, l.repos)
		if err != nil {
			return err
		}
		tools = append(tools, score("gitleaks", l, gf))
	}
	var st *scanState
	if o.filesFile != "" {
		if st, err = readFilesJSON(o.filesFile, l.repos); err != nil {
			return err
		}
	}
	rep := &report{w: w, l: l, tools: tools, scan: st, text: newTexts(o.dataDir),
		droppedRepoprep: dropped, examples: o.examples, topMissed: o.topMissed}
	rep.print()
	return rep.err
}
