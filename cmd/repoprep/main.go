// Command repoprep prepares a repository for an LLM: `repoprep run` builds a
// clean, indexed, read-only snapshot; `repoprep serve` hands it to agents.
// This package only parses flags and wires the library packages together.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/pprof"
	"syscall"
)

// Exit codes, as SPEC.md fixes them, and exitBusy.
const (
	exitOK      = 0
	exitFailed  = 1
	exitUsage   = 2
	exitSecrets = 3
	// exitBusy: another run holds OUT's lock (a SPEC.md addition, which
	// says 1), so a scheduler can tell "a refresh is still running" from
	// a failure. 75 is sysexits.h's EX_TEMPFAIL, "try again later".
	exitBusy = 75
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	// REPOPREP_CPUPROFILE=FILE writes a CPU profile of the whole command,
	// for finding where a slow run spends its time.
	if name := os.Getenv("REPOPREP_CPUPROFILE"); name != "" {
		if f, err := os.Create(name); err == nil {
			pprof.StartCPUProfile(f)
			defer f.Close()
		}
	}
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	pprof.StopCPUProfile()
	stop()
	os.Exit(code)
}

const usage = `usage: repoprep <command> [flags] [args]

commands:
  run [flags] [SRC]           build and publish a snapshot of SRC (default ".")
  serve [flags] OUT           serve a snapshot over MCP (stdio or --http) and JSON
  read OUT PATH[:START-END]   print one read_file answer
  verify OUT                  check that a published snapshot is whole
  explain [--src DIR] PATH... which rule decides each path's category and reason
  baseline [-o FILE] OUT      write OUT's secret fingerprints as a baseline for run --baseline
  rules [--rules FILE]        print the effective secret rules as TOML
  version                     print the version

Run 'repoprep <command> -h' for a command's flags.
`

// run dispatches one command line and returns the process exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	switch args[0] {
	case "run":
		return runRun(ctx, args[1:], stdout, stderr)
	case "serve":
		return runServe(ctx, args[1:], stdout, stderr)
	case "read":
		return runRead(ctx, args[1:], stdout, stderr)
	case "verify":
		return runVerify(ctx, args[1:], stdout, stderr)
	case "explain":
		return runExplain(ctx, args[1:], stdout, stderr)
	case "baseline":
		return runBaseline(args[1:], stdout, stderr)
	case "rules":
		return runRules(args[1:], stdout, stderr)
	case "version", "--version", "-version":
		fmt.Fprintln(stdout, currentBuild())
		return exitOK
	case "help", "-h", "--help", "-help":
		fmt.Fprint(stdout, usage)
		return exitOK
	default:
		fmt.Fprintf(stderr, "repoprep: unknown command %q\n\n%s", args[0], usage)
		return exitUsage
	}
}

// parseFlags runs parseArgs for a command: ok is false when the command
// must stop at once with code (0 after -h, 2 on a bad flag, which the flag
// package has already reported on stderr).
func parseFlags(fs *flag.FlagSet, args []string) (code int, ok bool) {
	switch err := parseArgs(fs, args); {
	case err == nil:
		return 0, true
	case errors.Is(err, flag.ErrHelp):
		return exitOK, false
	default:
		return exitUsage, false
	}
}

// parseArgs parses flags wherever they stand among the positional
// arguments, so `repoprep run SRC -o OUT` works as well as
// `repoprep run -o OUT SRC` (the standard flag package stops at the first
// positional). "--" still ends the flags. Afterwards fs.Args() holds the
// positionals in order.
func parseArgs(fs *flag.FlagSet, args []string) error {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			break
		}
		if i := len(args) - len(rest) - 1; i >= 0 && args[i] == "--" {
			positional = append(positional, rest...)
			break
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
	return fs.Parse(append([]string{"--"}, positional...))
}
