package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// helpFlags returns the flags a command's help lists, in order, as
// "--name" (or "-o, --out"), with the rest of each row.
func helpFlags(t *testing.T, help string) map[string]string {
	t.Helper()
	_, section, ok := strings.Cut(help, "\nflags:\n")
	if !ok {
		return nil
	}
	section, _, _ = strings.Cut(section, "\n\n")
	rows := map[string]string{}
	row := regexp.MustCompile(`^  (?:-([a-z]), |    )--([a-z-]+)(?: ([A-Z]+))?  +(.*)$`)
	for _, line := range strings.Split(section, "\n") {
		m := row.FindStringSubmatch(line)
		if m == nil {
			t.Errorf("flag row %q is not \"  -x, --name VALUE  usage\"", line)
			continue
		}
		if _, dup := rows[m[2]]; dup {
			t.Errorf("--%s is listed twice", m[2])
		}
		rows[m[2]] = line
	}
	return rows
}

// TestHelp: `repoprep CMD -h` and `repoprep help CMD` print the same help
// on stdout: the usage line with the command's arguments, every flag once
// in the --flag spelling with its value's name once and its default at
// most once, and the exit codes.
func TestHelp(t *testing.T) {
	singleDashLong := regexp.MustCompile(`(^|[\s(])-[a-z][a-z-]+\b`)
	for _, c := range commands {
		if c.run == nil || c.name == "version" {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			code, help, errOut := runCmd(t, c.name, "-h")
			if code != exitOK || errOut != "" {
				t.Fatalf("%s -h: exit %d, stderr %q", c.name, code, errOut)
			}
			if code, again, _ := runCmd(t, "help", c.name); code != exitOK || again != help {
				t.Errorf("help %s (exit %d) differs from %s -h", c.name, code, c.name)
			}
			if first, _, _ := strings.Cut(help, "\n"); first != strings.TrimSpace("usage: repoprep "+c.name+" "+c.args) {
				t.Errorf("usage line %q, want %q", first, "usage: repoprep "+c.name+" "+c.args)
			}
			if !strings.Contains(help, "\nexit codes:\n  0  ") || !strings.Contains(help, "\n  2  usage error") {
				t.Errorf("no exit codes in\n%s", help)
			}
			for name, row := range helpFlags(t, help) {
				if strings.Count(row, "(default") > 1 || strings.Count(row, "--"+name) != 1 {
					t.Errorf("--%s: %q shows its default or name more than once", name, row)
				}
			}
			for _, line := range strings.Split(help, "\n") {
				words := strings.Fields(line)
				for i := 1; i < len(words); i++ {
					if words[i] == words[i-1] && strings.ToUpper(words[i]) == words[i] {
						t.Errorf("%q: a value name twice (%s %s)", line, words[i], words[i])
					}
				}
				if m := singleDashLong.FindString(line); m != "" && !strings.Contains(line, "-o -") {
					t.Errorf("%q: a long flag with one dash (%s); the help spells --flag", line, strings.TrimSpace(m))
				}
			}
		})
	}
	code, out, _ := runCmd(t, "run", "-h")
	rows := helpFlags(t, out)
	for name, want := range map[string]string{
		"out":            "-o, --out DIR",
		"max-text-bytes": "(default 2M)",
		"workers":        "(default one per CPU)",
		"quiet":          "-q, --quiet",
		"secrets":        "(default redact)",
	} {
		if !strings.Contains(rows[name], want) {
			t.Errorf("run -h: --%s row %q lacks %q", name, rows[name], want)
		}
	}
	if code != exitOK || !strings.Contains(out, "usage: repoprep run [flags] [SRC]") || !strings.Contains(out, "  3  published, but") {
		t.Errorf("run -h:\n%s", out)
	}
	if code, out, _ := runCmd(t, "help"); code != exitOK || !strings.Contains(out, "  run [flags] [SRC]") {
		t.Errorf("help: exit %d\n%s", code, out)
	}
}

// TestHelpMatchesDocs: docs/cli.md's table for each command, and the
// README's table for run, list exactly the flags the help lists, with the
// same shorthand and default.
func TestHelpMatchesDocs(t *testing.T) {
	read := func(name string) string {
		data, err := os.ReadFile(filepath.Join("..", "..", name))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	cli, readme := read("docs/cli.md"), read("README.md")
	for _, c := range commands {
		if c.run == nil || c.name == "version" {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			_, help, _ := runCmd(t, c.name, "-h")
			checkFlagTable(t, "docs/cli.md", cli, "\n## `repoprep "+c.name+" ", helpFlags(t, help))
			if c.name == "run" {
				checkFlagTable(t, "README.md", readme, "\n### `repoprep run ", helpFlags(t, help))
			}
		})
	}
}

// checkFlagTable compares the flag table in doc's section starting with
// header with the help's flag rows.
func checkFlagTable(t *testing.T, docName, doc, header string, rows map[string]string) {
	t.Helper()
	_, section, ok := strings.Cut(doc, header)
	if !ok {
		t.Fatalf("%s has no section %q", docName, strings.TrimSpace(header))
	}
	section, _, _ = strings.Cut(section, "\n#")
	docRow := regexp.MustCompile("(?m)^\\| `(?:-([a-z]), )?--([a-z-]+)(?: ([A-Z]+))?` \\| ([^|]*) \\|")
	documented := map[string]bool{}
	for _, m := range docRow.FindAllStringSubmatch(section, -1) {
		name, def := m[2], strings.ReplaceAll(strings.TrimSpace(m[4]), "`", "")
		documented[name] = true
		row, ok := rows[name]
		if !ok {
			t.Errorf("%s documents --%s, which the help does not list", docName, name)
			continue
		}
		if m[1] != "" && !strings.Contains(row, "-"+m[1]+", --"+name) {
			t.Errorf("--%s: %s gives the shorthand -%s, the help %q", name, docName, m[1], row)
		}
		_, helpDef, _ := strings.Cut(row, "(default ")
		helpDef = strings.TrimSuffix(helpDef, ")")
		if def == "none" || def == "off" {
			def = ""
		}
		if helpDef != def {
			t.Errorf("--%s: %s says default %q, the help %q", name, docName, def, helpDef)
		}
	}
	for name := range rows {
		if !documented[name] {
			t.Errorf("the help lists --%s, which %s does not document", name, docName)
		}
	}
}

// TestUsageErrors: a bad command line gets one line naming the problem in
// the user's terms, then the usage line: never the whole help, never an
// operating-system error where a sentence can say what is wrong.
func TestUsageErrors(t *testing.T) {
	src := smallRepo(t, nil)
	snap := filepath.Join(t.TempDir(), "snap")
	if code, _, errOut := runCmd(t, "run", "-q", "-o", snap, src); code != exitOK {
		t.Fatalf("run: exit %d: %s", code, errOut)
	}
	notSnap := "is not a repoprep snapshot (no files.json); create one with repoprep run"
	tests := []struct {
		name    string
		args    []string
		code    int
		want    string // in stderr
		usage   bool   // stderr is the error, the usage line and where the help is
		wantOut string // in stdout
	}{
		{"unknown flag", []string{"run", "--nope", src}, exitUsage, "repoprep run: unknown flag --nope", true, ""},
		{"unknown short flag", []string{"serve", "-x", snap}, exitUsage, "repoprep serve: unknown flag -x", true, ""},
		{"bad value", []string{"run", "--workers", "many", src}, exitUsage, `invalid value "many" for --workers`, true, ""},
		{"missing value", []string{"run", "-o"}, exitUsage, "repoprep run: -o needs a value", true, ""},
		{"snapshot to stdout", []string{"run", "-o", "-", src}, exitUsage, "cannot go to stdout", true, ""},
		{"two sources", []string{"run", src, src}, exitUsage, "one source directory, got 2", true, ""},
		{"URL as SRC", []string{"run", "https://github.com/repoprep/repoprep"}, exitUsage, "remote repositories are not fetched; clone it first", false, ""},
		{"scp-like URL", []string{"run", "git@github.com:repoprep/repoprep.git"}, exitUsage, "remote repositories are not fetched; clone it first", false, ""},
		{"source is a file", []string{"run", filepath.Join(src, "main.go")}, exitUsage, "is a file; repoprep run takes a directory", false, ""},
		{"serve a source tree", []string{"serve", src}, exitFailed, src + " " + notSnap, false, ""},
		{"read a source tree", []string{"read", src, "main.go"}, exitFailed, notSnap, false, ""},
		{"verify a source tree", []string{"verify", src}, exitFailed, notSnap, false, ""},
		{"baseline of a source tree", []string{"baseline", src}, exitFailed, notSnap, false, ""},
		{"serve nothing", []string{"serve", filepath.Join(src, "nope")}, exitFailed, "does not exist; create a snapshot there with: repoprep run SRC -o", false, ""},
		{"serve two", []string{"serve", snap, snap}, exitUsage, "one snapshot directory (OUT), got 2", true, ""},
		{"verify OK", []string{"verify", snap}, exitOK, "", false, "snapshot OK (2 files, 2 staged)"},
		{"baseline to stdout", []string{"baseline", "-o", "-", snap}, exitOK, "", false, `"schema": "repoprep.baseline/v1"`},
		{"help for a command", []string{"help", "verify"}, exitOK, "", false, "usage: repoprep verify OUT"},
		{"help for nothing", []string{"help", "frobnicate"}, exitUsage, `unknown command "frobnicate"`, false, ""},
		{"unknown command", []string{"frobnicate"}, exitUsage, `unknown command "frobnicate"`, false, ""},
		{"version with arguments", []string{"version", "x"}, exitUsage, "no arguments", false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCmd(t, tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, tt.code, stderr)
			}
			if !strings.Contains(stderr, tt.want) || !strings.Contains(stdout, tt.wantOut) {
				t.Errorf("stderr %q, stdout %q; want %q and %q", stderr, stdout, tt.want, tt.wantOut)
			}
			for _, bad := range []string{"statat", "flag provided", "\nflags:", "bad options"} {
				if strings.Contains(stderr, bad) {
					t.Errorf("stderr says %q:\n%s", bad, stderr)
				}
			}
			lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
			if tt.usage && (len(lines) != 3 || !strings.HasPrefix(lines[1], "usage: repoprep "+tt.args[0]) || !strings.HasPrefix(lines[2], "Run 'repoprep help")) {
				t.Errorf("want the error, the usage line and where the help is; got:\n%s", stderr)
			}
			if !tt.usage && tt.code != exitOK && len(lines) > 3 {
				t.Errorf("%d lines of stderr, want one sentence:\n%s", len(lines), stderr)
			}
		})
	}
}
