package corpus

import (
	"context"
	"encoding/hex"
	"fmt"
	"log/slog"
	"path/filepath"

	"github.com/repoprep/repoprep/snapshot"
)

// Row is one staged file of the corpus: a row of the Parquet table and a
// line of the JSON Lines, with the fields docs/corpus.md lists.
type Row struct {
	Repo            string  `parquet:"repo,dict" json:"repo"`
	Path            string  `parquet:"path" json:"path"`
	Language        string  `parquet:"language,dict" json:"language"`
	Category        string  `parquet:"category,dict" json:"category"`
	Test            bool    `parquet:"test" json:"test"`
	Encoding        string  `parquet:"encoding,dict" json:"encoding"`
	Bytes           int64   `parquet:"bytes" json:"bytes"`
	Tokens          int64   `parquet:"tokens" json:"tokens"`
	Hash            string  `parquet:"hash" json:"hash"`
	Content         string  `parquet:"content" json:"content"`
	DuplicateOf     *string `parquet:"duplicate_of,optional" json:"duplicate_of"`
	NearDuplicateOf *string `parquet:"near_duplicate_of,optional" json:"near_duplicate_of"`
	License         *string `parquet:"license,optional,dict" json:"license"`
}

// repoStatus is what became of one repository of LIST, as a part records
// it: its name, and either its error or the BLAKE3 of the files.json it
// published (so merge can tell the snapshot is the one the shard made).
type repoStatus struct {
	Name      string `json:"name"`
	Error     string `json:"error,omitempty"`
	FilesJSON string `json:"files_json,omitempty"`
}

// tableInput is everything the table is a function of.
type tableInput struct {
	dir, format, version string
	options              RunOptions
	statuses             []repoStatus // every repository of LIST, in order
	digests              []*repoRows  // the same order; nil where the repository failed
	// ready, when not nil, says when statuses[i] and digests[i] are set:
	// ready[i] is closed then. The table is written in LIST order as far
	// as the repositories are ready, while the rest still build (see
	// writeTable); nil means all are set.
	ready   []chan struct{}
	workers int
	logger  *slog.Logger
}

// wait waits until repository i of LIST is ready.
func (in *tableInput) wait(ctx context.Context, i int) error {
	if in.ready == nil {
		return ctx.Err()
	}
	select {
	case <-in.ready[i]:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// marks are a repository's rows' duplicate marks, by row.
type marks struct {
	dup, near []*string // NAME/path of the first copy; nil for none
}

// decider marks exact and near duplicates across the corpus, one
// repository at a time in LIST order, then path order: a text is an exact
// duplicate of its first copy by hash; a text that is not is compared
// with the near-duplicate index. A repository's marks depend on it and
// the repositories before it in LIST, never after, which is what lets the
// table be written while later repositories still build. Empty texts are
// never duplicates, as in a snapshot (twenty empty __init__.py files are
// not one file).
type decider struct {
	first map[[32]byte]*string
	near  *nearIndex
}

func newDecider() *decider { return &decider{first: map[[32]byte]*string{}, near: newNearIndex()} }

// repo marks rr's rows, the next repository of LIST that did not fail.
func (d *decider) repo(rr *repoRows) marks {
	out := marks{dup: make([]*string, len(rr.rows)), near: make([]*string, len(rr.rows))}
	for k := range rr.rows {
		row := &rr.rows[k]
		if row.bytes == 0 {
			continue
		}
		if c, ok := d.first[row.hash]; ok {
			out.dup[k] = c
			continue
		}
		name := rr.name + "/" + row.path
		d.first[row.hash] = &name
		if row.sig == nil {
			continue
		}
		if rep := d.near.add(row.sig, name); rep != "" {
			out.near[k] = &rep
		}
	}
	return out
}

// writeTable writes every row with its content (read again from the
// snapshots and checked against the digest) and the manifest into a
// pending DIR/corpus, in LIST order, deciding each repository's
// duplicates as it comes to it, and publishes it atomically: a reader
// sees the previous table or the new one. With in.ready it writes each
// repository as soon as it and all before it are ready, so most of the
// table is written while the last repositories build, and what is left
// at the end is theirs.
func writeTable(ctx context.Context, in tableInput) (*Manifest, error) {
	lock, err := snapshot.Acquire(filepath.Join(in.dir, CorpusDir), in.logger)
	if err != nil {
		return nil, err
	}
	defer lock.Release()
	pend, err := lock.Begin()
	if err != nil {
		return nil, err
	}
	defer pend.Discard()
	m := &Manifest{
		Schema: ManifestSchema, Format: in.format, Options: in.options, NearDuplicates: params(),
		Repos: []RepoSummary{}, Failures: []Failure{},
	}
	tw := newTableWriter(pend.Dir(), in.format, in.version)
	defer tw.abort()
	dec := newDecider()
	for i := range in.statuses {
		if err := in.wait(ctx, i); err != nil {
			return nil, err
		}
		st, rr := in.statuses[i], in.digests[i]
		if st.Error != "" || rr == nil {
			m.Failures = append(m.Failures, Failure{Name: st.Name, Error: st.Error})
			continue
		}
		sum := RepoSummary{Name: rr.name, License: rr.license}
		if err := writeRepo(ctx, tw, repoDir(in.dir, rr.name), rr, dec.repo(rr), &sum); err != nil {
			return nil, fmt.Errorf("%s %s: %w", ReposDir, rr.name, err)
		}
		m.Repos = append(m.Repos, sum)
		m.Totals.Repos++
		m.Totals.Files += sum.Files
		m.Totals.Bytes += sum.Bytes
		m.Totals.Tokens += sum.Tokens
		m.Totals.Duplicates += sum.Duplicates
		m.Totals.NearDuplicates += sum.NearDuplicates
	}
	if m.Parts, err = tw.close(); err != nil {
		return nil, err
	}
	if err := pend.WriteJSON(ManifestFile, m); err != nil {
		return nil, err
	}
	if err := pend.Publish(); err != nil {
		return nil, err
	}
	return m, nil
}

// writeRepo writes one repository's rows. Each text is read again, into
// the writer's arena (no copy of it is made for the row), and must be the
// one the digest read: files.json is not read again, since a copy that
// changed in between fails its hash either way.
func writeRepo(ctx context.Context, tw *tableWriter, dir string, rr *repoRows, mk marks, sum *RepoSummary) error {
	snap, err := snapshot.Open(dir)
	if err != nil {
		return err
	}
	defer snap.Close()
	tree, err := snap.Tree()
	if err != nil {
		return err
	}
	defer tree.Close()
	tx := newTexts(tree)
	defer tx.close()
	for k := range rr.rows {
		if err := ctx.Err(); err != nil {
			return err
		}
		meta := &rr.rows[k]
		text, hash, err := tx.read(meta.path, tw.space(meta.bytes))
		if err != nil {
			return err
		}
		if hash != meta.hash {
			return fmt.Errorf("%s/%s changed while the table was written", snapshot.TreeDir, meta.path)
		}
		row := Row{
			Repo: rr.name, Path: meta.path, Language: meta.language, Category: meta.category, Test: meta.test,
			Encoding: meta.encoding, Bytes: meta.bytes, Tokens: meta.tokens, Hash: hex.EncodeToString(hash[:]),
			Content: tw.content(text), DuplicateOf: mk.dup[k], NearDuplicateOf: mk.near[k], License: rr.license,
		}
		if err := tw.write(&row); err != nil {
			return err
		}
		sum.Files++
		sum.Bytes += meta.bytes
		sum.Tokens += meta.tokens
		if row.DuplicateOf != nil {
			sum.Duplicates++
		}
		if row.NearDuplicateOf != nil {
			sum.NearDuplicates++
		}
	}
	return nil
}
