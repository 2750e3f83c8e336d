package corpus

import (
	"cmp"
	"context"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
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
func digestRepo(ctx context.Context, dir, name string, workers int) (*repoRows, error) {
	snap, err := snapshot.Open(dir)
	if err != nil {
		return nil, err
	}
	defer snap.Close()
	m, data, err := snap.Manifest()
	if err != nil {
		return nil, err
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
	sum := blake3.Sum256(data)
	rr := &repoRows{name: name, filesJSON: hashPrefix + hex.EncodeToString(sum[:]), rows: make([]rowMeta, len(staged))}
	g, gctx := errgroup.WithContext(ctx)
	var next atomic.Int64
	for range max(1, min(workers, len(staged))) {
		g.Go(func() error {
			var buf []byte // one per worker: a large file's buffer is not cleared anew for each
			for {
				k := int(next.Add(1) - 1)
				if k >= len(staged) || gctx.Err() != nil {
					return gctx.Err()
				}
				e := staged[k]
				text, sum, err := readText(tree, e, buf)
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
	rr.license = detectLicense(tree, staged)
	return rr, nil
}

// readText reads e's staged text through tree (snapshot.OpenStaged: no
// link leads out, nothing planted is followed) and checks it against e's
// hash. It reads at most the size the file had when opened, and one byte
// more to see it grow, into buf when it is large enough.
func readText(tree *os.Root, e *snapshot.Entry, buf []byte) (text []byte, sum [32]byte, err error) {
	f, fi, err := snapshot.OpenStaged(tree, e.Path)
	if err != nil {
		return nil, sum, fmt.Errorf("%s/%s: %w", snapshot.TreeDir, e.Path, err)
	}
	defer f.Close()
	if int64(cap(buf)) > fi.Size() {
		text = buf[: 0 : fi.Size()+1]
	} else {
		text = make([]byte, 0, fi.Size()+1)
	}
	for {
		n, err := f.Read(text[len(text):cap(text)])
		text = text[:len(text)+n]
		if err == io.EOF || len(text) == cap(text) {
			break
		}
		if err != nil {
			return nil, sum, err
		}
	}
	want, ok := strings.CutPrefix(e.Hash, hashPrefix)
	sum = blake3.Sum256(text)
	if !ok || int64(len(text)) != fi.Size() || hex.EncodeToString(sum[:]) != want {
		return nil, sum, fmt.Errorf("%s/%s does not match %s (changed since it was published; see repoprep verify)", snapshot.TreeDir, e.Path, snapshot.FilesJSON)
	}
	return text, sum, nil
}
