// Package dirfd reads a directory tree through open directory descriptors.
// Every open names one component relative to its parent directory's
// descriptor, never a path from the root, so an open costs the same at
// depth 10,000 as at depth 1; no symlink is ever followed; and a directory
// or file that is not the one first seen (another device/inode) is refused.
//
// How each platform keeps those promises:
//
//   - Linux: openat2 with RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS where the
//     kernel has it (O_NOFOLLOW on a single component otherwise), O_NOATIME
//     where the kernel grants it, getdents on the descriptor.
//   - other Unix (macOS): openat with O_NOFOLLOW on a single component, no
//     O_NOATIME (reading a file may move its access time), the directory
//     read through a duplicate of its descriptor. Building with the tag
//     repoprep_portable gives Linux this code too, so its tests run there.
//   - Windows: NtCreateFile relative to the parent directory's handle with
//     OBJ_DONT_REPARSE (no symlink, junction or other reparse point is
//     followed), identity from the volume serial number and file index.
//
// Directory descriptors are cached, least recently used first out, up to a
// bound, and reopened from their nearest open ancestor on demand: a deep
// or wide tree never holds more than that bound plus one descriptor per
// caller at work. Where openat2 refuses every symlink on the way (Linux),
// a reopen walks several components in one call, halving what is left at
// each (Dir.acquire), so a directory 2,000 levels down whose ancestors
// were evicted costs a dozen opens, not 2,000; a directory it opens is
// still checked to be the one first seen.
//
// Out is the same machinery for a tree this process writes: directories
// made and files created, opened and removed relative to their parent's
// descriptor.
package dirfd

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"sync"
	"sync/atomic"
)

// ID is a file's identity: device and inode. Two paths with the same ID
// name the same file; a path whose ID changed names another one.
type ID struct{ Dev, Ino uint64 }

// IsZero reports an identity that was never recorded.
func (id ID) IsZero() bool { return id == ID{} }

// Stat is what a caller learns of a name without opening it: its type, its
// size, its identity and its modification and change times.
type Stat struct {
	// Type holds only the type bits of fs.FileMode: 0 for a regular file,
	// fs.ModeDir, fs.ModeSymlink (on Windows also a junction or any other
	// name-surrogate reparse point), fs.ModeNamedPipe, fs.ModeSocket,
	// fs.ModeDevice, fs.ModeCharDevice, fs.ModeIrregular.
	Type fs.FileMode
	Size int64
	ID   ID
	// MtimeNs and CtimeNs are the modification and status-change times in
	// nanoseconds since the epoch (a refresh tells an unchanged file by
	// them). Windows has no change time: CtimeNs is the last write's.
	MtimeNs, CtimeNs int64
}

// IsDir reports a directory (never a symlink to one).
func (st Stat) IsDir() bool { return st.Type == fs.ModeDir }

// IsRegular reports a regular file.
func (st Stat) IsRegular() bool { return st.Type == 0 }

// IsSymlink reports a symlink (on Windows, any name surrogate).
func (st Stat) IsSymlink() bool { return st.Type == fs.ModeSymlink }

var (
	// ErrNotRegular means a file expected to be regular is now something
	// else (swapped for a FIFO, a directory, a device).
	ErrNotRegular = errors.New("no longer a regular file")
	// ErrReplaced means the name now holds another file or directory than
	// the one first seen.
	ErrReplaced = errors.New("replaced by another file since the scan")
)

// errSymlink is ErrReplaced for a name that now holds a symlink.
var errSymlink = fmt.Errorf("%w: now a symlink, not followed", ErrReplaced)

// Options configures a Tree.
type Options struct {
	// MaxOpenDirs bounds the directory descriptors kept open between uses;
	// 0 means 64. Descriptors in use are never closed under their user.
	MaxOpenDirs int
	// ATimeRefused is called once, the first time the kernel refuses
	// O_NOATIME (the caller does not own the file and is not root): that
	// open, and later ones like it, move the file's access time. Where
	// there is no O_NOATIME to refuse (KeepsATime false) it is never
	// called, and ATimeMoved counts every open.
	ATimeRefused func()
}

// Tree is an open directory and the directories below it that callers
// have reached. Safe for concurrent use.
type Tree struct {
	root *Dir
	max  int
	sys  treeSys // what the platform's opens need (Unix: openat2 or not, the ATimeRefused callback)

	mu         sync.Mutex
	open       int  // descriptors held, root excluded
	idle       list // open descriptors nobody uses, most recent first
	closed     bool
	atimeMoved atomic.Int64
	// dirOpens and dirNames count the directory opens below the root and
	// the components they walked: what the tests of deep trees hold to.
	dirOpens, dirNames atomic.Int64
}

// Dir is one directory of a Tree. It stays valid (and reopenable) while the
// Tree is open, whether or not its descriptor is cached.
type Dir struct {
	tree   *Tree
	parent *Dir
	name   string // component within parent; "" for the root
	id     ID

	fd         handle // noHandle while not open; guarded by tree.mu
	pins       int    // callers using fd; guarded by tree.mu
	prev, next *Dir
}

// Open opens the directory at path (symlinks in path are followed: it is
// what the user named) as the root of a Tree.
func Open(path string, opts Options) (*Tree, error) {
	t := &Tree{max: opts.MaxOpenDirs}
	if t.max <= 0 {
		t.max = 64
	}
	fd, id, err := t.openRoot(path, opts)
	if err != nil {
		return nil, err
	}
	t.root = &Dir{tree: t, fd: fd, id: id}
	return t, nil
}

// Root is the tree's top directory.
func (t *Tree) Root() *Dir { return t.root }

// ATimeMoved is how many opens could not use O_NOATIME.
func (t *Tree) ATimeMoved() int64 { return t.atimeMoved.Load() }

// Close closes every cached descriptor and the root. Dirs must not be used
// afterwards.
func (t *Tree) Close() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return nil
	}
	t.closed = true
	for d := t.idle.head; d != nil; d = d.next {
		closeHandle(d.fd)
		d.fd = noHandle
	}
	t.idle = list{}
	return closeHandle(t.root.fd)
}

// Child is the subdirectory name of d whose identity the caller saw (from
// Lstat); it is opened when first used, and refused if name then holds
// another directory. A zero id skips the check.
func (d *Dir) Child(name string, id ID) *Dir {
	return &Dir{tree: d.tree, parent: d, name: name, id: id, fd: noHandle}
}

// Parent is the directory holding d, nil for the root.
func (d *Dir) Parent() *Dir { return d.parent }

// Name is d's name in its parent ("" for the root).
func (d *Dir) Name() string { return d.name }

// ID is d's identity as the caller saw it.
func (d *Dir) ID() ID { return d.id }

// Path is d's path from the root with '/' separators ("" for the root).
// It costs d's depth; callers that need it often should keep it.
func (d *Dir) Path() string {
	var parts []string
	for x := d; x.parent != nil; x = x.parent {
		parts = append(parts, x.name)
	}
	for i, j := 0, len(parts)-1; i < j; i, j = i+1, j-1 {
		parts[i], parts[j] = parts[j], parts[i]
	}
	return strings.Join(parts, "/")
}

// acquire returns d's descriptor, opening it (and, if they were evicted,
// its parents) when needed, and pins it until release.
//
// The directories between d and its nearest open ancestor are opened from
// that ancestor downward. Where the kernel resolves a path beneath a
// descriptor without following symlinks (Linux's openat2), each open
// walks half of what is left (a gap of 1,000 directories costs ten opens,
// at 500, 750, 875... below the ancestor), and every directory it opens
// stays cached: a caller that goes through a deep chain in any order
// (upward, or at random, as a map's order is) finds a near ancestor open,
// where opening one component at a time would cost the whole gap in
// system calls at each miss. Elsewhere each open is one component.
func (d *Dir) acquire() (handle, error) {
	t := d.tree
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return noHandle, fs.ErrClosed
	}
	if d.fd != noHandle {
		t.pinLocked(d)
		t.mu.Unlock()
		return d.fd, nil
	}
	// missing is d and its ancestors up to the nearest open one (the root
	// always is), deepest first.
	missing := []*Dir{d}
	a := d.parent
	for a.fd == noHandle {
		missing = append(missing, a)
		a = a.parent
	}
	t.pinLocked(a)
	t.mu.Unlock()

	cur := a
	for len(missing) > 0 {
		step := 1
		if len(missing) > 1 && t.walksPaths() {
			step = (len(missing) + 1) / 2
			for step > 1 && pathBytes(missing[len(missing)-step:]) > maxWalkBytes {
				step /= 2 // a path the kernel takes: deep trees may have long names
			}
		}
		next := missing[len(missing)-step]
		fd, err := cur.openBelow(missing[len(missing)-step:])
		if err != nil && step > 1 {
			// Say which component failed, as one open at a time does.
			step = 1
			next = missing[len(missing)-1]
			fd, err = cur.openBelow(missing[len(missing)-1:])
		}
		cur.release()
		if err != nil {
			return noHandle, err
		}
		if err := t.install(next, fd); err != nil {
			return noHandle, err
		}
		cur = next
		missing = missing[:len(missing)-step]
	}
	return d.fd, nil
}

// maxWalkBytes is the longest path one open walks (Linux's PATH_MAX less
// its NUL).
const maxWalkBytes = 4095

// pathBytes is the length of the path through chain (deepest first).
func pathBytes(chain []*Dir) int {
	n := len(chain) - 1 // the slashes
	for _, d := range chain {
		n += len(d.name)
	}
	return n
}

// pinLocked pins d's open descriptor (out of the idle list).
func (t *Tree) pinLocked(d *Dir) {
	if d.pins == 0 && d.parent != nil {
		t.idle.remove(d)
	}
	d.pins++
}

// openBelow opens the directory chain[0], whose ancestors below the open
// directory a are the rest of chain (deepest first), and checks its
// identity.
func (a *Dir) openBelow(chain []*Dir) (handle, error) {
	d := chain[0]
	names := make([]string, len(chain))
	for i, c := range chain {
		names[len(chain)-1-i] = c.name
	}
	t := a.tree
	t.dirOpens.Add(1)
	t.dirNames.Add(int64(len(names)))
	var fd handle
	var err error
	if len(names) == 1 {
		fd, err = t.openDir(a.fd, names[0])
	} else {
		fd, err = t.openDirPath(a.fd, names)
	}
	if err != nil {
		return noHandle, &fs.PathError{Op: "openat", Path: d.name, Err: err}
	}
	if d.id.IsZero() {
		return fd, nil // no identity to check (an Out's directories, DirAt's)
	}
	id, err := fstatID(fd)
	if err != nil {
		closeHandle(fd)
		return noHandle, &fs.PathError{Op: "fstat", Path: d.name, Err: err}
	}
	if id != d.id {
		closeHandle(fd)
		return noHandle, &fs.PathError{Op: "openat", Path: d.name, Err: ErrReplaced}
	}
	return fd, nil
}

// install makes fd d's descriptor, pinned (or, when another caller opened
// d meanwhile, closes fd and pins theirs).
func (t *Tree) install(d *Dir, fd handle) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		closeHandle(fd)
		return fs.ErrClosed
	}
	if d.fd != noHandle { // another caller opened it meanwhile
		closeHandle(fd)
		t.pinLocked(d)
	} else {
		d.fd = fd
		t.open++
		d.pins++
	}
	t.evictLocked()
	return nil
}

// release unpins d's descriptor; it stays cached until evicted.
func (d *Dir) release() {
	t := d.tree
	t.mu.Lock()
	defer t.mu.Unlock()
	d.pins--
	if d.pins > 0 || d.parent == nil {
		return
	}
	if t.closed { // Close could not close it under its user
		closeHandle(d.fd)
		d.fd = noHandle
		return
	}
	t.idle.pushFront(d)
	t.evictLocked()
}

// evictLocked closes the least recently used idle descriptors beyond the
// bound.
func (t *Tree) evictLocked() {
	for t.open > t.max && t.idle.tail != nil {
		d := t.idle.tail
		t.idle.remove(d)
		closeHandle(d.fd)
		d.fd = noHandle
		t.open--
	}
}

// shed closes every idle descriptor; it reports whether it closed any. A
// caller out of descriptors tries once more after it.
func (t *Tree) shed() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := t.open
	for t.idle.tail != nil {
		d := t.idle.tail
		t.idle.remove(d)
		closeHandle(d.fd)
		d.fd = noHandle
		t.open--
	}
	return t.open < n
}

// At is a directory's descriptor, pinned for the duration of a Do call:
// a caller that looks at many names in one directory pays for the pin
// once. Its methods are safe for concurrent use.
type At struct {
	d  *Dir
	fd handle
}

// Do runs fn with d's descriptor pinned (opened first if it is not cached).
func (d *Dir) Do(fn func(at At) error) error {
	fd, err := d.acquire()
	if err != nil {
		return err
	}
	defer d.release()
	return fn(At{d: d, fd: fd})
}

// ReadDir returns the names in d, without "." and "..", in directory order.
func (d *Dir) ReadDir() (names []string, err error) {
	err = d.Do(func(at At) error { names, err = at.ReadDir(); return err })
	return names, err
}

// Lstat stats name in d without following a symlink.
func (d *Dir) Lstat(name string) (st Stat, err error) {
	err = d.Do(func(at At) error { st, err = at.Lstat(name); return err })
	return st, err
}

// Readlink returns the target of the symlink name in d, as written.
func (d *Dir) Readlink(name string) (target string, err error) {
	err = d.Do(func(at At) error { target, err = at.Readlink(name); return err })
	return target, err
}

// OpenFile is At.OpenFile for one file.
func (d *Dir) OpenFile(name string, want ID) (f *os.File, err error) {
	err = d.Do(func(at At) error { f, err = at.OpenFile(name, want); return err })
	return f, err
}

// OpenFile opens the regular file name for reading: without following a
// symlink, without blocking on a FIFO put there after the caller looked
// (O_NONBLOCK), without moving its access time where the kernel allows it,
// and, unless want is zero, only if it is still the file the caller saw
// (ErrReplaced). Anything but a regular file is closed unread
// (ErrNotRegular). The descriptor is made blocking again once it is known
// to be a regular file, so the runtime never registers it with its poller.
func (a At) OpenFile(name string, want ID) (*os.File, error) {
	return a.d.tree.openFileAt(a.fd, name, want)
}

// OpenPath opens the regular file at rel, a '/'-separated path below the
// root, one component at a time, for callers that hold a path rather than
// a Dir (tests, fixed files such as .git/info/exclude). Its cost grows
// with rel's depth, as Dirs exist to avoid.
func (t *Tree) OpenPath(rel string) (*os.File, error) {
	dir, base := "", rel
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		dir, base = rel[:i], rel[i+1:]
	}
	f, err := t.DirAt(dir).OpenFile(base, ID{})
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			pe.Path = rel
		}
		return nil, err
	}
	return f, nil
}

// DirAt is the directory at rel, a '/'-separated path below the root (""
// or "." for the root itself), for callers that hold a path rather than a
// Dir. Nothing is opened until the Dir is used, and then one component at
// a time without following symlinks, like every Dir.
func (t *Tree) DirAt(rel string) *Dir {
	d := t.root
	if rel == "" || rel == "." {
		return d
	}
	for name := range strings.SplitSeq(rel, "/") {
		d = d.Child(name, ID{})
	}
	return d
}

// String names d for messages.
func (d *Dir) String() string { return fmt.Sprintf("%q", d.Path()) }

// list is an intrusive doubly linked list of Dirs.
type list struct{ head, tail *Dir }

func (l *list) pushFront(d *Dir) {
	d.prev, d.next = nil, l.head
	if l.head != nil {
		l.head.prev = d
	} else {
		l.tail = d
	}
	l.head = d
}

func (l *list) remove(d *Dir) {
	if d.prev != nil {
		d.prev.next = d.next
	} else if l.head == d {
		l.head = d.next
	}
	if d.next != nil {
		d.next.prev = d.prev
	} else if l.tail == d {
		l.tail = d.prev
	}
	d.prev, d.next = nil, nil
}
