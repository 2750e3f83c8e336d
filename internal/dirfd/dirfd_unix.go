//go:build unix

package dirfd

import (
	"errors"
	"io/fs"
	"os"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// handle is an open descriptor.
type handle = int

const noHandle handle = -1

func closeHandle(fd handle) error { return unix.Close(fd) }

// IDOf is the identity in a stat result.
func IDOf(st *unix.Stat_t) ID { return ID{Dev: uint64(st.Dev), Ino: st.Ino} }

// statOf is the portable part of a stat result.
func statOf(st *unix.Stat_t) Stat {
	var typ fs.FileMode
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFREG:
	case unix.S_IFDIR:
		typ = fs.ModeDir
	case unix.S_IFLNK:
		typ = fs.ModeSymlink
	case unix.S_IFIFO:
		typ = fs.ModeNamedPipe
	case unix.S_IFSOCK:
		typ = fs.ModeSocket
	case unix.S_IFBLK:
		typ = fs.ModeDevice
	case unix.S_IFCHR:
		typ = fs.ModeDevice | fs.ModeCharDevice
	default:
		typ = fs.ModeIrregular
	}
	return Stat{Type: typ, Size: st.Size, ID: IDOf(st), MtimeNs: st.Mtim.Nano(), CtimeNs: st.Ctim.Nano()}
}

// Lstat stats the file at path without following a final symlink, for
// callers outside a Tree (the lock, the publication).
func Lstat(path string) (Stat, error) {
	var st unix.Stat_t
	for {
		err := unix.Lstat(path, &st)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return Stat{}, &fs.PathError{Op: "lstat", Path: path, Err: err}
		}
		return statOf(&st), nil
	}
}

// IsResource reports a failure of the machine rather than of one file: out
// of descriptors (EMFILE, ENFILE), memory (ENOMEM, ENOBUFS) or space
// (ENOSPC, EDQUOT), or an I/O error (EIO). A caller that recorded such a
// failure as a per-file problem would publish an incomplete snapshot as if
// it were whole.
func IsResource(err error) bool {
	for _, e := range []unix.Errno{unix.EMFILE, unix.ENFILE, unix.ENOMEM, unix.ENOBUFS, unix.ENOSPC, unix.EDQUOT, unix.EIO} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// treeSys is what a Tree's opens need on Unix: what the kernel offers
// (openat2, on Linux) and the ATimeRefused callback, called once.
type treeSys struct {
	kernel    kernelSys
	onATime   func()
	atimeOnce sync.Once
}

// openRoot opens the tree's top directory and learns what the kernel
// offers.
func (t *Tree) openRoot(path string, opts Options) (handle, ID, error) {
	fd, err := openNoATime(func(flags int) (int, error) {
		return unix.Open(path, flags|unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	}, nil)
	if err != nil {
		return noHandle, ID{}, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	id, err := fstatID(fd)
	if err != nil {
		unix.Close(fd)
		return noHandle, ID{}, &fs.PathError{Op: "fstat", Path: path, Err: err}
	}
	t.sys.kernel = probe(fd)
	t.sys.onATime = opts.ATimeRefused
	return fd, id, nil
}

// fstatID is the identity of an open descriptor.
func fstatID(fd handle) (ID, error) {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return ID{}, err
	}
	return IDOf(&st), nil
}

// openDir opens the subdirectory name of the directory at pfd.
func (t *Tree) openDir(pfd handle, name string) (handle, error) {
	return t.openat(pfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC)
}

// walksPaths reports whether the kernel opens a path of several
// components beneath a descriptor without following any symlink on the
// way (openat2 with RESOLVE_NO_SYMLINKS): then a directory's evicted
// ancestors are walked in a few opens (Dir.acquire).
func (t *Tree) walksPaths() bool { return t.sys.kernel.walksPaths() }

// openDirPath opens the directory at names, components below pfd, in one
// open; only where walksPaths.
func (t *Tree) openDirPath(pfd handle, names []string) (handle, error) {
	for _, name := range names {
		if !isComponent(name) {
			return -1, unix.EINVAL
		}
	}
	return t.openatPath(pfd, strings.Join(names, "/"), unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC)
}

// isComponent reports a name that is one component: not empty, "." or
// "..", and without '/'.
func isComponent(name string) bool {
	return name != "" && name != "." && name != ".." && !strings.ContainsRune(name, '/')
}

// openat opens one component below pfd without following a symlink and
// without moving its access time where the kernel allows it; when the
// process is out of descriptors it gives back the cached ones and tries
// once more.
func (t *Tree) openat(pfd handle, name string, flags int) (handle, error) {
	if !isComponent(name) {
		return -1, unix.EINVAL // a component, never a path
	}
	return t.openatPath(pfd, name, flags)
}

// openatPath is openat for a path the caller checked: one component, or
// several where walksPaths.
func (t *Tree) openatPath(pfd handle, name string, flags int) (handle, error) {
	open := func(noATime int) (int, error) {
		return t.sys.kernel.openat(pfd, name, flags|noATime|unix.O_NOFOLLOW|unix.O_NOCTTY)
	}
	fd, err := openNoATime(open, t.atimeRefused)
	if (err == unix.EMFILE || err == unix.ENFILE) && t.shed() {
		fd, err = openNoATime(open, t.atimeRefused)
	}
	if err == nil && oNoATime == 0 {
		// The platform has no O_NOATIME: every open may move an atime.
		// Counted, not announced: it is the platform's rule, documented,
		// not a refusal to tell the user about.
		t.atimeMoved.Add(1)
	}
	return fd, err
}

func (t *Tree) atimeRefused() {
	t.atimeMoved.Add(1)
	if t.sys.onATime != nil {
		t.sys.atimeOnce.Do(t.sys.onATime)
	}
}

// openNoATime opens with O_NOATIME and, when the kernel refuses it (EPERM:
// not the file's owner), without, telling refused. open gets the flag to
// add, O_NOATIME or 0. Where the platform has no O_NOATIME it opens once.
func openNoATime(open func(noATime int) (int, error), refused func()) (int, error) {
	for {
		fd, err := open(oNoATime)
		if err == unix.EINTR {
			continue
		}
		if err != unix.EPERM || oNoATime == 0 {
			return fd, err
		}
		for {
			fd, err = open(0)
			if err != unix.EINTR {
				break
			}
		}
		if err == nil && refused != nil {
			refused()
		}
		return fd, err
	}
}

// ReadDir returns the names in the directory, without "." and "..".
func (a At) ReadDir() ([]string, error) {
	if _, err := unix.Seek(a.fd, 0, 0); err != nil { // a cached descriptor may have been read before
		return nil, &fs.PathError{Op: "lseek", Path: a.d.name, Err: err}
	}
	return readDirFD(a.fd, a.d.name)
}

// Lstat stats name without following a symlink.
func (a At) Lstat(name string) (Stat, error) {
	var st unix.Stat_t
	for {
		err := unix.Fstatat(a.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return Stat{}, &fs.PathError{Op: "fstatat", Path: name, Err: err}
		}
		return statOf(&st), nil
	}
}

// Readlink returns the target of the symlink name, as written.
func (a At) Readlink(name string) (string, error) {
	for size := 256; ; size *= 2 {
		buf := make([]byte, size)
		n, err := unix.Readlinkat(a.fd, name, buf)
		if err != nil {
			return "", &fs.PathError{Op: "readlinkat", Path: name, Err: err}
		}
		if n < size {
			return string(buf[:n]), nil
		}
	}
}

func (t *Tree) openFileAt(pfd handle, name string, want ID) (*os.File, error) {
	fd, err := t.openat(pfd, name, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC)
	if err == unix.ELOOP {
		// O_NOFOLLOW (or RESOLVE_NO_SYMLINKS) refused a symlink at a name
		// the caller knew as a file.
		return nil, &fs.PathError{Op: "openat", Path: name, Err: errSymlink}
	}
	if err != nil {
		return nil, &fs.PathError{Op: "openat", Path: name, Err: err}
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return nil, &fs.PathError{Op: "fstat", Path: name, Err: err}
	}
	switch {
	case st.Mode&unix.S_IFMT != unix.S_IFREG:
		unix.Close(fd)
		return nil, &fs.PathError{Op: "open", Path: name, Err: ErrNotRegular}
	case !want.IsZero() && IDOf(&st) != want:
		unix.Close(fd)
		return nil, &fs.PathError{Op: "open", Path: name, Err: ErrReplaced}
	}
	flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
	if err == nil {
		_, err = unix.FcntlInt(uintptr(fd), unix.F_SETFL, flags&^unix.O_NONBLOCK)
	}
	if err != nil {
		unix.Close(fd)
		return nil, &fs.PathError{Op: "fcntl", Path: name, Err: err}
	}
	return os.NewFile(uintptr(fd), name), nil
}
