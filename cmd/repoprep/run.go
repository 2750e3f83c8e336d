package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/term"

	"github.com/repoprep/repoprep/pipeline"
	"github.com/repoprep/repoprep/snapshot"
)

const runAbout = `
Builds a clean, indexed, read-only snapshot of the source tree SRC (default
".") and publishes it atomically to OUT: files.json, REPO_MAP.md,
oversize.json, secrets.json, secrets.sarif, report.json, instructions.json,
search.index, lines.json and tree/. SRC is never written. On a terminal the
run ends with an audit of what was staged, left out and found.
docs/cli.md describes every flag; docs/output.md every file and field.`

// runFlags are run's flags, which corpus shares: one definition, so the
// two commands build snapshots from the same options.
type runFlags struct {
	opts         pipeline.Options
	maxText      sizeFlag
	sf           secretFlags
	progressMode string
	asJSON       bool
	quiet        bool
	failKinds    []string // from sf, once check has run
}

// addRunFlags registers run's flags on fs; out is what --out means for
// the command, outDefault its default in words.
func addRunFlags(fs *flags, rf *runFlags, out, outDefault string) {
	rf.maxText = sizeFlag(2 << 20)
	fs.StringVar(&rf.opts.OutDir, "out", "", out)
	fs.doc("out", "o", "DIR", outDefault)
	fs.IntVar(&rf.opts.Workers, "workers", 0, "size of each stage's worker pool")
	fs.doc("workers", "", "N", "one per CPU")
	fs.Var(&rf.maxText, "max-text-bytes", "text larger than this is staged but flagged oversize (suffixes K, M, G)")
	fs.doc("max-text-bytes", "", "N", "2M")
	fs.IntVar(&rf.opts.PreviewLines, "preview-lines", 100, "lines of preview per oversize file in oversize.json")
	fs.doc("preview-lines", "", "N", "")
	fs.StringVar(&rf.opts.Secrets, "secrets", "redact", "redact masks findings in the staged copy, report only lists them, exclude keeps the file out")
	fs.doc("secrets", "", "MODE", "")
	addSecretFlags(fs, &rf.opts, &rf.sf)
	fs.BoolVar(&rf.opts.NoIgnore, "no-ignore", false, "do not honour .gitignore / .ignore files")
	fs.doc("no-ignore", "", "", "")
	fs.BoolVar(&rf.opts.Full, "full", false, "read every file again, reusing nothing from the previous snapshot at OUT (the snapshot is the same)")
	fs.doc("full", "", "", "")
	fs.StringVar(&rf.opts.RulesFile, "rules", "", "TOML rules merged over the defaults and SRC's .repoprep.toml")
	fs.doc("rules", "", "FILE", "")
	fs.StringVar(&rf.progressMode, "progress", "auto", "auto (a bar only when stderr is a terminal), always or never")
	fs.doc("progress", "", "MODE", "")
	fs.BoolVar(&rf.asJSON, "json", false, "print report.json's summary on stdout instead of the audit")
	fs.doc("json", "", "", "")
	fs.BoolVar(&rf.quiet, "quiet", false, "no progress and no audit; only errors on stderr")
	fs.doc("quiet", "q", "", "")
}

// check validates what addRunFlags parsed and fills the options the flags
// do not give (key, version, logger); ok false means exit with code.
func (rf *runFlags) check(fs *flags, stderr io.Writer) (code int, ok bool) {
	if rf.opts.Workers < 0 || rf.opts.PreviewLines < 0 {
		fs.usageError(stderr, "--workers and --preview-lines take a positive number (0 means the default)")
		return exitUsage, false
	}
	switch rf.progressMode {
	case "auto", "always", "never":
	default:
		fs.usageError(stderr, fmt.Sprintf("--progress %q: want auto, always or never", rf.progressMode))
		return exitUsage, false
	}
	var err error
	if rf.failKinds, err = rf.sf.failKinds(); err != nil {
		fs.usageError(stderr, err.Error())
		return exitUsage, false
	}
	if rf.opts.FingerprintKey, err = fingerprintKey(); err != nil {
		fmt.Fprintf(stderr, "repoprep: %v\n", err)
		return exitFailed, false
	}
	rf.opts.MaxTextBytes = int64(rf.maxText)
	rf.opts.Version = currentBuild().Version
	// -q promises only errors on stderr: the warnings (atime not kept, a
	// document the time guard refused, a misdeclared charset) are in
	// report.json and files.json all the same.
	level := slog.LevelWarn
	if rf.quiet {
		level = slog.LevelError
	}
	rf.opts.Logger = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	return 0, true
}

// showProgress reports whether a bar goes to stderr.
func (rf *runFlags) showProgress(stderr io.Writer) bool {
	return !rf.quiet && (rf.progressMode == "always" || rf.progressMode == "auto" && isTerminal(stderr))
}

// runRun is `repoprep run [flags] [SRC]`.
func runRun(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("run", "[flags] [SRC]", runAbout, runExits)
	var rf runFlags
	addRunFlags(fs, &rf, "where the snapshot is published (one per source tree by default), printed at the end; never scanned when inside SRC", "$XDG_CACHE_HOME/repoprep/<name>-<hash>")
	if code, ok := fs.parse(args, stdout, stderr); !ok {
		return code
	}
	opts, asJSON, quiet := &rf.opts, rf.asJSON, rf.quiet
	if opts.OutDir == "-" {
		fs.usageError(stderr, "-o -: a snapshot is a directory tree and cannot go to stdout; give a directory, or use --json for the summary on stdout")
		return exitUsage
	}
	switch fs.NArg() {
	case 0:
		opts.Root = "."
	case 1:
		opts.Root = fs.Arg(0)
	default:
		fs.usageError(stderr, fmt.Sprintf("one source directory, got %d: %s", fs.NArg(), strings.Join(fs.Args(), " ")))
		return exitUsage
	}
	if code, ok := rf.check(fs, stderr); !ok {
		return code
	}
	failKinds := rf.failKinds
	if os.Getenv("GOMEMLIMIT") == "" { // the user's own limit wins
		opts.MemoryLimit = runMemoryLimit
		if os.Getenv("GOGC") == "" { // and their own GC percent
			opts.GCPercent = runGCPercent
		}
	}
	if rf.showProgress(stderr) {
		opts.Progress = newProgress(stderr)
	}

	res, err := pipeline.Run(ctx, *opts)
	if err != nil {
		fmt.Fprintf(stderr, "repoprep: %v\n", err)
		if errors.Is(err, pipeline.ErrBadOptions) {
			return exitUsage
		}
		if errors.Is(err, snapshot.ErrLocked) {
			return exitBusy
		}
		return exitFailed
	}
	switch {
	case asJSON:
		if err := snapshot.EncodeJSON(stdout, res.Report); err != nil {
			fmt.Fprintf(stderr, "repoprep: %v\n", err)
			return exitFailed
		}
	case !quiet && res.Report.Audit != nil:
		color := isTerminal(stdout) && os.Getenv("NO_COLOR") == ""
		res.Report.Audit.Render(stdout, color)
		fmt.Fprintf(stdout, "published %s\n", res.Report.Out)
	}
	if n := failing(res.Findings, failKinds); n > 0 {
		fmt.Fprintf(stderr, "repoprep: %d secrets found (%s); see %s/secrets.json\n", n, strings.Join(slices.Compact(failKinds), ", "), res.Report.Out)
		return exitSecrets
	}
	return exitOK
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// sizeFlag is a byte count that takes K, M and G suffixes (powers of 1024).
type sizeFlag int64

func (s *sizeFlag) String() string { return strconv.FormatInt(int64(*s), 10) }

func (s *sizeFlag) Set(v string) error {
	mult := int64(1)
	switch {
	case strings.HasSuffix(v, "K"), strings.HasSuffix(v, "k"):
		mult, v = 1<<10, v[:len(v)-1]
	case strings.HasSuffix(v, "M"), strings.HasSuffix(v, "m"):
		mult, v = 1<<20, v[:len(v)-1]
	case strings.HasSuffix(v, "G"), strings.HasSuffix(v, "g"):
		mult, v = 1<<30, v[:len(v)-1]
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n <= 0 || n > math.MaxInt64/mult {
		return fmt.Errorf("want a positive byte count such as 2097152 or 2M")
	}
	*s = sizeFlag(n * mult)
	return nil
}

// runMemoryLimit is the base of the soft memory limit a run sets (see
// pipeline.Options.MemoryLimit): the Go runtime otherwise lets the heap
// grow to twice what is live before collecting, and most of what is live
// is fixed tables (the tokenizer's codec, go-enry's, the rules), so a run
// over GOROOT/src peaked near 240 MB where 190 MB does the same work.
const runMemoryLimit = 120 << 20

// runGCPercent is the GC percent a run sets under that limit (see
// pipeline.Options.GCPercent): an unchanged refresh of GOROOT/src took
// 0.50-0.55 s at 400 where it took 0.58-0.60 s at 100, and the limit keeps
// a full run's peak where it was.
const runGCPercent = 400
