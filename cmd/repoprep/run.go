package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/term"

	"github.com/repoprep/repoprep/internal/manifest"
	"github.com/repoprep/repoprep/pipeline"
)

// runRun is `repoprep run [flags] [SRC]`.
func runRun(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		opts         pipeline.Options
		maxText      = sizeFlag(2 << 20)
		sf           secretFlags
		progressMode string
		asJSON       bool
		quiet        bool
	)
	fs.StringVar(&opts.OutDir, "out", "", "`DIR` the snapshot is published to (default: $XDG_CACHE_HOME/repoprep/<name>-<hash>, printed at the end)")
	fs.StringVar(&opts.OutDir, "o", "", "shorthand for --out")
	fs.IntVar(&opts.Workers, "workers", 0, "size of each stage's worker pool (default: number of CPUs)")
	fs.Var(&maxText, "max-text-bytes", "text files larger than `N` bytes are oversize (suffixes K, M, G; default 2M)")
	fs.IntVar(&opts.PreviewLines, "preview-lines", 100, "lines of preview per oversize file")
	fs.StringVar(&opts.Secrets, "secrets", "redact", "`MODE`: redact, report or exclude")
	addSecretFlags(fs, &opts, &sf)
	fs.BoolVar(&opts.NoIgnore, "no-ignore", false, "do not honour .gitignore / .ignore files")
	fs.BoolVar(&opts.Full, "full", false, "read every file again, reusing nothing from the previous snapshot at OUT (the snapshot is the same)")
	fs.StringVar(&opts.RulesFile, "rules", "", "TOML `FILE` of extra rules merged over the defaults")
	fs.StringVar(&progressMode, "progress", "auto", "`MODE`: auto (bar only on a terminal), always, never")
	fs.BoolVar(&asJSON, "json", false, "print the run summary as JSON on stdout")
	fs.BoolVar(&quiet, "quiet", false, "no progress, only errors on stderr")
	fs.BoolVar(&quiet, "q", false, "shorthand for --quiet")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	switch fs.NArg() {
	case 0:
		opts.Root = "."
	case 1:
		opts.Root = fs.Arg(0)
	default:
		fmt.Fprintf(stderr, "repoprep: run takes one source directory, got %d: %s\n", fs.NArg(), strings.Join(fs.Args(), " "))
		return exitUsage
	}
	if opts.Workers < 0 || opts.PreviewLines < 0 {
		fmt.Fprintf(stderr, "repoprep: --workers and --preview-lines take a positive number (0 means the default)\n")
		return exitUsage
	}
	switch progressMode {
	case "auto", "always", "never":
	default:
		fmt.Fprintf(stderr, "repoprep: --progress %q: want auto, always or never\n", progressMode)
		return exitUsage
	}
	failKinds, err := sf.failKinds()
	if err != nil {
		fmt.Fprintf(stderr, "repoprep: %v\n", err)
		return exitUsage
	}
	if opts.FingerprintKey, err = fingerprintKey(); err != nil {
		fmt.Fprintf(stderr, "repoprep: %v\n", err)
		return exitFailed
	}
	opts.MaxTextBytes = int64(maxText)
	opts.Version = currentBuild().Version
	opts.Logger = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	if !quiet && (progressMode == "always" || progressMode == "auto" && isTerminal(stderr)) {
		opts.Progress = newProgress(stderr)
	}

	res, err := pipeline.Run(ctx, opts)
	if err != nil {
		fmt.Fprintf(stderr, "repoprep: %v\n", err)
		if errors.Is(err, pipeline.ErrBadOptions) {
			return exitUsage
		}
		if errors.Is(err, pipeline.ErrLocked) {
			return exitBusy
		}
		return exitFailed
	}
	switch {
	case asJSON:
		if err := manifest.EncodeJSON(stdout, res.Report); err != nil {
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
