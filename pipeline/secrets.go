package pipeline

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/repoprep/repoprep/internal/secrets"
	"github.com/repoprep/repoprep/rules"
	"github.com/repoprep/repoprep/snapshot"
	"github.com/repoprep/repoprep/stages"
)

// PathFinding is one secrets.json finding: where, which rule, of which kind
// and severity, and the match masked. The full secret is never part of it.
type PathFinding struct {
	Path        string `json:"path"`
	Line        int    `json:"line"` // 0: the secret is in the path or link target
	Column      int    `json:"column"`
	Rule        string `json:"rule"`
	Description string `json:"description"`
	Kind        string `json:"kind"`     // credential or pii
	Severity    string `json:"severity"` // high, medium or low
	Match       string `json:"match"`
	Fingerprint string `json:"fingerprint"`
}

// SecretsFile is secrets.json.
type SecretsFile struct {
	Schema   string        `json:"schema"`
	Findings []PathFinding `json:"findings"`
}

// BaselineSchema names a baseline file's format.
const BaselineSchema = "repoprep.baseline/v1"

// Baseline is a baseline file: the fingerprints of findings that are known
// and accepted, which `run --baseline` leaves out of what it reports.
type Baseline struct {
	Schema       string   `json:"schema"`
	Fingerprints []string `json:"fingerprints"` // sorted, unique
}

// NewBaseline makes the baseline that accepts every finding of fs.
func NewBaseline(fs []PathFinding) Baseline {
	b := Baseline{Schema: BaselineSchema, Fingerprints: []string{}}
	for _, f := range fs {
		b.Fingerprints = append(b.Fingerprints, f.Fingerprint)
	}
	slices.Sort(b.Fingerprints)
	b.Fingerprints = slices.Compact(b.Fingerprints)
	return b
}

// ReadBaseline reads the fingerprints of a baseline file or of a
// secrets.json (whose findings then count as accepted).
func ReadBaseline(r io.Reader) (map[string]bool, error) {
	var doc struct {
		Schema       string        `json:"schema"`
		Fingerprints []string      `json:"fingerprints"`
		Findings     []PathFinding `json:"findings"`
	}
	if err := json.NewDecoder(r).Decode(&doc); err != nil {
		return nil, err
	}
	out := map[string]bool{}
	switch doc.Schema {
	case BaselineSchema:
		for _, fp := range doc.Fingerprints {
			out[fp] = true
		}
	case snapshot.SecretsSchema:
		for _, f := range doc.Findings {
			out[f.Fingerprint] = true
		}
	default:
		return nil, fmt.Errorf("schema %q: want %s or %s", doc.Schema, BaselineSchema, snapshot.SecretsSchema)
	}
	return out, nil
}

// keyRule names the fingerprint key when the cross-file pass finds it in
// the tree (a run over the user's home directory would stage it).
const keyRule = "repoprep-fingerprint-key"

// newSecretOptions prepares the secrets stage before anything is read: the
// baseline and the value set with the key in it, at once (their errors
// are the caller's: a missing baseline file), and the scanner (with the
// run's key and without pii rules under --pii off) in the background:
// compiling some two hundred rules takes a tenth of a second of one core,
// which the lock and the scan hide. scanner waits for it.
func newSecretOptions(o Options, rs *rules.Set) (opts stages.SecretOptions, scanner func() (*secrets.Scanner, error), err error) {
	key := o.FingerprintKey
	if key == nil {
		key = randomKey()
	}
	secretRules := rs.Secrets
	if o.PII == PIIOff {
		secretRules = slices.DeleteFunc(slices.Clone(secretRules), func(r rules.SecretRule) bool { return r.Kind == rules.KindPII })
	}
	var sc *secrets.Scanner
	var scErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc, scErr = secrets.New(secretRules, secrets.WithFingerprintKey(key))
	}()
	scanner = func() (*secrets.Scanner, error) {
		<-done
		if scErr != nil {
			return nil, fmt.Errorf("secrets: %w", scErr)
		}
		return sc, nil
	}
	opts = stages.SecretOptions{Values: secrets.NewValues(), Mode: o.Secrets, PII: o.PII}
	opts.Values.Add(keyRule, key)
	if o.Baseline != "" {
		f, err := os.Open(o.Baseline)
		if err != nil {
			return opts, scanner, fmt.Errorf("baseline: %w", err)
		}
		defer f.Close()
		if opts.Baseline, err = ReadBaseline(f); err != nil {
			return opts, scanner, fmt.Errorf("baseline %s: %w", o.Baseline, err)
		}
	}
	return opts, scanner, nil
}

// randomKey is the fingerprint key of a run given none: nothing in OUT can
// be tested against a guess, but fingerprints change every run (and a
// refresh reuses nothing).
func randomKey() []byte {
	var raw [32]byte
	rand.Read(raw[:])
	return []byte(hex.EncodeToString(raw[:]))
}

// scanSecrets runs the secrets stage; names come first, in scanNames.
func (r *run) scanSecrets(ctx context.Context, env *stages.Env, recs []*stages.Record) ([]stages.Finding, error) {
	fs, err := env.Secrets(ctx, recs, r.opts.Workers, r.secrets)
	if err != nil {
		return nil, err
	}
	fs = append(fs, r.nameFindings...)
	stages.SortFindings(fs)
	return fs, nil
}

func toPathFindings(fs []stages.Finding) []PathFinding {
	out := make([]PathFinding, 0, len(fs))
	for _, f := range fs {
		out = append(out, PathFinding{
			Path: f.Path, Line: f.Line, Column: f.Column, Rule: f.Rule,
			Description: f.Description, Kind: f.Kind, Severity: f.Severity,
			Match: f.Match, Fingerprint: f.Fingerprint,
		})
	}
	return out
}

// writeSecrets writes secrets.json and the same findings as SARIF 2.1.0.
func writeSecrets(dir string, fs []PathFinding, version string) error {
	if err := writeJSONFile(filepath.Join(dir, "secrets.json"), SecretsFile{Schema: snapshot.SecretsSchema, Findings: fs}); err != nil {
		return err
	}
	sarif := make([]secrets.PathFinding, 0, len(fs))
	for _, f := range fs {
		sarif = append(sarif, secrets.PathFinding{Path: f.Path, Finding: secrets.Finding{
			Line: f.Line, Column: f.Column, Rule: f.Rule, Description: f.Description,
			Kind: f.Kind, Severity: f.Severity, Match: f.Match, Fingerprint: f.Fingerprint,
		}})
	}
	return writeFile(filepath.Join(dir, "secrets.sarif"), func(w *bufio.Writer) error {
		return secrets.WriteSARIF(w, sarif, version)
	})
}
