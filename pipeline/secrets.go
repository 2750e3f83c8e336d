package pipeline

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"slices"
	"sync"

	"github.com/repoprep/repoprep/internal/secrets"
	"github.com/repoprep/repoprep/rules"
	"github.com/repoprep/repoprep/snapshot"
	"github.com/repoprep/repoprep/stages"
)

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
	opts, scanner, start, err := newSecretOptionsLazy(o, rs)
	if err == nil {
		start()
	}
	return opts, scanner, err
}

// newScanner makes a run's scanner: the compiled rules from the process's
// cache (ruleSets) with the run's own key and options. A variable so tests
// can count the runs that need compiled rules.
var newScanner = func(rs []rules.SecretRule, opts ...secrets.Option) (*secrets.Scanner, error) {
	compiled, err := ruleSets.get(rs)
	if err != nil {
		return nil, err
	}
	return compiled.Scanner(opts...)
}

// newSecretOptionsLazy is newSecretOptions with the compile put off until
// start or scanner is called: a refresh that keeps the snapshot standing
// (keepIfUnchanged) scans no text, and never compiles the rules (a fifth
// of its CPU). The rules were compiled once under the same refresh key
// (it digests them), so a rule that fails to compile never lets a refresh
// keep a snapshot. start and scanner are safe for concurrent use.
func newSecretOptionsLazy(o Options, rs *rules.Set) (opts stages.SecretOptions, scanner func() (*secrets.Scanner, error), start func(), err error) {
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
	var once sync.Once
	start = func() {
		once.Do(func() {
			go func() {
				defer close(done)
				opts := []secrets.Option{secrets.WithFingerprintKey(key)}
				if o.InlineAllow {
					opts = append(opts, secrets.WithInlineAcks())
				}
				sc, scErr = newScanner(secretRules, opts...)
			}()
		})
	}
	scanner = func() (*secrets.Scanner, error) {
		start()
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
			return opts, scanner, start, fmt.Errorf("baseline: %w", err)
		}
		defer f.Close()
		if opts.Baseline, err = secrets.ReadBaseline(f); err != nil {
			return opts, scanner, start, fmt.Errorf("baseline %s: %w", o.Baseline, err)
		}
	}
	return opts, scanner, start, nil
}

// randomKey is the fingerprint key of a run given none: nothing in OUT can
// be tested against a guess, but fingerprints change every run (and a
// refresh reuses nothing).
func randomKey() []byte {
	var raw [32]byte
	rand.Read(raw[:])
	return []byte(hex.EncodeToString(raw[:]))
}

// useScanner waits for the compiled secret rules and hands them to the
// stages; it starts the compile if nothing has yet (startScanner).
func (r *run) useScanner(env *stages.Env) error {
	if r.secrets.Scanner != nil {
		return nil
	}
	sc, err := r.scanner()
	if err != nil {
		return badOptions(err)
	}
	r.secrets.Scanner, env.SecretScanner = sc, sc
	return nil
}

// scanSecrets runs the secrets stage; names come first, in scanNames.
func (r *run) scanSecrets(ctx context.Context, env *stages.Env, recs []*stages.Record) ([]secrets.PathFinding, error) {
	fs, err := env.Secrets(ctx, recs, r.opts.Workers, r.secrets)
	if err != nil {
		return nil, err
	}
	fs = append(fs, r.nameFindings...)
	secrets.SortFindings(fs)
	return fs, nil
}

// writeSecrets writes secrets.json and the same findings as SARIF 2.1.0.
func writeSecrets(out *snapshot.Pending, fs []secrets.PathFinding, version string) error {
	if fs == nil {
		fs = []secrets.PathFinding{} // "findings": [], never null
	}
	if err := out.WriteJSON(snapshot.SecretsJSON, secrets.FindingsFile{Schema: secrets.Schema, Findings: fs}); err != nil {
		return err
	}
	return out.WriteFile(snapshot.SecretsSARIF, func(w *bufio.Writer) error {
		return secrets.WriteSARIF(w, fs, version)
	})
}
