//go:build windows

package dirfd

import (
	"io/fs"
	"os"
	"path/filepath"
	"sync"
)

// outSys is Out on Windows, the portable fallback: every call takes the
// whole path (the standard library gives long ones the \\?\ prefix).
type outSys struct {
	root string
	made sync.Map // directories made, by path below root: one map lookup instead of a stat
}

// OpenOut opens the existing directory at path as an Out.
func OpenOut(path string) (*Out, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return nil, &fs.PathError{Op: "open", Path: path, Err: fs.ErrInvalid}
	}
	return &Out{outSys{root: filepath.Clean(path)}}, nil
}

// Close holds nothing to close here.
func (o *Out) Close() error { return nil }

func (o *Out) full(rel string) string { return filepath.Join(o.root, filepath.FromSlash(rel)) }

// MkdirAll makes the directory rel and every missing parent.
func (o *Out) MkdirAll(rel string) error {
	if rel == "" {
		return nil
	}
	if _, ok := o.made.Load(rel); ok {
		return nil
	}
	if err := os.MkdirAll(o.full(rel), 0o755); err != nil {
		return err
	}
	o.made.Store(rel, struct{}{})
	return nil
}

// Create creates the file rel, which must not exist, for writing with
// perm, making its missing directories first.
func (o *Out) Create(rel string, perm fs.FileMode) (*os.File, error) {
	dir, _ := splitRel(rel)
	if err := o.MkdirAll(dir); err != nil {
		return nil, err
	}
	return CreatePlain(o.full(rel), perm)
}

// Open opens the file rel for reading.
func (o *Out) Open(rel string) (*os.File, error) { return os.Open(o.full(rel)) }

// Remove removes the file rel.
func (o *Out) Remove(rel string) error { return os.Remove(o.full(rel)) }

// PruneEmpty removes the directories below the root that hold no file,
// deepest first; a directory holding something is never tried.
func (o *Out) PruneEmpty() error {
	o.made.Clear() // what it removes may be wanted again
	_, err := pruneDir(o.root)
	return err
}

// pruneDir removes the empty directories below dir, deepest first, and
// reports whether dir is left empty.
func pruneDir(dir string) (empty bool, err error) {
	f, err := os.Open(dir)
	if err != nil {
		return false, err
	}
	entries, err := f.ReadDir(-1) // in directory order: nothing here needs them sorted
	f.Close()
	if err != nil {
		return false, err
	}
	left := len(entries)
	for _, en := range entries {
		if !en.IsDir() { // the entry's own type: a symlink is never followed
			continue
		}
		sub := filepath.Join(dir, en.Name())
		empty, err := pruneDir(sub)
		if err != nil {
			return false, err
		}
		if empty && os.Remove(sub) == nil {
			left--
		}
	}
	return left == 0, nil
}
