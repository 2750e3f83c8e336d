// Package corpus builds a corpus from many repositories: each one a normal
// snapshot under DIR/repos/NAME/ (pipeline.Run, so verify and serve work
// on it unchanged), and one table of every staged file under DIR/corpus/
// (Parquet or zstd JSON Lines) with exact and near duplicates marked
// across the whole corpus and a manifest. A corpus too large for one
// machine runs as shards (DIR/parts/K-of-N/) that Merge combines into the
// same bytes one process writes. It never prints; progress goes to a
// Reporter.
package corpus

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"runtime"
	"sync/atomic"

	"golang.org/x/sync/errgroup"

	"github.com/repoprep/repoprep/internal/secrets"
	"github.com/repoprep/repoprep/pipeline"
	"github.com/repoprep/repoprep/snapshot"
)

// Table formats, as --format takes them.
const (
	FormatParquet = "parquet" // DIR/corpus/part-NNNNN.parquet
	FormatJSONL   = "jsonl"   // DIR/corpus/part-NNNNN.jsonl.zst
)

// The directories under DIR.
const (
	ReposDir  = "repos"  // one snapshot per repository, by name
	CorpusDir = "corpus" // the table and its manifest
	PartsDir  = "parts"  // one directory per shard, K-of-N
)

// Options configures one Run; a zero field means "use the default".
type Options struct {
	List []Entry // the repositories, in LIST order; required
	Dir  string  // DIR; required
	// Run is what every repository's pipeline.Run gets: the flags of
	// `repoprep run`. Root, OutDir, Workers, Progress, Logger, MemoryLimit
	// and GCPercent are set per repository here.
	Run pipeline.Options
	// Workers is the budget for the whole corpus, as --workers gives it:
	// repositories run side by side, and their worker pools add up to it.
	// 0 means one per CPU.
	Workers int
	Format  string // FormatParquet (default) or FormatJSONL
	// Shard, when not zero, runs only its repositories and writes
	// DIR/parts/K-of-N/ for Merge instead of the table.
	Shard    Shard
	Progress Reporter     // nil means silent
	Logger   *slog.Logger // nil means discard
}

// Reporter receives a corpus's progress. Its methods are called from
// worker goroutines and must be safe for concurrent use.
type Reporter interface {
	Start(repos int)             // the repositories to build
	Files(n int)                 // n more files of some repository are through the per-file loop
	Repo(name string, err error) // a repository is published (err nil) or failed
	Done()                       // the corpus is over; clear any display
}

type nopReporter struct{}

func (nopReporter) Start(int)          {}
func (nopReporter) Files(int)          {}
func (nopReporter) Repo(string, error) {}
func (nopReporter) Done()              {}

// RepoResult is what became of one repository of LIST.
type RepoResult struct {
	Name     string
	Err      error                 // why it failed; nil when its snapshot is published
	Findings []secrets.PathFinding // what its run found, for --fail-on
}

// Result is what a Run hands back.
type Result struct {
	Repos    []RepoResult // the shard's repositories (every one, when whole), in LIST order
	Manifest *Manifest    // DIR/corpus/manifest.json; nil for a shard
}

// Failed is how many repositories failed.
func (r *Result) Failed() int {
	n := 0
	for _, rr := range r.Repos {
		if rr.Err != nil {
			n++
		}
	}
	return n
}

// ErrBadOptions marks errors in what the caller asked for (a usage error),
// as opposed to failures while running.
var ErrBadOptions = errors.New("bad options")

type optionsError struct{ err error }

func (e optionsError) Error() string        { return e.err.Error() }
func (e optionsError) Unwrap() error        { return e.err }
func (e optionsError) Is(target error) bool { return target == ErrBadOptions }

func badOptions(format string, args ...any) error {
	return optionsError{fmt.Errorf(format, args...)}
}

func (o Options) withDefaults() (Options, error) {
	if len(o.List) == 0 {
		return o, badOptions("LIST names no repository")
	}
	if o.Dir == "" {
		return o, badOptions("no corpus directory: give -o DIR")
	}
	var err error
	if o.Dir, err = filepath.Abs(o.Dir); err != nil {
		return o, err
	}
	if o.Workers <= 0 {
		o.Workers = runtime.NumCPU()
	}
	if o.Format, err = checkFormat(o.Format); err != nil {
		return o, err
	}
	if !o.Shard.Whole() {
		if err := o.Shard.check(); err != nil {
			return o, badOptions("%v", err)
		}
	}
	if o.Progress == nil {
		o.Progress = nopReporter{}
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return o, nil
}

func checkFormat(f string) (string, error) {
	switch f {
	case "":
		return FormatParquet, nil
	case FormatParquet, FormatJSONL:
		return f, nil
	}
	return f, badOptions("format %q: want parquet or jsonl", f)
}

// Run builds the corpus: every repository of the shard (every one of LIST
// when Shard is zero) is run to DIR/repos/NAME/ — refreshed, when the
// snapshot there is current — side by side within the worker budget, the
// largest first (schedule). A repository that fails is recorded by name
// and the others go on. A whole run writes DIR/corpus/ beside the builds,
// in LIST order as far as they are done (tableRun); a shard writes
// DIR/parts/K-of-N/, which Merge reads. The error is for the corpus as a
// whole: bad options, a cancelled context, a table that cannot be
// written.
func Run(ctx context.Context, opts Options) (*Result, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	fp, err := fingerprint(opts.Run)
	if err != nil {
		return nil, badOptions("%v", err)
	}
	var mine []int // positions in LIST
	for i := range opts.List {
		if opts.Shard.owns(i) {
			mine = append(mine, i)
		}
	}
	defer opts.Progress.Done()
	opts.Progress.Start(len(mine))
	res := &Result{Repos: make([]RepoResult, len(mine))}
	jobs, perRun := budget(opts.Workers, len(mine))
	paths := make([]string, len(mine))
	for slot, i := range mine {
		paths[slot] = opts.List[i].Path
	}
	order := schedule(ctx, paths, opts.Workers)
	// A whole run writes the table beside the builds (writeTable): each
	// repository is read for it right after its run, in the same worker,
	// and handed over by its slot.
	var table *tableRun
	if opts.Shard.Whole() {
		go licenseScanner() // a second of one core, built while the repositories run
		table = startTable(ctx, tableInput{
			dir: opts.Dir, format: opts.Format, version: opts.Run.Version, options: fp,
			statuses: make([]repoStatus, len(mine)), digests: make([]*repoRows, len(mine)),
			workers: opts.Workers, logger: opts.Logger,
		})
		defer table.stop()
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(jobs)
	for _, slot := range order {
		if gctx.Err() != nil {
			break
		}
		g.Go(func() error {
			e := opts.List[mine[slot]]
			rr, m := buildRepo(gctx, opts, e, perRun)
			var digest *repoRows
			if rr.Err == nil && table != nil {
				digest, rr.Err = digestRepo(gctx, repoDir(opts.Dir, e.Name), e.Name, perRun, m)
			}
			if ctx.Err() != nil {
				return ctx.Err() // cancelled: not a failure of this repository
			}
			res.Repos[slot] = rr
			if table != nil {
				st := repoStatus{Name: rr.Name}
				if rr.Err != nil {
					st.Error = rr.Err.Error()
				}
				table.done(slot, st, digest)
			}
			opts.Progress.Repo(e.Name, rr.Err)
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if !opts.Shard.Whole() {
		return res, writePart(opts, fp, res.Repos)
	}
	m, err := table.wait()
	if err != nil {
		return nil, err
	}
	res.Manifest = m
	return res, nil
}

// budget splits the worker budget: how many repositories run at once and
// the pool each one's stages get. Side by side they fill the cores where
// one run would leave them idle (its scan, its cross-file stages, its
// writing), and the pools add up to the budget, never more.
func budget(workers, repos int) (jobs, perRun int) {
	jobs = max(1, min(workers, repos))
	return jobs, max(1, workers/jobs)
}

// repoDir is DIR/repos/NAME.
func repoDir(dir, name string) string { return filepath.Join(dir, ReposDir, name) }

// buildRepo runs one repository to its snapshot, and returns the
// files.json it published.
func buildRepo(ctx context.Context, opts Options, e Entry, workers int) (RepoResult, *snapshot.Manifest) {
	ro := opts.Run
	ro.Root = e.Path
	ro.OutDir = repoDir(opts.Dir, e.Name)
	ro.Workers = workers
	ro.Progress = &repoProgress{to: opts.Progress}
	ro.Logger = opts.Logger.With("repo", e.Name)
	// Both are the process's settings, which runs side by side would
	// each set and restore out of order.
	ro.MemoryLimit, ro.GCPercent = 0, 0
	res, err := pipeline.Run(ctx, ro)
	if err != nil {
		return RepoResult{Name: e.Name, Err: err}, nil
	}
	return RepoResult{Name: e.Name, Findings: res.Findings}, res.Manifest
}

// repoProgress hands one run's per-file progress to the corpus's
// Reporter: only the per-file loop's files count (the scan's are the same
// files found). Stage is called by the run, Add by its workers.
type repoProgress struct {
	to      Reporter
	inFiles atomic.Bool
}

func (p *repoProgress) Stage(name string, _ int) { p.inFiles.Store(name == "files") }

func (p *repoProgress) Add(n int) {
	if p.inFiles.Load() {
		p.to.Files(n)
	}
}

func (p *repoProgress) Done() {}
