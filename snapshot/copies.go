package snapshot

import (
	"os"
	"path/filepath"

	"github.com/repoprep/repoprep/internal/dirfd"
)

// Copies reads a published snapshot's staged copies by their paths in
// tree/, as a refresh copies them into the next snapshot: never through a
// symlink or "..", never waiting on a FIFO, only regular files, and
// without moving access times (the snapshot is ours), so a refresh that
// fails leaves the previous snapshot exactly as it was. Safe for
// concurrent use.
type Copies struct {
	tree *dirfd.Tree // tree/, walked one component at a time
	dir  *os.File    // the same directory, for one openat2 per file where the kernel has it
	fast *fastOpen   // the platform's one-call open beneath dir (copies_linux.go); nil: none
}

// Copies opens s's tree/ for reading its staged copies. The walk keeps a
// few directory descriptors open (the scan of the source keeps more).
func (s *Snapshot) Copies() (*Copies, error) {
	tree, err := dirfd.Open(filepath.Join(s.dir, TreeDir), dirfd.Options{MaxOpenDirs: 16})
	if err != nil {
		return nil, err
	}
	c := &Copies{tree: tree}
	if dir, err := os.Open(filepath.Join(s.dir, TreeDir)); err == nil {
		c.dir = dir // without it every open walks with dirfd
		c.fast = newFastOpen(dir)
	}
	return c, nil
}

// Open opens the staged copy at rel (slash-separated, in tree/): in one
// openat2 where the kernel has it, else one component at a time.
func (c *Copies) Open(rel string) (*os.File, error) {
	if f, ok, err := c.fast.open(rel); ok {
		return f, err
	}
	return c.tree.OpenPath(rel)
}

// Close releases the tree's descriptors.
func (c *Copies) Close() error {
	if c.dir != nil {
		c.dir.Close()
	}
	return c.tree.Close()
}
