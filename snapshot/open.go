package snapshot

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// ErrNotSnapshot marks a directory that is not a published snapshot: it
// does not exist, is not a directory, or holds no files.json.
var ErrNotSnapshot = errors.New("not a repoprep snapshot")

// notSnapshot says why in the user's terms and what to do; errors.Is
// finds ErrNotSnapshot.
type notSnapshot struct{ msg string }

func (e *notSnapshot) Error() string        { return e.msg }
func (e *notSnapshot) Is(target error) bool { return target == ErrNotSnapshot }

// Check tells whether dir looks like a published snapshot (a directory
// holding files.json) before a reader opens it, so a user who points
// serve, read, verify or baseline at a source tree, or at a mistyped path,
// reads what is wrong and what to do rather than an operating-system
// error. It checks nothing inside files.json.
func Check(dir string) error {
	info, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return &notSnapshot{fmt.Sprintf("%s does not exist; create a snapshot there with: repoprep run SRC -o %s", dir, dir)}
	case err != nil:
		return err
	case !info.IsDir():
		return &notSnapshot{fmt.Sprintf("%s is a file, not a repoprep snapshot (a directory holding %s)", dir, FilesJSON)}
	}
	if _, err := os.Lstat(filepath.Join(dir, FilesJSON)); errors.Is(err, fs.ErrNotExist) {
		return &notSnapshot{fmt.Sprintf("%s is not a repoprep snapshot (no %s); create one with repoprep run", dir, FilesJSON)}
	} else if err != nil {
		return err
	}
	return nil
}

// Exists reports whether dir holds a snapshot's files.json (a symlink
// there counts: what it is, the readers decide).
func Exists(dir string) bool {
	_, err := os.Lstat(filepath.Join(dir, FilesJSON))
	return err == nil
}

// Snapshot is a published snapshot opened for reading. Every file is read
// through one handle on OUT, so a publication swapped in meanwhile is
// never mixed with this one (the handle pins the directory it opened),
// and no name inside OUT leads out of it. Safe for concurrent use.
type Snapshot struct {
	dir  string // OUT as the caller gave it, for messages
	root *os.Root

	mu    sync.Mutex
	bound *bounds // what the last manifest read says the other files must be
}

// Open opens the snapshot at dir, refusing (with ErrNotSnapshot) what is
// not one. It reads nothing yet.
func Open(dir string) (*Snapshot, error) {
	if err := Check(dir); err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("open snapshot: %w", err)
	}
	return &Snapshot{dir: dir, root: root}, nil
}

// Close releases the handle; a Tree opened from it stays usable.
func (s *Snapshot) Close() error { return s.root.Close() }

// Dir is OUT as it was given to Open.
func (s *Snapshot) Dir() string { return s.dir }

// Lstat describes name inside OUT ("." for OUT itself) without following
// a symlink.
func (s *Snapshot) Lstat(name string) (fs.FileInfo, error) { return s.root.Lstat(name) }

// OpenFile opens the regular file name inside OUT for reading: a symlink,
// a directory, a FIFO (never waited on) or a device at the name is
// refused, as is a file replaced between the check and the open, and the
// access time is kept where the kernel allows (the snapshot is ours).
func (s *Snapshot) OpenFile(name string) (*os.File, error) {
	before, err := s.root.Lstat(name)
	if err != nil {
		return nil, err
	}
	if !before.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file (%v)", name, before.Mode().Type())
	}
	f, err := s.root.OpenFile(name, os.O_RDONLY|openNoBlock|openNoATime, 0)
	if errors.Is(err, fs.ErrPermission) && openNoATime != 0 {
		f, err = s.root.OpenFile(name, os.O_RDONLY|openNoBlock, 0) // not the owner: O_NOATIME is refused
	}
	if err != nil {
		return nil, err
	}
	if after, err := f.Stat(); err != nil || !os.SameFile(before, after) {
		f.Close()
		return nil, fmt.Errorf("%s: replaced while it was opened", name)
	}
	return f, nil
}

// ReadFile reads the regular file name inside OUT whole (see OpenFile),
// refusing (ErrTooLarge) one larger than a file of that name can be in
// this snapshot, before reading it: the caps are functions of files.json
// (maxBytes). search.index and lines.json are also refused (ErrUnbound)
// unless they are bound to the staged files files.json lists: a reader
// that gets an error for them reads the files instead, as it does when
// they are missing. Either check reads files.json, once per Snapshot (the
// one Manifest read, if it was called).
func (s *Snapshot) ReadFile(name string) ([]byte, error) {
	switch name {
	case SearchIndex, LinesJSON:
	case OversizeJSON:
		b, _ := s.ownBounds() // without files.json, the cap of any other file
		return s.readCapped(name, b)
	default:
		return s.readCapped(name, nil)
	}
	b, err := s.ownBounds()
	if err != nil {
		return nil, fmt.Errorf("%s: cannot be checked against %s: %w", name, FilesJSON, err)
	}
	data, err := s.readCapped(name, b)
	if err != nil {
		return nil, err
	}
	switch name {
	case SearchIndex:
		err = b.checkContents(data)
	case LinesJSON:
		_, err = b.parseLines(data)
	}
	if err != nil {
		return nil, err
	}
	return data, nil
}

// readCapped reads name whole after checking its size against its cap;
// b is nil for a file whose cap does not depend on files.json's entries.
// A file over the cap is never read, so a sparse file of a terabyte
// planted in OUT costs one fstat.
func (s *Snapshot) readCapped(name string, b *bounds) ([]byte, error) {
	return s.readAtMost(name, func(size int64) int64 {
		limit := s.maxBytes(name, b, false)
		if size > limit {
			limit = max(limit, s.maxBytes(name, b, true))
		}
		return limit
	})
}

// readAtMost reads the regular file name inside OUT whole when it holds at
// most limit(its fstat size) bytes; a larger one is refused
// (*TooLargeError) before a byte is read, one that grows past the limit
// while it is read after limit+1 bytes.
func (s *Snapshot) readAtMost(name string, limit func(size int64) int64) ([]byte, error) {
	f, err := s.OpenFile(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	max := limit(info.Size())
	if info.Size() > max {
		return nil, &TooLargeError{Name: name, Size: info.Size(), Max: max}
	}
	// Sized once from fstat (io.ReadAll would grow and copy a 15 MB
	// search.index a dozen times); a file grown since is read up to its
	// cap.
	var buf bytes.Buffer
	buf.Grow(int(info.Size()) + bytes.MinRead)
	n, err := buf.ReadFrom(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if n > max {
		return nil, &TooLargeError{Name: name, Size: n, Max: max, Grew: true}
	}
	return buf.Bytes(), nil
}

// Manifest reads and parses files.json; data is the file as read, for a
// caller that hashes it. ReadFile checks the index files against this
// manifest from then on.
func (s *Snapshot) Manifest() (m *Manifest, data []byte, err error) {
	if data, err = s.ReadFile(FilesJSON); err != nil {
		return nil, nil, err
	}
	if m, err = ParseManifest(data); err != nil {
		return nil, data, err
	}
	s.remember(m)
	return m, data, nil
}

// remember makes m the manifest ReadFile checks against.
func (s *Snapshot) remember(m *Manifest) {
	b := newBounds(m)
	s.mu.Lock()
	s.bound = b
	s.mu.Unlock()
}

// ownBounds returns what the manifest says, reading files.json if no
// manifest was read yet.
func (s *Snapshot) ownBounds() (*bounds, error) {
	s.mu.Lock()
	b := s.bound
	s.mu.Unlock()
	if b != nil {
		return b, nil
	}
	if _, _, err := s.Manifest(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.bound, nil
}

// Tree opens tree/ as a root of its own, which outlives the Snapshot: a
// reader keeps serving the files it loaded after OUT is swapped.
func (s *Snapshot) Tree() (*os.Root, error) { return s.root.OpenRoot(TreeDir) }

// Stamp tells two publications of OUT apart: `repoprep run` swaps a whole
// new directory in, so OUT's identity changes; files.json's identity, size
// and modification time also catch a snapshot rewritten in place.
type Stamp struct {
	dirDev, dirIno   uint64
	listIno, listLen int64
	listMod          time.Time
}

// Stamp is the stamp of the publication s opened.
func (s *Snapshot) Stamp() (Stamp, error) {
	di, err := s.root.Stat(".")
	if err != nil {
		return Stamp{}, err
	}
	li, err := s.root.Stat(FilesJSON)
	if err != nil {
		return Stamp{}, err
	}
	return stampOf(di, li), nil
}

// StampAt is the stamp of what dir holds right now, by path: two stats,
// cheap enough to ask before every request.
func StampAt(dir string) (Stamp, error) {
	di, err := os.Stat(dir)
	if err != nil {
		return Stamp{}, err
	}
	li, err := os.Stat(filepath.Join(dir, FilesJSON))
	if err != nil {
		return Stamp{}, err
	}
	return stampOf(di, li), nil
}

// Published is files.json's modification time: when the snapshot was
// published.
func (st Stamp) Published() time.Time { return st.listMod }

func stampOf(dir, list fs.FileInfo) Stamp {
	st := Stamp{listLen: list.Size(), listMod: list.ModTime()}
	st.dirDev, st.dirIno = devIno(dir)
	_, ino := devIno(list)
	st.listIno = int64(ino)
	return st
}

// UnsafeError is a staged copy OpenStaged refuses: anything but a regular
// file with one link, or a file replaced while it was opened. Why says
// which, after the copy's path.
type UnsafeError struct {
	Path string // the copy's path in tree/
	Why  string
}

func (e *UnsafeError) Error() string { return e.Path + " " + e.Why }

// OpenStaged opens the staged copy rel through tree (Tree's root), which
// refuses any name that would leave the tree, symlinks included,
// atomically with the open. On top of that the copy must be a regular
// file with one link, and the same file the Lstat before the open saw: a
// symlink or hard link planted into the tree after publication, even one
// pointing inside it, is refused (*UnsafeError), and a FIFO planted there
// is never waited on. A copy unlinked after the open (the publisher
// removed this, older, snapshot) is fs.ErrNotExist.
func OpenStaged(tree *os.Root, rel string) (*os.File, fs.FileInfo, error) {
	before, err := tree.Lstat(rel)
	if err != nil {
		return nil, nil, err
	}
	if !before.Mode().IsRegular() {
		return nil, nil, &UnsafeError{rel, fmt.Sprintf("is not a regular file in the snapshot (%s)", before.Mode().Type())}
	}
	f, err := tree.OpenFile(rel, os.O_RDONLY|openNoBlock, 0)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	switch n := LinkCount(fi); {
	case !fi.Mode().IsRegular() || !os.SameFile(before, fi):
		f.Close()
		return nil, nil, &UnsafeError{rel, "changed while it was opened (not the regular file " + FilesJSON + " lists)"}
	case n == 0:
		f.Close()
		return nil, nil, fmt.Errorf("%s: removed while being opened: %w", rel, fs.ErrNotExist)
	case n != 1:
		f.Close()
		return nil, nil, &UnsafeError{rel, fmt.Sprintf("has %d hard links; the snapshot holds single-link files only", n)}
	}
	return f, fi, nil
}
