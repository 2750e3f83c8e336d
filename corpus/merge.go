package corpus

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/zeebo/blake3"
	"golang.org/x/sync/errgroup"

	"github.com/repoprep/repoprep/snapshot"
)

// partSchema names a shard's record, DIR/parts/K-of-N/part.json. It is
// between repoprep's own commands (merge refuses any other), not a
// contract for other readers.
const partSchema = "repoprep.corpus-part/v1"

// partFile is the record's name in the shard's directory.
const partFile = "part.json"

// maxPartBytes bounds what merge reads of one record: a name and a status
// per repository of LIST, far below this for a million of them.
const maxPartBytes = 256 << 20

// part is what a shard leaves for merge: which shard of which LIST under
// which options, and what became of each of its repositories.
type part struct {
	Schema  string       `json:"schema"`
	Shard   string       `json:"shard"` // "K/N"
	List    []string     `json:"list"`  // every name of LIST, in order
	Options RunOptions   `json:"options"`
	Repos   []repoStatus `json:"repos"` // the shard's, in LIST order
}

// writePart publishes DIR/parts/K-of-N/ for a shard that has run: the
// record names each repository's files.json by hash, so merge can tell the
// snapshot is still the one this shard published.
func writePart(opts Options, ro RunOptions, results []RepoResult) error {
	p := part{Schema: partSchema, Shard: opts.Shard.String(), Options: ro, Repos: make([]repoStatus, len(results))}
	for _, e := range opts.List {
		p.List = append(p.List, e.Name)
	}
	for k, rr := range results {
		st := repoStatus{Name: rr.Name}
		if rr.Err != nil {
			st.Error = rr.Err.Error()
		} else if h, err := filesJSONHash(repoDir(opts.Dir, rr.Name)); err != nil {
			st.Error = err.Error()
		} else {
			st.FilesJSON = h
		}
		p.Repos[k] = st
	}
	lock, err := snapshot.Acquire(filepath.Join(opts.Dir, PartsDir, opts.Shard.dirName()), opts.Logger)
	if err != nil {
		return err
	}
	defer lock.Release()
	pend, err := lock.Begin()
	if err != nil {
		return err
	}
	defer pend.Discard()
	if err := pend.WriteJSON(partFile, p); err != nil {
		return err
	}
	return pend.Publish()
}

// filesJSONHash is the hash of the snapshot's files.json as read.
func filesJSONHash(dir string) (string, error) {
	snap, err := snapshot.Open(dir)
	if err != nil {
		return "", err
	}
	defer snap.Close()
	_, data, err := snap.Manifest()
	if err != nil {
		return "", err
	}
	sum := blake3.Sum256(data)
	return hashPrefix + hex.EncodeToString(sum[:]), nil
}

// MergeOptions configures one Merge.
type MergeOptions struct {
	Dir      string       // DIR, holding parts/ and repos/
	Format   string       // FormatParquet (default) or FormatJSONL
	Workers  int          // 0 means one per CPU
	Progress Reporter     // nil means silent
	Logger   *slog.Logger // nil means discard
}

// Merge writes DIR/corpus/ from the parts the shards of one sharding left
// (DIR/parts/K-of-N/ for every K of one N) and the snapshots they
// published under DIR/repos/: the same bytes one process over the whole
// LIST writes. It runs no pipeline: it reads the snapshots. It refuses
// parts that disagree (another LIST, other options, a missing shard) and
// a snapshot republished since its shard ran.
func Merge(ctx context.Context, opts MergeOptions) (*Manifest, error) {
	if opts.Dir == "" {
		return nil, badOptions("no corpus directory")
	}
	var err error
	if opts.Format, err = checkFormat(opts.Format); err != nil {
		return nil, err
	}
	if opts.Workers <= 0 {
		opts.Workers = runtime.NumCPU()
	}
	if opts.Progress == nil {
		opts.Progress = nopReporter{}
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	parts, err := readParts(opts.Dir)
	if err != nil {
		return nil, err
	}
	first := parts[0]
	statuses := make([]repoStatus, len(first.List))
	for k, p := range parts {
		if !slices.Equal(p.List, first.List) {
			return nil, fmt.Errorf("%s: shard %s was run on another LIST than shard %s", PartsDir, p.Shard, first.Shard)
		}
		if p.Options != first.Options {
			return nil, fmt.Errorf("%s: shard %s was run with other options than shard %s (%+v, %+v)", PartsDir, p.Shard, first.Shard, p.Options, first.Options)
		}
		want := 0
		for i, name := range p.List {
			if i%len(parts) != k {
				continue
			}
			if want >= len(p.Repos) || p.Repos[want].Name != name {
				return nil, fmt.Errorf("%s: shard %s does not record %s, its repository", PartsDir, p.Shard, name)
			}
			statuses[i] = p.Repos[want]
			want++
		}
		if want != len(p.Repos) {
			return nil, fmt.Errorf("%s: shard %s records repositories that are not its own", PartsDir, p.Shard)
		}
	}
	go licenseScanner()
	defer opts.Progress.Done()
	opts.Progress.Start(len(statuses))
	// The table is written beside the digests, in LIST order as far as
	// they are done (tableRun); the digests start in LIST order to keep
	// it moving.
	table := startTable(ctx, tableInput{
		dir: opts.Dir, format: opts.Format, version: first.Options.Version, options: first.Options,
		statuses: make([]repoStatus, len(statuses)), digests: make([]*repoRows, len(statuses)),
		workers: opts.Workers, logger: opts.Logger,
	})
	defer table.stop()
	jobs, perRepo := budget(opts.Workers, len(statuses))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(jobs)
	for i, st := range statuses {
		if gctx.Err() != nil {
			break
		}
		if st.Error != "" {
			table.done(i, st, nil)
			opts.Progress.Repo(st.Name, errors.New(st.Error))
			continue
		}
		g.Go(func() error {
			rr, err := digestRepo(gctx, repoDir(opts.Dir, st.Name), st.Name, perRepo, nil)
			if err == nil && rr.filesJSON != st.FilesJSON {
				err = fmt.Errorf("%s/%s was published again after its shard ran; rerun the shard", ReposDir, st.Name)
			}
			if err != nil {
				return fmt.Errorf("%s/%s: %w", ReposDir, st.Name, err)
			}
			table.done(i, st, rr)
			opts.Progress.Files(len(rr.rows))
			opts.Progress.Repo(st.Name, nil)
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return table.wait()
}

// readParts reads every DIR/parts/K-of-N/part.json and returns those of
// one sharding in K order, or says what is missing or mixed.
func readParts(dir string) ([]*part, error) {
	entries, err := os.ReadDir(filepath.Join(dir, PartsDir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s has no %s: run the shards first (repoprep corpus LIST -o %s --shard K/N)", dir, PartsDir, dir)
	}
	if err != nil {
		return nil, err
	}
	byN := map[int]map[int]bool{}
	for _, e := range entries {
		k, n, ok := parseDirName(e.Name())
		if !ok || !e.IsDir() {
			continue // the lock and temporary directories beside each part
		}
		if byN[n] == nil {
			byN[n] = map[int]bool{}
		}
		byN[n][k] = true
	}
	switch len(byN) {
	case 0:
		return nil, fmt.Errorf("%s holds no part: run the shards first", filepath.Join(dir, PartsDir))
	case 1:
	default:
		var ns []string
		for n := range byN {
			ns = append(ns, strconv.Itoa(n))
		}
		slices.Sort(ns)
		return nil, fmt.Errorf("%s holds parts of %s shards: remove those of the sharding you do not merge", filepath.Join(dir, PartsDir), strings.Join(ns, " and "))
	}
	var n int
	for n = range byN {
	}
	parts := make([]*part, n)
	for k := range n {
		sh := Shard{K: k, N: n}
		if !byN[n][k] {
			return nil, fmt.Errorf("%s: shard %s has not run (no %s)", PartsDir, sh, sh.dirName())
		}
		p, err := readPart(filepath.Join(dir, PartsDir, sh.dirName()))
		if err != nil {
			return nil, err
		}
		if p.Shard != sh.String() {
			return nil, fmt.Errorf("%s/%s records shard %q", PartsDir, sh.dirName(), p.Shard)
		}
		parts[k] = p
	}
	return parts, nil
}

// parseDirName reads "K-of-N".
func parseDirName(name string) (k, n int, ok bool) {
	ks, ns, found := strings.Cut(name, "-of-")
	if !found {
		return 0, 0, false
	}
	var err1, err2 error
	k, err1 = strconv.Atoi(ks)
	n, err2 = strconv.Atoi(ns)
	sh := Shard{K: k, N: n}
	return k, n, err1 == nil && err2 == nil && sh.check() == nil && sh.dirName() == name
}

// readPart reads one shard's record, strictly.
func readPart(dir string) (*part, error) {
	f, err := os.Open(filepath.Join(dir, partFile))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxPartBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxPartBytes {
		return nil, fmt.Errorf("%s: larger than %d bytes", f.Name(), maxPartBytes)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var p part
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("%s: %w", f.Name(), err)
	}
	if err := snapshot.CheckEnd(dec); err != nil {
		return nil, fmt.Errorf("%s: %w", f.Name(), err)
	}
	if p.Schema != partSchema {
		return nil, fmt.Errorf("%s: schema %q, want %q", f.Name(), p.Schema, partSchema)
	}
	return &p, nil
}
