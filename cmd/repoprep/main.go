// Command repoprep prepares a repository for an LLM: `repoprep run` builds a
// clean, indexed, read-only snapshot; `repoprep serve` hands it to agents.
// This package only parses flags and wires the library packages together.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/pprof"
	"strings"
	"syscall"
	"text/tabwriter"

	"github.com/repoprep/repoprep/internal/cachedir"

	"github.com/repoprep/repoprep/internal/tokens"
	"github.com/repoprep/repoprep/pipeline"
)

// Exit codes, as docs/cli.md lists them.
const (
	exitOK      = 0
	exitFailed  = 1
	exitUsage   = 2
	exitSecrets = 3
	// exitBusy: another run holds OUT's lock, so a scheduler can tell
	// "a refresh is still running" from a failure. 75 is sysexits.h's
	// EX_TEMPFAIL, "try again later".
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
	tokens.UseCache(tokensCacheDir())
	pipeline.UseBuildCache(buildCacheDir())
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	pprof.StopCPUProfile()
	// REPOPREP_MEMPROFILE=FILE writes the heap profile at the end: what
	// the command allocated, by call site (go tool pprof -sample_index
	// alloc_space), and what was still live.
	if name := os.Getenv("REPOPREP_MEMPROFILE"); name != "" {
		if f, err := os.Create(name); err == nil {
			pprof.Lookup("allocs").WriteTo(f, 0)
			f.Close()
		}
	}
	stop()
	os.Exit(code)
}

// tokensCacheDir is where the tokenizer keeps its tables for the next
// process of this executable (tokens.UseCache): $REPOPREP_TOKENS_CACHE,
// or $XDG_CACHE_HOME/repoprep/tokens; "off" keeps nothing, as does a
// machine with no cache directory.
func tokensCacheDir() string { return cachedir.Dir("REPOPREP_TOKENS_CACHE", "tokens") }

// buildCacheDir is where the refresh key's digest of this executable is
// kept for its next process (pipeline.UseBuildCache):
// $REPOPREP_BUILD_CACHE, or $XDG_CACHE_HOME/repoprep/build; "off" keeps
// nothing.
func buildCacheDir() string { return cachedir.Dir("REPOPREP_BUILD_CACHE", "build") }

// command is one subcommand: its line in the top-level usage and what
// runs it. Each command's own help (flags, exit codes) comes from running
// it with -h, so `repoprep help CMD` and `repoprep CMD -h` are one text.
type command struct {
	name, args, summary string
	run                 func(ctx context.Context, args []string, stdout, stderr io.Writer) int
}

var commands = []command{
	{"run", "[flags] [SRC]", "build and publish a snapshot of SRC (default \".\")", runRun},
	{"serve", "[flags] OUT", "serve a snapshot to agents: MCP over stdio, or --http ADDR", runServe},
	{"read", "[flags] OUT PATH[:START-END]", "print one read_file answer", runRead},
	{"corpus", "[flags] LIST -o DIR | merge [flags] DIR", "build a corpus of many repositories: their snapshots and one Parquet table", runCorpus},
	{"verify", "OUT", "check that a published snapshot is whole", runVerify},
	{"report", "[-o FILE|-] OUT", "write OUT/report.html, the audit page, again from the snapshot", runReport},
	{"explain", "[flags] PATH...", "say which rule decides each path's category and reason", runExplain},
	{"baseline", "[-o FILE] OUT", "write OUT's secret fingerprints as a baseline for run --baseline", withoutCtx(runBaseline)},
	{"rules", "[--rules FILE]", "print the effective secret rules as TOML", withoutCtx(runRules)},
	{"version", "", "print the version, commit and Go version", runVersion},
	{"help", "[COMMAND]", "print this, or a command's flags and exit codes", nil}, // runHelp: it reads this table
}

func withoutCtx(f func(args []string, stdout, stderr io.Writer) int) func(context.Context, []string, io.Writer, io.Writer) int {
	return func(_ context.Context, args []string, stdout, stderr io.Writer) int { return f(args, stdout, stderr) }
}

// printUsage writes the top-level usage: every command with its summary.
func printUsage(w io.Writer) {
	fmt.Fprint(w, "usage: repoprep <command> [flags] [args]\n\n"+
		"repoprep prepares a repository for an LLM: run builds a clean, indexed,\n"+
		"read-only snapshot of a source tree; serve hands it to agents.\n\ncommands:\n")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, c := range commands {
		fmt.Fprintf(tw, "  %s %s\t%s\n", c.name, c.args, c.summary)
	}
	tw.Flush()
	fmt.Fprint(w, "\nRun 'repoprep help <command>' for its flags and exit codes.\n"+
		"Exit codes: 0 success, 1 failure, 2 usage error, 3 (run) secrets found,\n"+
		"4 (corpus) repositories failed, 75 another run holds OUT.\n")
}

// run dispatches one command line and returns the process exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		printUsage(stderr)
		return exitUsage
	}
	switch args[0] {
	case "--version", "-version":
		return runVersion(ctx, nil, stdout, stderr)
	case "-h", "--help", "-help":
		return runHelp(ctx, nil, stdout, stderr)
	case "help":
		return runHelp(ctx, args[1:], stdout, stderr)
	}
	for _, c := range commands {
		if c.name == args[0] {
			return c.run(ctx, args[1:], stdout, stderr)
		}
	}
	fmt.Fprintf(stderr, "repoprep: unknown command %q\nusage: repoprep <command> [flags] [args]\nRun 'repoprep help' for the commands.\n", args[0])
	return exitUsage
}

// runHelp is `repoprep help [COMMAND]`.
func runHelp(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	switch {
	case len(args) == 0:
		printUsage(stdout)
		return exitOK
	case len(args) > 1:
		fmt.Fprintf(stderr, "repoprep help: one command at a time, got %d\nusage: repoprep help [COMMAND]\n", len(args))
		return exitUsage
	}
	for _, c := range commands {
		if c.name == args[0] && c.run != nil && c.name != "version" {
			return c.run(ctx, []string{"-h"}, stdout, stderr)
		}
	}
	if args[0] == "help" || args[0] == "version" {
		printUsage(stdout)
		return exitOK
	}
	fmt.Fprintf(stderr, "repoprep help: unknown command %q\nRun 'repoprep help' for the commands.\n", args[0])
	return exitUsage
}

// runVersion is `repoprep version`.
func runVersion(_ context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		fmt.Fprintf(stderr, "repoprep version: no arguments, got %s\nusage: repoprep version\n", strings.Join(args, " "))
		return exitUsage
	}
	fmt.Fprintln(stdout, currentBuild())
	return exitOK
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
