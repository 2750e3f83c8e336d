package corpus

import (
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path"
	"strings"

	"github.com/zeebo/blake3"

	"github.com/repoprep/repoprep/snapshot"
)

// maxOpenDirs bounds the directories a texts keeps open: enough for the
// few a run of path-ordered copies moves between ("a/b.go", "a/b/c.go",
// "a/d.go"), and one descriptor per worker and directory at most.
const maxOpenDirs = 8

// texts reads the staged copies of one snapshot's tree/ with their
// directories kept open. snapshot.OpenStaged through the tree's root
// resolves a path a component at a time, an open and a close per
// directory on the way, once for its Lstat and once for its open: for
// copies four directories down, 20 system calls a copy where opening
// the last component in its directory, already open, takes 6; on this
// machine's virtualised system calls that was a quarter of the table's
// CPU time. The directories are opened through the tree's root (no name
// leaves it) and each copy through its directory's with the same checks
// as snapshot.OpenStaged. Not safe for concurrent use: one per worker.
type texts struct {
	tree *os.Root
	dirs [maxOpenDirs]openDir // the directories open, any order
	next int                  // the slot the next directory takes
}

type openDir struct {
	name string // "" with root nil: the slot is free
	root *os.Root
}

func newTexts(tree *os.Root) *texts { return &texts{tree: tree} }

// close closes every directory open; the tree is the caller's.
func (t *texts) close() {
	for i := range t.dirs {
		if t.dirs[i].root != nil {
			t.dirs[i].root.Close()
		}
		t.dirs[i] = openDir{}
	}
}

// dir is the open directory name ("." for tree/ itself).
func (t *texts) dir(name string) (*os.Root, error) {
	if name == "." {
		return t.tree, nil
	}
	for i := range t.dirs {
		if t.dirs[i].root != nil && t.dirs[i].name == name {
			return t.dirs[i].root, nil
		}
	}
	r, err := t.tree.OpenRoot(name)
	if err != nil {
		return nil, err
	}
	slot := &t.dirs[t.next]
	if slot.root != nil {
		slot.root.Close()
	}
	*slot = openDir{name: name, root: r}
	t.next = (t.next + 1) % maxOpenDirs
	return r, nil
}

// read reads the staged copy rel into buf when it is large enough (else
// into a new slice) and returns it with its BLAKE3. It reads at most the
// size the copy had when opened, and one byte more to see it grow, which
// the caller's hash check then refuses.
func (t *texts) read(rel string, buf []byte) (text []byte, sum [32]byte, err error) {
	d, err := t.dir(path.Dir(rel))
	if err == nil {
		text, err = readStaged(d, path.Base(rel), buf)
	}
	if err != nil {
		return nil, sum, fmt.Errorf("%s/%s: %w", snapshot.TreeDir, rel, err)
	}
	return text, blake3.Sum256(text), nil
}

// readStaged is one open of snapshot.OpenStaged's and the read.
func readStaged(dir *os.Root, name string, buf []byte) ([]byte, error) {
	f, fi, err := snapshot.OpenStaged(dir, name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var text []byte
	if int64(cap(buf)) > fi.Size() {
		text = buf[: 0 : fi.Size()+1]
	} else {
		text = make([]byte, 0, fi.Size()+1)
	}
	for {
		n, err := f.Read(text[len(text):cap(text)])
		text = text[:len(text)+n]
		if err == io.EOF || len(text) == cap(text) {
			return text, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// readEntry reads e's staged copy and checks it against files.json: its
// hash and length. A copy that does not match says the snapshot changed
// since it was published.
func (t *texts) readEntry(e *snapshot.Entry, buf []byte) (text []byte, sum [32]byte, err error) {
	text, sum, err = t.read(e.Path, buf)
	if err != nil {
		return nil, sum, err
	}
	if want, ok := strings.CutPrefix(e.Hash, hashPrefix); !ok || hex.EncodeToString(sum[:]) != want {
		return nil, sum, fmt.Errorf("%s/%s does not match %s (changed since it was published; see repoprep verify)", snapshot.TreeDir, e.Path, snapshot.FilesJSON)
	}
	return text, sum, nil
}
