//go:build windows

package snapshot

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"golang.org/x/sys/windows"

	"github.com/repoprep/repoprep/internal/dirfd"
)

// lockOffset is where the lock's one byte lies. Windows byte-range locks
// are mandatory: a lock on the journal's bytes would stop a second run
// from reading who holds it, so the locked byte lies far past anything
// written (where SQLite puts its lock bytes too).
const lockOffset = 1 << 30

// tryLock makes one attempt; retry means the lock file changed under it.
// The file is opened without following a symlink or junction
// (FILE_FLAG_OPEN_REPARSE_POINT opens the link itself, which is then
// refused), must be a regular file with one link, and after LockFileEx
// must still be the file at the name. Its owner is not checked (Windows
// has no uid to compare; see the README's safety table).
func tryLock(path string) (l *Lock, retry bool, err error) {
	p, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return nil, false, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	h, err := windows.CreateFile(p, windows.GENERIC_READ|windows.GENERIC_WRITE,
		windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE, nil,
		windows.OPEN_ALWAYS, windows.FILE_ATTRIBUTE_NORMAL|windows.FILE_FLAG_OPEN_REPARSE_POINT, 0)
	if err != nil {
		return nil, false, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	f := os.NewFile(uintptr(h), path)
	var info windows.ByHandleFileInformation
	if err := windows.GetFileInformationByHandle(h, &info); err != nil {
		f.Close()
		return nil, false, &fs.PathError{Op: "fstat", Path: path, Err: err}
	}
	if info.FileAttributes&windows.FILE_ATTRIBUTE_REPARSE_POINT != 0 {
		f.Close()
		return nil, false, fmt.Errorf("lock %s is a symlink or junction; refusing to follow it (remove it if it is not yours)", path)
	}
	if why := lockProblem(&info); why != "" {
		f.Close()
		return nil, false, fmt.Errorf("lock %s %s; refusing to use it", path, why)
	}
	ol := new(windows.Overlapped)
	ol.OffsetHigh = lockOffset >> 32
	ol.Offset = lockOffset & 0xffffffff
	if err := windows.LockFileEx(h, windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, ol); err != nil {
		holder, _ := readHolder(f)
		f.Close()
		if errors.Is(err, windows.ERROR_LOCK_VIOLATION) {
			return nil, false, fmt.Errorf("%w (held by %s)", ErrLocked, holder)
		}
		return nil, false, fmt.Errorf("lock %s: %w", path, err)
	}
	id := dirfd.ID{Dev: uint64(info.VolumeSerialNumber), Ino: uint64(info.FileIndexHigh)<<32 | uint64(info.FileIndexLow)}
	// The file we locked must still be the one at the name (see the Unix
	// tryLock).
	if now, err := dirfd.Lstat(path); err != nil || now.ID != id {
		f.Close()
		return nil, true, nil
	}
	l = &Lock{f: f, path: path, id: id}
	l.holder = fmt.Sprintf("pid %d", os.Getpid())
	if host, err := os.Hostname(); err == nil {
		l.holder += " on " + host
	}
	return l, false, nil
}

// lockProblem says why a lock file must not be used, or "".
func lockProblem(info *windows.ByHandleFileInformation) string {
	switch {
	case info.FileAttributes&windows.FILE_ATTRIBUTE_DIRECTORY != 0:
		return "is not a regular file"
	case info.NumberOfLinks != 1:
		return fmt.Sprintf("has %d hard links (writing it would write another file)", info.NumberOfLinks)
	}
	return ""
}

// ours reports whether p is a directory (not a symlink or junction) with
// identity id. Ownership is not compared on Windows.
func (l *Lock) ours(p string, id dirfd.ID) bool {
	st, err := dirfd.Lstat(p)
	return err == nil && st.IsDir() && st.ID == id
}
