package dirfd

import (
	"io/fs"
	"strings"
)

// Out is a directory tree this process writes (a snapshot's tree/ while
// it is built): directories are made, files created, opened and removed
// by '/'-separated paths below its root, which it may not share with
// anything that writes the same names. Safe for concurrent use.
//
// On Unix every one of those calls names one component relative to its
// directory's descriptor (mkdirat, openat, unlinkat), never a path from
// the root: a file 2,000 directories down costs what one at the top does,
// where a path makes the kernel walk every ancestor again on each call.
// The directories it made are remembered by path, their descriptors kept
// in a Tree's cache (least recently used out) and reopened from their
// parent when needed. A path that would be over the kernel's limit once
// the root's path is put before it is refused (ENAMETOOLONG) as the
// kernel refuses it, so what fits does not depend on how it is opened.
//
// On Windows it is the portable fallback: the same calls on whole paths.
type Out struct {
	outSys
}

// FS is the tree as an fs.FS, for readers of the staged copies (REPO_MAP,
// instructions, previews), opened like Open.
func (o *Out) FS() fs.FS { return outFS{o} }

type outFS struct{ o *Out }

func (f outFS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	file, err := f.o.Open(name)
	if err != nil {
		return nil, err
	}
	return file, nil
}

// splitRel cuts rel into its directory ("" for the root) and last name.
func splitRel(rel string) (dir, name string) {
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		return rel[:i], rel[i+1:]
	}
	return "", rel
}

// typedName is a directory entry's name and whether it is a directory
// (never a symlink to one).
type typedName struct {
	name  string
	isDir bool
}
