// Package pipeline runs repoprep's stages in order over one input tree and
// publishes the snapshot: it owns the options, the worker pools, the
// manifest model and its writers, atomic publication and the run report.
// It never prints; progress goes to a Reporter and logs to a slog.Logger.
package pipeline

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"runtime"

	"github.com/repoprep/repoprep/refresh"
	"github.com/repoprep/repoprep/snapshot"
)

// Secret handling modes, as --secrets takes them.
const (
	SecretsRedact  = "redact"  // mask findings in the staged copy
	SecretsReport  = "report"  // list findings, stage files as they are
	SecretsExclude = "exclude" // keep files with findings out of tree/
	PIIOff         = "off"     // --pii off: no personal-data rules run
)

// Options configures one Run; a zero field means "use the default".
type Options struct {
	Root         string // repository to read; never modified
	OutDir       string // published atomically, and only if every stage succeeds; "" means snapshot.DefaultDir(Root)
	Workers      int    // pool size per stage; 0 means one per CPU
	MaxTextBytes int64  // text larger than this is oversize; 0 means 2 MiB
	PreviewLines int    // preview lines per oversize file; 0 means 100
	Secrets      string // credentials: SecretsRedact (default), SecretsReport or SecretsExclude
	PII          string // personal data: SecretsReport (default), SecretsRedact or PIIOff
	Baseline     string // secrets.json or baseline file whose fingerprints are not reported
	// InlineAllow lets a repoprep:allow comment on a finding's line mark that one
	// finding acknowledged (reported as such, not failed on, still masked). Off, the
	// scanned tree has no say at all.
	InlineAllow bool
	// FingerprintKey keys every finding's fingerprint. nil means a random key per run:
	// nothing in OUT can be tested against a guess, but fingerprints change every run.
	FingerprintKey []byte
	NoIgnore       bool // do not honour .gitignore / .ignore files
	// Full reads every file, taking nothing from the previous snapshot at
	// OutDir (refresh.go); the snapshot is the same either way.
	Full      bool
	RulesFile string       // extra rules merged over the embedded defaults
	Version   string       // written into report.json
	Progress  Reporter     // nil means silent
	Logger    *slog.Logger // nil means discard; the library never calls slog.SetDefault

	// MemoryLimit, when not 0, is the base of a soft limit on the Go
	// runtime's memory for the run (debug.SetMemoryLimit): once the scan
	// has counted the files, the limit is this plus perFileMemory for each,
	// and the previous limit is restored when Run returns. It is the
	// process's setting, so a caller running other work beside Run leaves
	// it 0.
	MemoryLimit int64

	// GCPercent, when not 0, is the Go runtime's GC percent for the run
	// (debug.SetGCPercent), restored when Run returns: with MemoryLimit
	// bounding memory, the collector need not also keep the heap near
	// twice what is live, and a refresh, which allocates its state and
	// records in a few bursts, collected a tenth of its time at 100. The
	// process's setting too.
	GCPercent int
}

// Reporter receives progress. Its methods are called from worker goroutines
// and must be safe for concurrent use.
type Reporter interface {
	Stage(name string, total int) // a stage starts; total is -1 when unknown
	Add(n int)                    // n more items of the current stage are done
	Done()                        // the run is over; clear any display
}

type nopReporter struct{}

func (nopReporter) Stage(string, int) {}
func (nopReporter) Add(int)           {}
func (nopReporter) Done()             {}

func (o Options) withDefaults() (Options, error) {
	if o.Root == "" {
		o.Root = "."
	}
	if err := checkSource(o.Root); err != nil {
		return o, err
	}
	var err error
	if o.Root, err = filepath.Abs(o.Root); err != nil {
		return o, err
	}
	if o.OutDir == "" {
		if o.OutDir, err = snapshot.DefaultDir(o.Root); err != nil {
			return o, err
		}
	}
	if o.OutDir, err = filepath.Abs(o.OutDir); err != nil {
		return o, err
	}
	if o.Workers <= 0 {
		o.Workers = runtime.NumCPU()
	}
	if o.MaxTextBytes <= 0 {
		o.MaxTextBytes = defaultMaxTextBytes
	}
	if o.PreviewLines <= 0 {
		o.PreviewLines = 100
	}
	switch o.Secrets {
	case "":
		o.Secrets = SecretsRedact
	case SecretsRedact, SecretsReport, SecretsExclude:
	default:
		return o, fmt.Errorf("secrets mode %q: want redact, report or exclude", o.Secrets)
	}
	switch o.PII {
	case "":
		o.PII = SecretsReport // an agent reading code must see its addresses as written
	case SecretsRedact, SecretsReport, PIIOff:
	default:
		return o, fmt.Errorf("pii mode %q: want redact, report or off", o.PII)
	}
	if o.Progress == nil {
		o.Progress = nopReporter{}
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return o, nil
}

// optionsError is an error in what the caller asked for: its text is the
// cause alone, in the user's terms, and errors.Is finds ErrBadOptions.
type optionsError struct{ err error }

func (e optionsError) Error() string        { return e.err.Error() }
func (e optionsError) Unwrap() error        { return e.err }
func (e optionsError) Is(target error) bool { return target == ErrBadOptions }

func badOptions(err error) error { return optionsError{err} }

// urlLike matches what a user pastes from a forge: a URL with a scheme, or
// git's scp-like "user@host:path".
var urlLike = regexp.MustCompile(`^([a-zA-Z][a-zA-Z0-9+.-]*://|[\w.-]+@[\w.-]+:)`)

// checkSource says in the user's terms why root cannot be read as a
// source tree, before anything is made absolute (which would turn
// "https://host/x" into a path under the working directory).
func checkSource(root string) error {
	info, err := os.Stat(root)
	switch {
	case err != nil && urlLike.MatchString(root):
		return fmt.Errorf("%s is a URL: remote repositories are not fetched; clone it first (git clone %s) and run on the clone", root, root)
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("source directory %s does not exist", root)
	case err != nil:
		return err
	case !info.IsDir():
		return fmt.Errorf("source %s is a file; repoprep run takes a directory", root)
	}
	return nil
}

// defaultMaxTextBytes is --max-text-bytes' default, 2 MiB (docs/cli.md).
const defaultMaxTextBytes = 2 << 20

// UseBuildCache makes this process read the digest of its own executable,
// which keys a refresh, from a file in dir that an earlier process of the
// same executable wrote, and keep it there otherwise (refresh.UseBuildCache);
// "" keeps nothing. Call it before Run.
func UseBuildCache(dir string) { refresh.UseBuildCache(dir) }
