package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/repoprep/repoprep/corpus"
	"github.com/repoprep/repoprep/internal/secrets"
	"github.com/repoprep/repoprep/pipeline"
	"github.com/repoprep/repoprep/snapshot"
)

// exitRepoFailed: the corpus was written, but repositories of LIST failed
// (manifest.json or the part names them), so a job can retry them.
const exitRepoFailed = 4

// jobIndexEnv is the variable Kubernetes sets in each pod of an Indexed
// Job: the pod's completion index, from 0.
const jobIndexEnv = "JOB_COMPLETION_INDEX"

const corpusAbout = `
Builds a corpus from the repositories LIST names, one a line: PATH, or
NAME<TAB>PATH (# starts a comment; a relative PATH is taken from LIST's
directory). Each becomes a snapshot at DIR/repos/NAME/, built as run builds
one (the same flags) and refreshed when it is current; the repositories run
side by side within --workers. DIR/corpus/ then holds one table row per
staged file (Parquet, or zstd JSON Lines with --format jsonl), exact and
near duplicates marked across the corpus, and manifest.json. With --shard
K/N only the repositories at positions K mod N run, into DIR/repos/ and
DIR/parts/K-of-N/; "repoprep corpus merge DIR" then writes DIR/corpus/ as
one process would have. docs/corpus.md describes the table and the manifest.`

var corpusExits = []exitDoc{
	{exitOK, "written"},
	{exitFailed, "failed: the table (or the shard's part) was not written"},
	{exitUsage, "usage error (a bad flag, a bad LIST, no -o)"},
	{exitSecrets, "written, but --fail-on-secrets or --fail-on found secrets"},
	{exitRepoFailed, "written, but repositories failed; manifest.json (or the part) lists each with its error"},
	{exitBusy, "another process holds the lock on DIR/corpus or a repository's snapshot"},
}

// runCorpus is `repoprep corpus [flags] LIST -o DIR` and
// `repoprep corpus merge [flags] DIR`.
func runCorpus(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "merge" {
		return runCorpusMerge(ctx, args[1:], stdout, stderr)
	}
	fs := newFlags("corpus", "[flags] LIST -o DIR | merge [flags] DIR", corpusAbout, corpusExits)
	var (
		rf     runFlags
		format string
		shard  string
		shards int
	)
	addRunFlags(fs, &rf, "the corpus directory: repos/, corpus/ and parts/ go there", "")
	fs.Lookup("workers").Usage = "the worker budget for the whole corpus: repositories run side by side and their pools add up to N"
	fs.Lookup("json").Usage = "print manifest.json on stdout at the end"
	fs.Lookup("quiet").Usage = "no progress; only errors on stderr"
	fs.StringVar(&format, "format", corpus.FormatParquet, "the table's format: parquet, or jsonl (zstd-compressed JSON Lines)")
	fs.doc("format", "", "FORMAT", "")
	fs.StringVar(&shard, "shard", "", "K/N: run only the repositories at positions K mod N of LIST (K from 0) and write DIR/parts/K-of-N/ for merge")
	fs.doc("shard", "", "SHARD", "")
	fs.IntVar(&shards, "shards", 0, "with $JOB_COMPLETION_INDEX set and no --shard: --shard $JOB_COMPLETION_INDEX/N")
	fs.doc("shards", "", "N", "")
	if code, ok := fs.parse(args, stdout, stderr); !ok {
		return code
	}
	if fs.NArg() != 1 {
		fs.usageError(stderr, fmt.Sprintf("one LIST file, got %d arguments", fs.NArg()))
		return exitUsage
	}
	if rf.opts.OutDir == "" || rf.opts.OutDir == "-" {
		fs.usageError(stderr, "-o DIR: a corpus needs a directory")
		return exitUsage
	}
	sh, err := pickShard(shard, shards, os.Getenv(jobIndexEnv))
	if err != nil {
		fs.usageError(stderr, err.Error())
		return exitUsage
	}
	if code, ok := rf.check(fs, stderr); !ok {
		return code
	}
	listPath := fs.Arg(0)
	data, err := readList(listPath)
	if err != nil {
		fmt.Fprintf(stderr, "repoprep: %v\n", err)
		return exitUsage
	}
	list, err := corpus.ParseList(data, filepath.Dir(listPath))
	if err != nil {
		fs.usageError(stderr, err.Error())
		return exitUsage
	}
	opts := corpus.Options{
		List: list, Dir: rf.opts.OutDir, Run: rf.opts, Workers: rf.opts.Workers, Format: format, Shard: sh,
		Logger: rf.opts.Logger,
	}
	if rf.showProgress(stderr) {
		opts.Progress = newCorpusProgress(stderr)
	}
	res, err := corpus.Run(ctx, opts)
	if err != nil {
		return corpusError(stderr, err)
	}
	if rf.asJSON && res.Manifest != nil {
		if err := snapshot.EncodeJSON(stdout, res.Manifest); err != nil {
			fmt.Fprintf(stderr, "repoprep: %v\n", err)
			return exitFailed
		}
	}
	if !rf.quiet && !rf.asJSON {
		where := filepath.Join(opts.Dir, corpus.CorpusDir)
		if !sh.Whole() {
			where = filepath.Join(opts.Dir, corpus.PartsDir, fmt.Sprintf("%d-of-%d", sh.K, sh.N))
		}
		fmt.Fprintf(stdout, "%d repositories, %d failed; published %s\n", len(res.Repos), res.Failed(), where)
	}
	var findings []secrets.PathFinding
	for _, rr := range res.Repos {
		if rr.Err != nil {
			fmt.Fprintf(stderr, "repoprep: %s: %v\n", rr.Name, rr.Err)
		}
		findings = append(findings, rr.Findings...)
	}
	if n := res.Failed(); n > 0 {
		fmt.Fprintf(stderr, "repoprep: %d of %d repositories failed\n", n, len(res.Repos))
		return exitRepoFailed
	}
	if n := failing(findings, rf.failKinds); n > 0 {
		fmt.Fprintf(stderr, "repoprep: %d secrets found; see each repository's secrets.json under %s\n", n, filepath.Join(opts.Dir, corpus.ReposDir))
		return exitSecrets
	}
	return exitOK
}

// pickShard is --shard, else --shards with the Indexed Job's index, else
// the whole LIST.
func pickShard(shard string, shards int, jobIndex string) (corpus.Shard, error) {
	switch {
	case shard != "":
		return corpus.ParseShard(shard)
	case shards < 0:
		return corpus.Shard{}, errors.New("--shards takes a positive number")
	case shards > 0 && jobIndex == "":
		return corpus.Shard{}, fmt.Errorf("--shards %d needs $%s (set by a Kubernetes Indexed Job), or give --shard K/N", shards, jobIndexEnv)
	case shards > 0:
		if _, err := strconv.Atoi(jobIndex); err != nil {
			return corpus.Shard{}, fmt.Errorf("$%s=%q is not a number", jobIndexEnv, jobIndex)
		}
		return corpus.ParseShard(jobIndex + "/" + strconv.Itoa(shards))
	}
	return corpus.Shard{}, nil
}

// maxListBytes bounds what is read of LIST: a line per repository.
const maxListBytes = 256 << 20

// readList reads LIST, at most maxListBytes of it.
func readList(name string) (io.Reader, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxListBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxListBytes {
		return nil, fmt.Errorf("%s: larger than %d bytes", name, maxListBytes)
	}
	return bytes.NewReader(data), nil
}

// corpusError prints err and returns its exit code.
func corpusError(stderr io.Writer, err error) int {
	fmt.Fprintf(stderr, "repoprep: %v\n", err)
	switch {
	case errors.Is(err, corpus.ErrBadOptions), errors.Is(err, pipeline.ErrBadOptions):
		return exitUsage
	case errors.Is(err, snapshot.ErrLocked):
		return exitBusy
	}
	return exitFailed
}

// runCorpusMerge is `repoprep corpus merge [flags] DIR`.
func runCorpusMerge(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("corpus merge", "[flags] DIR", `
Writes DIR/corpus/ from the parts every shard of one sharding left in
DIR/parts/ and the snapshots they published in DIR/repos/: the same bytes
one "repoprep corpus" over the whole LIST writes. Runs no pipeline.`,
		[]exitDoc{
			{exitOK, "written"},
			{exitFailed, "failed: a shard missing or run differently, a snapshot changed since its shard ran; nothing written"},
			{exitUsage, "usage error"},
			{exitRepoFailed, "written, but repositories failed in their shards; manifest.json lists each"},
			{exitBusy, "another process holds the lock on DIR/corpus"},
		})
	var (
		format, progressMode string
		workers              int
		asJSON, quiet        bool
	)
	fs.StringVar(&format, "format", corpus.FormatParquet, "the table's format: parquet, or jsonl (zstd-compressed JSON Lines)")
	fs.doc("format", "", "FORMAT", "")
	fs.IntVar(&workers, "workers", 0, "snapshots read at once")
	fs.doc("workers", "", "N", "one per CPU")
	fs.StringVar(&progressMode, "progress", "auto", "auto (a bar only when stderr is a terminal), always or never")
	fs.doc("progress", "", "MODE", "")
	fs.BoolVar(&asJSON, "json", false, "print manifest.json on stdout at the end")
	fs.doc("json", "", "", "")
	fs.BoolVar(&quiet, "quiet", false, "no progress; only errors on stderr")
	fs.doc("quiet", "q", "", "")
	if code, ok := fs.parse(args, stdout, stderr); !ok {
		return code
	}
	if fs.NArg() != 1 {
		fs.usageError(stderr, fmt.Sprintf("one corpus directory, got %d arguments", fs.NArg()))
		return exitUsage
	}
	opts := corpus.MergeOptions{Dir: fs.Arg(0), Format: format, Workers: workers}
	if !quiet && (progressMode == "always" || progressMode == "auto" && isTerminal(stderr)) {
		opts.Progress = newCorpusProgress(stderr)
	}
	m, err := corpus.Merge(ctx, opts)
	if err != nil {
		return corpusError(stderr, err)
	}
	if asJSON {
		if err := snapshot.EncodeJSON(stdout, m); err != nil {
			fmt.Fprintf(stderr, "repoprep: %v\n", err)
			return exitFailed
		}
	} else if !quiet {
		fmt.Fprintf(stdout, "%d repositories, %d failed; published %s\n", m.Totals.Repos+len(m.Failures), len(m.Failures), filepath.Join(opts.Dir, corpus.CorpusDir))
	}
	for _, f := range m.Failures {
		fmt.Fprintf(stderr, "repoprep: %s: %s\n", f.Name, f.Error)
	}
	if len(m.Failures) > 0 {
		fmt.Fprintf(stderr, "repoprep: %d repositories failed in their shards\n", len(m.Failures))
		return exitRepoFailed
	}
	return exitOK
}

// corpusProgress is the corpus's one bar: repositories done of the total,
// with the files through the per-file loop so far in its description.
// Files comes from every run's workers; the description is redrawn at
// most every tenth of a second.
type corpusProgress struct {
	w     io.Writer
	mu    sync.Mutex
	bar   *progressbar.ProgressBar
	files atomic.Int64
	drawn atomic.Int64 // UnixNano of the last description
}

func newCorpusProgress(w io.Writer) *corpusProgress { return &corpusProgress{w: w} }

func (p *corpusProgress) Start(repos int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.bar = progressbar.NewOptions(repos,
		progressbar.OptionSetWriter(p.w),
		progressbar.OptionSetDescription("repositories"),
		progressbar.OptionShowCount(),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionClearOnFinish(),
	)
}

func (p *corpusProgress) Files(n int) {
	total := p.files.Add(int64(n))
	now := time.Now().UnixNano()
	if last := p.drawn.Load(); now-last < int64(100*time.Millisecond) || !p.drawn.CompareAndSwap(last, now) {
		return
	}
	p.describe(total)
}

func (p *corpusProgress) describe(files int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar != nil {
		p.bar.Describe(fmt.Sprintf("repositories (%d files)", files))
	}
}

func (p *corpusProgress) Repo(string, error) {
	p.describe(p.files.Load())
	p.mu.Lock()
	bar := p.bar
	p.mu.Unlock()
	if bar != nil {
		bar.Add(1)
	}
}

func (p *corpusProgress) Done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar != nil {
		p.bar.Finish()
		p.bar = nil
	}
	io.WriteString(p.w, "\r\033[K")
}
