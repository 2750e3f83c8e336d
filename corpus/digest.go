package corpus

import (
	"cmp"
	"context"
	"encoding/hex"
	"slices"
	"sync/atomic"

	"github.com/zeebo/blake3"
	"golang.org/x/sync/errgroup"

	"github.com/repoprep/repoprep/snapshot"
)

// repoRows is one repository's share of the table before the corpus-wide
// decisions: its staged files in path order with what each row says but
// the content, which is read again when the row is written. It is a
// function of the published snapshot alone, so a shard's and one
// process's are the same.
type repoRows struct {
	name      string
	filesJSON string // hashPrefix and the BLAKE3 of the files.json read
	license   *string
	rows      []rowMeta
}

// rowMeta is a row without its content and its duplicate marks.
type rowMeta struct {
	path, language, category, encoding string
	test                               bool
	bytes                              int64 // of the staged text
	tokens                             int64
	hash                               [32]byte   // BLAKE3 of the staged text
	sig                                *signature // nil: too short for near duplicates
}

// hashPrefix is how files.json writes a hash: "blake3:" and hex.
const hashPrefix = "blake3:"

// digestRepo reads the snapshot at dir: files.json's staged entries and
// every staged text, each checked against its files.json hash and
// sketched, workers at a time. A text that does not match says the
// snapshot changed since it was published, and fails the repository.
// published, when not nil, is the files.json the caller has just
// published there (a whole run's pipeline.Run hands it back), read again
// only by a shard's merge: it is the same model, and the table does not
// need its hash.
func digestRepo(ctx context.Context, dir, name string, workers int, published *snapshot.Manifest) (*repoRows, error) {
	snap, err := snapshot.Open(dir)
	if err != nil {
		return nil, err
	}
	defer snap.Close()
	m := published
	rr := &repoRows{name: name}
	if m == nil {
		var data []byte
		if m, data, err = snap.Manifest(); err != nil {
			return nil, err
		}
		sum := blake3.Sum256(data)
		rr.filesJSON = hashPrefix + hex.EncodeToString(sum[:])
	}
	tree, err := snap.Tree()
	if err != nil {
		return nil, err
	}
	defer tree.Close()
	var staged []*snapshot.Entry
	for i := range m.Files {
		if m.Files[i].Staged {
			staged = append(staged, &m.Files[i])
		}
	}
	slices.SortFunc(staged, func(a, b *snapshot.Entry) int { return cmp.Compare(a.Path, b.Path) })
	rr.rows = make([]rowMeta, len(staged))
	g, gctx := errgroup.WithContext(ctx)
	var next atomic.Int64
	for range max(1, min(workers, len(staged))) {
		g.Go(func() error {
			tx := newTexts(tree)
			defer tx.close()
			var buf []byte // one per worker: a large file's buffer is not cleared anew for each
			for {
				k := int(next.Add(1) - 1)
				if k >= len(staged) || gctx.Err() != nil {
					return gctx.Err()
				}
				e := staged[k]
				text, sum, err := tx.readEntry(e, buf)
				if err != nil {
					return err
				}
				if cap(text) > cap(buf) {
					buf = text
				}
				rr.rows[k] = rowMeta{
					path: e.Path, language: e.Language, category: e.Category, encoding: e.Encoding, test: e.Test,
					bytes: int64(len(text)), tokens: int64(e.Tokens), hash: sum, sig: sketch(text),
				}
			}
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	tx := newTexts(tree)
	defer tx.close()
	rr.license = detectLicense(tx, staged)
	return rr, nil
}
