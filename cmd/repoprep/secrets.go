package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/repoprep/repoprep/internal/secrets"
	"github.com/repoprep/repoprep/pipeline"
	"github.com/repoprep/repoprep/rules"
	"github.com/repoprep/repoprep/snapshot"
)

// keyEnv, when set, is the fingerprint key itself (a CI secret); otherwise the key file
// under the user's configuration directory is used, created on first use.
const keyEnv = "REPOPREP_FINGERPRINT_KEY"

// secretFlags are run's flags about secrets beyond --secrets and --rules.
type secretFlags struct {
	failOnSecrets bool
	failOn        string // comma-separated kinds; "" = --fail-on not given
}

func addSecretFlags(fs *flags, opts *pipeline.Options, sf *secretFlags) {
	fs.BoolVar(&sf.failOnSecrets, "fail-on-secrets", false, "exit 3 when a credential is found (the snapshot is still published); see --fail-on")
	fs.doc("fail-on-secrets", "", "", "")
	fs.StringVar(&sf.failOn, "fail-on", "", "exit 3 on findings of these kinds: credential, or pii (credentials and personal data)")
	fs.doc("fail-on", "", "KINDS", "")
	fs.StringVar(&opts.PII, "pii", "", "personal data (internal addresses, phone numbers): report, redact or off")
	fs.doc("pii", "", "MODE", "report")
	fs.BoolVar(&opts.InlineAllow, "inline-allow", false, "a repoprep:allow comment on a finding's line marks it acknowledged: still masked, not failed on")
	fs.doc("inline-allow", "", "", "")
	fs.StringVar(&opts.Baseline, "baseline", "", "findings whose fingerprints FILE lists (from repoprep baseline, or a secrets.json) are not reported or failed on")
	fs.doc("baseline", "", "FILE", "")
}

// failKinds returns the kinds whose findings fail the run, nil for none, or a usage error.
func (sf secretFlags) failKinds() ([]string, error) {
	if sf.failOn == "" {
		if sf.failOnSecrets {
			return []string{rules.KindCredential}, nil
		}
		return nil, nil
	}
	var kinds []string
	for _, k := range strings.Split(sf.failOn, ",") {
		switch strings.TrimSpace(k) {
		case rules.KindCredential:
			kinds = append(kinds, rules.KindCredential)
		case rules.KindPII, "all":
			kinds = append(kinds, rules.KindCredential, rules.KindPII) // pii includes the rest
		default:
			return nil, fmt.Errorf("--fail-on %q: want credential or pii", sf.failOn)
		}
	}
	return kinds, nil
}

// fingerprintKey is the run's key: $REPOPREP_FINGERPRINT_KEY, or the user's key file.
func fingerprintKey() ([]byte, error) {
	if k := os.Getenv(keyEnv); k != "" {
		if len(k) < 16 {
			return nil, fmt.Errorf("%s is %d bytes; want at least 16 (e.g. openssl rand -hex 32)", keyEnv, len(k))
		}
		return []byte(k), nil
	}
	file, err := secrets.DefaultKeyFile()
	if err != nil {
		return nil, fmt.Errorf("%w; set %s", err, keyEnv)
	}
	key, err := secrets.LoadKey(file)
	if err != nil {
		// A system user's cron job often has no writable home.
		return nil, fmt.Errorf("%w; set %s (at least 16 bytes, e.g. openssl rand -hex 32), or XDG_CONFIG_HOME to a directory this user can write", err, keyEnv)
	}
	return key, nil
}

// failing counts the findings of the given kinds, but those acknowledged
// (--inline-allow).
func failing(fs []secrets.PathFinding, kinds []string) int {
	n := 0
	for _, f := range fs {
		if slices.Contains(kinds, f.Kind) && !f.Acknowledged {
			n++
		}
	}
	return n
}

// runBaseline is `repoprep baseline [-o FILE] OUT`: the baseline that accepts every
// finding of a published snapshot, for `run --baseline`.
func runBaseline(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("baseline", "[-o FILE] OUT", `
Writes the fingerprints of every finding in OUT/secrets.json as a baseline
file (schema repoprep.baseline/v1): give it to run --baseline and those
findings are no longer reported or failed on; new ones still are.`,
		[]exitDoc{{exitOK, "written"}, {exitFailed, "OUT is not a snapshot, or its secrets.json cannot be read, or FILE cannot be written"}, {exitUsage, "usage error"}})
	var out string
	fs.StringVar(&out, "out", "", "write the baseline to FILE; - or none is stdout")
	fs.doc("out", "o", "FILE", "")
	if code, ok := fs.parse(args, stdout, stderr); !ok {
		return code
	}
	dir, ok := fs.snapshotArg(stderr)
	if !ok {
		return exitUsage
	}
	snap, err := snapshot.Open(dir)
	if err != nil {
		fmt.Fprintf(stderr, "repoprep: %v\n", err)
		return exitFailed
	}
	data, err := snap.ReadFile(snapshot.SecretsJSON)
	snap.Close()
	if err != nil {
		fmt.Fprintf(stderr, "repoprep: %s: %v\n", filepath.Join(dir, snapshot.SecretsJSON), err)
		return exitFailed
	}
	var doc secrets.FindingsFile
	if err := json.Unmarshal(data, &doc); err != nil {
		fmt.Fprintf(stderr, "repoprep: %s: %v\n", filepath.Join(dir, snapshot.SecretsJSON), err)
		return exitFailed
	}
	b, _ := json.MarshalIndent(secrets.NewBaseline(doc.Findings), "", "  ")
	b = append(b, '\n')
	if out == "" || out == "-" {
		stdout.Write(b)
		return exitOK
	}
	if err := os.WriteFile(out, b, 0o644); err != nil {
		fmt.Fprintf(stderr, "repoprep: %v\n", err)
		return exitFailed
	}
	return exitOK
}

// runRules is `repoprep rules [--rules FILE]`: the effective secret rules as TOML, the
// defaults with FILE merged over them; a rules file in itself.
func runRules(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("rules", "[--rules FILE]", `
Prints the effective secret rules as TOML: the embedded defaults with FILE
merged over them, in the order they are tried. The output is a rules file
in itself: copy a rule, change it, and pass the file to run --rules.`,
		[]exitDoc{{exitOK, "printed"}, {exitFailed, "stdout could not be written"}, {exitUsage, "usage error, or FILE is not a valid rules file"}})
	var extra string
	fs.StringVar(&extra, "rules", "", "TOML rules merged over the defaults")
	fs.doc("rules", "", "FILE", "")
	if code, ok := fs.parse(args, stdout, stderr); !ok {
		return code
	}
	if fs.NArg() != 0 {
		fs.usageError(stderr, "no arguments, got "+strings.Join(fs.Args(), " "))
		return exitUsage
	}
	rs, err := rules.Load(extra)
	if err != nil {
		fmt.Fprintf(stderr, "repoprep: %v\n", err)
		return exitUsage
	}
	w := bufio.NewWriter(stdout)
	fmt.Fprintf(w, "# The effective secret rules: %d in all, in the order they are tried.\n\n", len(rs.Secrets))
	if err := rules.EncodeSecretRules(w, rs.Secrets); err != nil {
		fmt.Fprintf(stderr, "repoprep: %v\n", err)
		return exitFailed
	}
	if err := w.Flush(); err != nil {
		return exitFailed
	}
	return exitOK
}
