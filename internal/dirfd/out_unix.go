//go:build unix

package dirfd

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// outSys is Out on Unix: a Tree over the root for the descriptors, and
// the directories made or reached so far by path.
type outSys struct {
	tree *Tree
	root string   // the path OpenOut was given, cleaned: for messages and the path limit
	dirs sync.Map // '/'-separated path below root -> *Dir, every directory made (or found made)
}

// outMaxOpenDirs bounds the directory descriptors an Out keeps between
// uses: the workers' current directories and their recent parents.
const outMaxOpenDirs = 64

// OpenOut opens the existing directory at path as an Out.
func OpenOut(path string) (*Out, error) {
	root := filepath.Clean(path)
	t, err := Open(root, Options{MaxOpenDirs: outMaxOpenDirs})
	if err != nil {
		return nil, err
	}
	return &Out{outSys{tree: t, root: root}}, nil
}

// Close closes the descriptors Out holds. Files it returned stay open.
func (o *Out) Close() error { return o.tree.Close() }

// full is rel's path from where the process stands, for messages and the
// length the kernel would have checked.
func (o *Out) full(rel string) string {
	if rel == "" {
		return o.root
	}
	return o.root + "/" + rel
}

// fits refuses rel when its path from the root would be over PATH_MAX
// (its terminating NUL included), as opening it by that path would be.
func (o *Out) fits(rel string) error {
	if len(o.root)+1+len(rel) >= unix.PathMax {
		return unix.ENAMETOOLONG
	}
	return nil
}

// pathErr names the whole path in an error (errors recorded per file
// drop an absolute path: stages.cause), whatever the call that failed
// said of it.
func (o *Out) pathErr(op, rel string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return &fs.PathError{Op: op, Path: o.full(rel), Err: err}
}

// at runs call, a system call relative to d's descriptor, with d pinned:
// again after EINTR, and once more after giving back the cached
// descriptors when the process is out of them.
func (o *Out) at(d *Dir, call func(fd int) error) error {
	return d.Do(func(a At) error {
		shed := false
		for {
			err := call(a.fd)
			switch {
			case err == unix.EINTR:
				continue
			case (err == unix.EMFILE || err == unix.ENFILE) && !shed && o.tree.shed():
				shed = true
				continue
			}
			return err
		}
	})
}

// validName refuses what is not one component.
func validName(name string) error {
	if name == "" || name == "." || name == ".." || strings.ContainsRune(name, '/') {
		return unix.EINVAL
	}
	return nil
}

// MkdirAll makes the directory rel and every missing parent, each with
// mkdirat in its parent; a directory that exists (made by another caller
// meanwhile) is taken as it is.
func (o *Out) MkdirAll(rel string) error {
	_, err := o.mkdirAll(rel)
	return err
}

func (o *Out) mkdirAll(rel string) (*Dir, error) {
	if rel == "" {
		return o.tree.root, nil
	}
	if d, ok := o.dirs.Load(rel); ok {
		return d.(*Dir), nil
	}
	if err := o.fits(rel); err != nil {
		return nil, o.pathErr("mkdir", rel, err)
	}
	if strings.HasSuffix(rel, "/") {
		return nil, o.pathErr("mkdir", rel, unix.EINVAL) // an empty last component
	}
	parent, start := o.nearest(rel)
	for start < len(rel) {
		end := strings.IndexByte(rel[start:], '/')
		if end < 0 {
			end = len(rel)
		} else {
			end += start
		}
		name := rel[start:end]
		if err := validName(name); err != nil {
			return nil, o.pathErr("mkdir", rel[:end], err)
		}
		err := o.at(parent, func(fd int) error { return unix.Mkdirat(fd, name, 0o755) })
		if err != nil && !errors.Is(err, unix.EEXIST) {
			return nil, o.pathErr("mkdir", rel[:end], err)
		}
		d, _ := o.dirs.LoadOrStore(rel[:end], parent.Child(name, ID{}))
		parent = d.(*Dir)
		start = end + 1
	}
	return parent, nil
}

// nearest is the deepest directory above rel already known, and where in
// rel the components below it start.
func (o *Out) nearest(rel string) (*Dir, int) {
	for i := len(rel); ; {
		j := strings.LastIndexByte(rel[:i], '/')
		if j < 0 {
			return o.tree.root, 0
		}
		if d, ok := o.dirs.Load(rel[:j]); ok {
			return d.(*Dir), j + 1
		}
		i = j
	}
}

// lookup is the directory rel for reading: the known one, or the chain
// of its components below the nearest known directory (not remembered:
// nothing says they exist).
func (o *Out) lookup(rel string) *Dir {
	if rel == "" {
		return o.tree.root
	}
	if d, ok := o.dirs.Load(rel); ok {
		return d.(*Dir)
	}
	d, start := o.nearest(rel)
	for name := range strings.SplitSeq(rel[start:], "/") {
		d = d.Child(name, ID{})
	}
	return d
}

// Create creates the file rel, which must not exist (O_EXCL; a symlink
// there is refused too), for writing with perm (before the umask), making
// its missing directories first. The file is left out of the runtime's
// poller, as CreatePlain's.
func (o *Out) Create(rel string, perm fs.FileMode) (*os.File, error) {
	fd, err := o.CreateFD(rel, perm)
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), o.full(rel)), nil
}

// CreateFD is Create as a raw descriptor, for callers that copy with
// system calls; the caller closes it.
func (o *Out) CreateFD(rel string, perm fs.FileMode) (int, error) {
	dir, name := splitRel(rel)
	if err := validName(name); err != nil {
		return -1, o.pathErr("open", rel, err)
	}
	d, err := o.mkdirAll(dir)
	if err != nil {
		return -1, err
	}
	if err := o.fits(rel); err != nil {
		return -1, o.pathErr("open", rel, err)
	}
	fd := -1
	err = o.at(d, func(dfd int) (err error) {
		fd, err = unix.Openat(dfd, name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, uint32(perm.Perm()))
		return err
	})
	if err != nil {
		return -1, o.pathErr("open", rel, err)
	}
	return fd, nil
}

// Open opens the file rel for reading (without following a symlink at
// its name); "." is the root itself.
func (o *Out) Open(rel string) (*os.File, error) {
	dir, name := splitRel(rel)
	if rel == "." {
		name = "."
	} else if err := validName(name); err != nil {
		return nil, o.pathErr("open", rel, err)
	}
	fd := -1
	err := o.at(o.lookup(dir), func(dfd int) (err error) {
		fd, err = unix.Openat(dfd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		return err
	})
	if err != nil {
		return nil, o.pathErr("open", rel, err)
	}
	return os.NewFile(uintptr(fd), o.full(rel)), nil
}

// Remove removes the file rel.
func (o *Out) Remove(rel string) error {
	dir, name := splitRel(rel)
	if err := validName(name); err != nil {
		return o.pathErr("remove", rel, err)
	}
	err := o.at(o.lookup(dir), func(fd int) error { return unix.Unlinkat(fd, name, 0) })
	if err != nil {
		return o.pathErr("remove", rel, err)
	}
	return nil
}

// PruneEmpty removes the directories below the root that hold no file,
// symlink or anything else but directories, deepest first; a directory
// holding something is never tried. Each directory is read and removed
// relative to its parent's descriptor. Call it when nothing else writes.
func (o *Out) PruneEmpty() error {
	_, err := o.prune(o.tree.root, "")
	return err
}

// prune empties d (at rel) of its empty directories and reports whether
// it is left empty.
func (o *Out) prune(d *Dir, rel string) (empty bool, err error) {
	var entries []typedName
	err = d.Do(func(a At) error {
		if _, err := unix.Seek(a.fd, 0, 0); err != nil { // a cached descriptor may have been read before
			return o.pathErr("lseek", rel, err)
		}
		entries, err = readDirTypes(a.fd, o.full(rel))
		return err
	})
	if err != nil {
		return false, err
	}
	left := len(entries)
	for _, en := range entries {
		if !en.isDir { // the entry's own type: a symlink is never followed
			continue
		}
		sub := en.name
		if rel != "" {
			sub = rel + "/" + en.name
		}
		child := d.Child(en.name, ID{})
		if known, ok := o.dirs.Load(sub); ok {
			child = known.(*Dir)
		}
		empty, err := o.prune(child, sub)
		if err != nil {
			return false, err
		}
		if !empty {
			continue
		}
		if o.at(d, func(fd int) error { return unix.Unlinkat(fd, en.name, unix.AT_REMOVEDIR) }) == nil {
			o.dirs.Delete(sub)
			left--
		}
	}
	return left == 0, nil
}

// Lstat stats the name rel without following a symlink there.
func (o *Out) Lstat(rel string) (Stat, error) {
	dir, name := splitRel(rel)
	if err := validName(name); err != nil {
		return Stat{}, o.pathErr("fstatat", rel, err)
	}
	var st unix.Stat_t
	err := o.at(o.lookup(dir), func(fd int) error { return unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW) })
	if err != nil {
		return Stat{}, o.pathErr("fstatat", rel, err)
	}
	return statOf(&st), nil
}
