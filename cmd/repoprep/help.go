package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// How the CLI explains itself: each command's usage line, a paragraph,
// its flags (each once, with its shorthand, its value's name and its
// default once) and its exit codes, for `repoprep help CMD` and
// `repoprep CMD -h`; one error line and the usage line for a bad flag.

// exitDoc is one exit code a command documents.
type exitDoc struct {
	code int
	what string
}

// Exit codes as run documents them; the other commands list their own.
var runExits = []exitDoc{
	{exitOK, "published"},
	{exitFailed, "failed; nothing published, the previous snapshot is as it was"},
	{exitUsage, "usage error (a bad flag, a missing source, an OUT that is not a snapshot)"},
	{exitSecrets, "published, but --fail-on-secrets or --fail-on found secrets"},
	{exitBusy, "another run holds OUT's lock; nothing done, try again later"},
}

// flagDoc is what help shows about one flag beyond its usage text.
type flagDoc struct {
	short string // one-letter alias ("o" for --out), "" for none
	value string // the value's name (DIR, N); "" for a boolean
	def   string // the default in words; "" shows none
}

// flags is a command's flag set plus what its help shows. Register each
// flag with the flag package's methods (usage text without the default:
// help adds it), then describe it with doc.
type flags struct {
	*flag.FlagSet
	cmd     string // "run"
	args    string // what follows the command in the usage line: "[flags] [SRC]"
	about   string // a paragraph under the usage line
	exits   []exitDoc
	docs    map[string]flagDoc
	aliases map[string]bool // short names, which help lists beside their long one
}

func newFlags(cmd, args, about string, exits []exitDoc) *flags {
	fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
	fs.SetOutput(io.Discard) // parse reports errors itself, in one line
	fs.Usage = func() {}
	return &flags{FlagSet: fs, cmd: cmd, args: args, about: about, exits: exits, docs: map[string]flagDoc{}, aliases: map[string]bool{}}
}

// doc describes the flag name: its value's name and default (def "" takes
// the flag's own default unless it is a zero value), and a one-letter
// alias sharing its value.
func (f *flags) doc(name, short, value, def string) {
	fl := f.Lookup(name)
	if fl == nil {
		panic("help: no flag " + name)
	}
	if def == "" {
		switch fl.DefValue {
		case "", "0", "false", "0s":
		default:
			def = fl.DefValue
		}
	}
	if short != "" {
		f.Var(fl.Value, short, "shorthand for --"+name)
		f.aliases[short] = true
	}
	f.docs[name] = flagDoc{short: short, value: value, def: def}
}

// usageLine is "usage: repoprep run [flags] [SRC]".
func (f *flags) usageLine() string {
	return strings.TrimSpace("usage: repoprep " + f.cmd + " " + f.args)
}

// printHelp writes the whole help: usage line, paragraph, flags, exit codes.
func (f *flags) printHelp(w io.Writer) {
	fmt.Fprintln(w, f.usageLine())
	if f.about != "" {
		fmt.Fprintf(w, "\n%s\n", strings.TrimSpace(f.about))
	}
	var rows []string
	f.VisitAll(func(fl *flag.Flag) {
		if f.aliases[fl.Name] {
			return
		}
		d := f.docs[fl.Name]
		name := "    "
		if d.short != "" {
			name = "-" + d.short + ", "
		}
		name += "--" + fl.Name
		if d.value != "" {
			name += " " + d.value
		}
		usage := fl.Usage
		if d.def != "" {
			usage += " (default " + d.def + ")"
		}
		rows = append(rows, "  "+name+"\t"+usage)
	})
	if len(rows) > 0 {
		fmt.Fprintln(w, "\nflags:")
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, r := range rows {
			fmt.Fprintln(tw, r)
		}
		tw.Flush()
	}
	if len(f.exits) > 0 {
		fmt.Fprintln(w, "\nexit codes:")
		for _, e := range f.exits {
			fmt.Fprintf(w, "  %d  %s\n", e.code, e.what)
		}
	}
}

// parse parses args (flags may follow the positionals, see parseArgs).
// ok is false when the command must stop at once with code: 0 after -h
// (the help is on stdout), 2 on a bad flag (one line naming it, then the
// usage line, on stderr).
func (f *flags) parse(args []string, stdout, stderr io.Writer) (code int, ok bool) {
	err := parseArgs(f.FlagSet, args)
	switch {
	case err == nil:
		return 0, true
	case errors.Is(err, flag.ErrHelp):
		f.printHelp(stdout)
		return exitOK, false
	default:
		f.usageError(stderr, flagError(err))
		return exitUsage, false
	}
}

// usageError prints "repoprep run: msg", the usage line and where the
// whole help is, and is what every usage error of a command prints.
func (f *flags) usageError(stderr io.Writer, msg string) {
	fmt.Fprintf(stderr, "repoprep %s: %s\n%s\nRun 'repoprep help %s' for the flags.\n", f.cmd, msg, f.usageLine(), f.cmd)
}

// snapshotArg returns the one argument of a command that reads a
// snapshot (OUT), or says it is missing or one too many.
func (f *flags) snapshotArg(stderr io.Writer) (string, bool) {
	if f.NArg() != 1 {
		f.usageError(stderr, fmt.Sprintf("one snapshot directory (OUT), got %d arguments", f.NArg()))
		return "", false
	}
	return f.Arg(0), true
}

// flagError rewords the flag package's errors with the --flag spelling
// the help and the README use.
func flagError(err error) string {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: "); ok {
		return "unknown flag " + dashes(strings.TrimLeft(name, "-"))
	}
	if name, ok := strings.CutPrefix(msg, "flag needs an argument: "); ok {
		return dashes(strings.TrimLeft(name, "-")) + " needs a value"
	}
	// invalid value "x" for flag -workers: parse error
	if i := strings.Index(msg, " for flag -"); i >= 0 {
		rest := msg[i+len(" for flag -"):]
		name, cause, _ := strings.Cut(rest, ": ")
		msg = msg[:i] + " for " + dashes(name)
		if cause != "" {
			msg += ": " + cause
		}
	}
	return msg
}

// dashes spells a flag as the help does: -o, --out.
func dashes(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}
