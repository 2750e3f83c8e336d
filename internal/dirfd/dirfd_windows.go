//go:build windows

package dirfd

import (
	"errors"
	"io/fs"
	"os"
	"strings"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// On Windows every open below the root is NtCreateFile relative to the
// parent directory's handle (the openat of NT, as os.Root uses it), one
// component at a time. Opens that read (directories, files) pass
// OBJ_DONT_REPARSE, so no symlink, junction or other reparse point is ever
// followed; stats open the name itself (FILE_OPEN_REPARSE_POINT) and read
// its attributes from the handle. A file's identity is its volume serial
// number and 64-bit file index (GetFileInformationByHandle): unique on
// NTFS; on ReFS, whose file IDs are 128 bits, two files could share the
// low 64 (see the README's safety table).

// KeepsATime reports that opens cannot avoid moving access times: Windows
// has no O_NOATIME (NTFS updates last-access times only where the system
// enables it, which it does not by default on most volumes).
const KeepsATime = false

// handle is an open handle.
type handle = windows.Handle

const noHandle = windows.InvalidHandle

// treeSys: nothing to probe, no O_NOATIME to be refused (ATimeRefused is
// never called; ATimeMoved counts every open).
type treeSys struct{}

func closeHandle(h handle) error { return windows.CloseHandle(h) }

// IsResource reports a failure of the machine rather than of one file: out
// of handles, memory, quota or disk space, or a device I/O error. A
// caller that recorded such a failure as a per-file problem would publish
// an incomplete snapshot as if it were whole.
func IsResource(err error) bool {
	for _, e := range []windows.Errno{
		windows.ERROR_TOO_MANY_OPEN_FILES, windows.ERROR_NOT_ENOUGH_MEMORY, windows.ERROR_OUTOFMEMORY,
		windows.ERROR_NO_SYSTEM_RESOURCES, windows.ERROR_NOT_ENOUGH_QUOTA,
		windows.ERROR_DISK_FULL, windows.ERROR_HANDLE_DISK_FULL,
		windows.ERROR_IO_DEVICE, windows.ERROR_CRC,
	} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// outOfHandles reports the errors after which giving back cached handles
// may let an open through.
func outOfHandles(err error) bool {
	return errors.Is(err, windows.ERROR_TOO_MANY_OPEN_FILES) || errors.Is(err, windows.ERROR_NO_SYSTEM_RESOURCES)
}

// openRoot opens the tree's top directory (following what the user named).
func (t *Tree) openRoot(path string, _ Options) (handle, ID, error) {
	t.sys = treeSys{}
	p, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return noHandle, ID{}, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	h, err := windows.CreateFile(p, windows.FILE_LIST_DIRECTORY|windows.FILE_TRAVERSE|windows.FILE_READ_ATTRIBUTES|windows.SYNCHRONIZE,
		windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE, nil,
		windows.OPEN_EXISTING, windows.FILE_FLAG_BACKUP_SEMANTICS, 0)
	if err != nil {
		return noHandle, ID{}, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	st, err := statHandle(h)
	if err == nil && !st.IsDir() {
		err = syscall.ENOTDIR
	}
	if err != nil {
		windows.CloseHandle(h)
		return noHandle, ID{}, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	return h, st.ID, nil
}

// fstatID is the identity of an open handle.
func fstatID(h handle) (ID, error) {
	var info windows.ByHandleFileInformation
	if err := windows.GetFileInformationByHandle(h, &info); err != nil {
		return ID{}, err
	}
	return idOf(&info), nil
}

func idOf(info *windows.ByHandleFileInformation) ID {
	return ID{Dev: uint64(info.VolumeSerialNumber), Ino: uint64(info.FileIndexHigh)<<32 | uint64(info.FileIndexLow)}
}

// fileAttributeTagInfo is FILE_ATTRIBUTE_TAG_INFO.
type fileAttributeTagInfo struct {
	FileAttributes uint32
	ReparseTag     uint32
}

// statHandle is Stat for an open handle. A reparse point that is a name
// surrogate (symlink, junction) is a symlink; any other (cloud
// placeholder, deduplicated file) is irregular: it is never opened to
// read, since reading would make the filter driver act.
func statHandle(h handle) (Stat, error) {
	var info windows.ByHandleFileInformation
	if err := windows.GetFileInformationByHandle(h, &info); err != nil {
		return Stat{}, err
	}
	written := info.LastWriteTime.Nanoseconds()
	st := Stat{Size: int64(info.FileSizeHigh)<<32 | int64(info.FileSizeLow), ID: idOf(&info), MtimeNs: written, CtimeNs: written}
	switch {
	case info.FileAttributes&windows.FILE_ATTRIBUTE_REPARSE_POINT != 0:
		var tag fileAttributeTagInfo
		if err := windows.GetFileInformationByHandleEx(h, windows.FileAttributeTagInfo, (*byte)(unsafe.Pointer(&tag)), uint32(unsafe.Sizeof(tag))); err != nil {
			return Stat{}, err
		}
		if tag.ReparseTag&0x20000000 != 0 { // IsReparseTagNameSurrogate
			st.Type = fs.ModeSymlink
		} else {
			st.Type = fs.ModeIrregular
		}
	case info.FileAttributes&windows.FILE_ATTRIBUTE_DIRECTORY != 0:
		st.Type = fs.ModeDir
	default:
		if typ, err := windows.GetFileType(h); err == nil && typ != windows.FILE_TYPE_DISK {
			st.Type = fs.ModeIrregular
		}
	}
	return st, nil
}

// Lstat stats the file at path without following a final symlink or
// junction, for callers outside a Tree (the lock, the publication).
func Lstat(path string) (Stat, error) {
	p, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return Stat{}, &fs.PathError{Op: "lstat", Path: path, Err: err}
	}
	h, err := windows.CreateFile(p, windows.FILE_READ_ATTRIBUTES,
		windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE, nil,
		windows.OPEN_EXISTING, windows.FILE_FLAG_BACKUP_SEMANTICS|windows.FILE_FLAG_OPEN_REPARSE_POINT, 0)
	if err != nil {
		return Stat{}, &fs.PathError{Op: "lstat", Path: path, Err: err}
	}
	defer windows.CloseHandle(h)
	st, err := statHandle(h)
	if err != nil {
		return Stat{}, &fs.PathError{Op: "lstat", Path: path, Err: err}
	}
	return st, nil
}

// isComponent accepts one name inside a directory: not empty, not "." or
// "..", no separator, and no ':' (which names an alternate data stream).
func isComponent(name string) bool {
	return name != "" && name != "." && name != ".." && !strings.ContainsAny(name, `/\:`+"\x00")
}

// ntOpen opens the single component name below parent. attrs adds
// OBJ_DONT_REPARSE (refuse any reparse point) where the caller reads;
// options adds FILE_DIRECTORY_FILE, FILE_NON_DIRECTORY_FILE or
// FILE_OPEN_REPARSE_POINT.
func ntOpen(parent handle, name string, access, attrs, options uint32) (handle, error) {
	if !isComponent(name) {
		return noHandle, windows.ERROR_INVALID_NAME // a component, never a path
	}
	uname, err := windows.NewNTUnicodeString(name)
	if err != nil {
		return noHandle, err
	}
	oa := &windows.OBJECT_ATTRIBUTES{RootDirectory: parent, ObjectName: uname, Attributes: windows.OBJ_CASE_INSENSITIVE | attrs}
	oa.Length = uint32(unsafe.Sizeof(*oa))
	var h windows.Handle
	err = windows.NtCreateFile(&h, access|windows.SYNCHRONIZE, oa, &windows.IO_STATUS_BLOCK{}, nil, 0,
		windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE,
		windows.FILE_OPEN, windows.FILE_SYNCHRONOUS_IO_NONALERT|options, 0, 0)
	if err != nil {
		return noHandle, ntError(err)
	}
	return h, nil
}

// ntError turns NtCreateFile's status into the Win32 error the rest of
// the program knows (fs.ErrNotExist, fs.ErrPermission, IsResource), with
// a refused reparse point as ELOOP.
func ntError(err error) error {
	s, ok := err.(windows.NTStatus)
	if !ok {
		return err
	}
	switch s {
	case windows.STATUS_REPARSE_POINT_ENCOUNTERED:
		return syscall.ELOOP
	case windows.STATUS_NOT_A_DIRECTORY:
		return syscall.ENOTDIR
	case windows.STATUS_FILE_IS_A_DIRECTORY:
		return ErrNotRegular
	}
	return s.Errno()
}

// openat opens one component, giving back cached handles and trying once
// more when the process is out of them.
func (t *Tree) openat(pfd handle, name string, access, attrs, options uint32) (handle, error) {
	h, err := ntOpen(pfd, name, access, attrs, options)
	if outOfHandles(err) && t.shed() {
		h, err = ntOpen(pfd, name, access, attrs, options)
	}
	if err == nil {
		t.atimeMoved.Add(1) // no way to open without moving the access time
	}
	return h, err
}

// walksPaths: every open names one component (OBJ_DONT_REPARSE applies
// to the last one only).
func (t *Tree) walksPaths() bool { return false }

// openDirPath opens the directory at names below pfd one component at a
// time (Dir.acquire never asks here: walksPaths).
func (t *Tree) openDirPath(pfd handle, names []string) (handle, error) {
	cur := pfd
	for i, name := range names {
		h, err := t.openDir(cur, name)
		if i > 0 {
			closeHandle(cur)
		}
		if err != nil {
			return noHandle, err
		}
		cur = h
	}
	return cur, nil
}

// openDir opens the subdirectory name of the directory at pfd.
func (t *Tree) openDir(pfd handle, name string) (handle, error) {
	return t.openat(pfd, name, windows.FILE_LIST_DIRECTORY|windows.FILE_TRAVERSE|windows.FILE_READ_ATTRIBUTES,
		windows.OBJ_DONT_REPARSE, windows.FILE_DIRECTORY_FILE)
}

func (t *Tree) openFileAt(pfd handle, name string, want ID) (*os.File, error) {
	h, err := t.openat(pfd, name, windows.FILE_GENERIC_READ, windows.OBJ_DONT_REPARSE, windows.FILE_NON_DIRECTORY_FILE)
	switch {
	case err == syscall.ELOOP:
		// OBJ_DONT_REPARSE refused a reparse point at a name the caller
		// knew as a file.
		return nil, &fs.PathError{Op: "openat", Path: name, Err: errSymlink}
	case err != nil:
		return nil, &fs.PathError{Op: "openat", Path: name, Err: err}
	}
	st, err := statHandle(h)
	if err != nil {
		windows.CloseHandle(h)
		return nil, &fs.PathError{Op: "fstat", Path: name, Err: err}
	}
	switch {
	case !st.IsRegular():
		windows.CloseHandle(h)
		return nil, &fs.PathError{Op: "open", Path: name, Err: ErrNotRegular}
	case !want.IsZero() && st.ID != want:
		windows.CloseHandle(h)
		return nil, &fs.PathError{Op: "open", Path: name, Err: ErrReplaced}
	}
	return os.NewFile(uintptr(h), name), nil
}

// fileFullDirInfo is FILE_FULL_DIR_INFO; FileName runs on past the struct.
type fileFullDirInfo struct {
	NextEntryOffset uint32
	FileIndex       uint32
	CreationTime    windows.Filetime
	LastAccessTime  windows.Filetime
	LastWriteTime   windows.Filetime
	ChangeTime      windows.Filetime
	EndOfFile       uint64
	AllocationSize  uint64
	FileAttributes  uint32
	FileNameLength  uint32
	EaSize          uint32
	FileName        [1]uint16
}

// ReadDir returns the names in the directory, without "." and "..". The
// first call of each read restarts the listing, so a cached handle read
// before lists everything again.
func (a At) ReadDir() ([]string, error) {
	var names []string
	buf := make([]uint64, 64<<10/8) // entries are 8-byte aligned
	class := uint32(windows.FileFullDirectoryRestartInfo)
	for {
		err := windows.GetFileInformationByHandleEx(a.fd, class, (*byte)(unsafe.Pointer(&buf[0])), uint32(len(buf)*8))
		if err == windows.ERROR_NO_MORE_FILES || err == windows.ERROR_FILE_NOT_FOUND && class == windows.FileFullDirectoryRestartInfo {
			// ERROR_FILE_NOT_FOUND: an empty directory without "." and ".."
			// (the root of a volume), as os.File.ReadDir knows too.
			return names, nil
		}
		if err != nil {
			return nil, &fs.PathError{Op: "readdir", Path: a.d.name, Err: err}
		}
		class = windows.FileFullDirectoryInfo
		for off := uintptr(0); ; {
			info := (*fileFullDirInfo)(unsafe.Add(unsafe.Pointer(&buf[0]), off))
			name := unsafe.Slice(&info.FileName[0], info.FileNameLength/2)
			if !(len(name) == 1 && name[0] == '.') && !(len(name) == 2 && name[0] == '.' && name[1] == '.') {
				names = append(names, windows.UTF16ToString(name))
			}
			if info.NextEntryOffset == 0 {
				break
			}
			off += uintptr(info.NextEntryOffset)
		}
	}
}

// Lstat stats name without following a symlink or junction.
func (a At) Lstat(name string) (Stat, error) {
	h, err := ntOpen(a.fd, name, windows.FILE_READ_ATTRIBUTES, 0, windows.FILE_OPEN_REPARSE_POINT)
	if outOfHandles(err) && a.d.tree.shed() {
		h, err = ntOpen(a.fd, name, windows.FILE_READ_ATTRIBUTES, 0, windows.FILE_OPEN_REPARSE_POINT)
	}
	if err != nil {
		return Stat{}, &fs.PathError{Op: "lstat", Path: name, Err: err}
	}
	defer windows.CloseHandle(h)
	st, err := statHandle(h)
	if err != nil {
		return Stat{}, &fs.PathError{Op: "lstat", Path: name, Err: err}
	}
	return st, nil
}

// Readlink returns the target of the symlink or junction name, as its
// print name says (as written, for a relative symlink).
func (a At) Readlink(name string) (string, error) {
	// Read access to the link itself, as os.Readlink asks for it.
	h, err := ntOpen(a.fd, name, windows.FILE_GENERIC_READ, 0, windows.FILE_OPEN_REPARSE_POINT)
	if err != nil {
		return "", &fs.PathError{Op: "readlink", Path: name, Err: err}
	}
	defer windows.CloseHandle(h)
	buf := make([]byte, windows.MAXIMUM_REPARSE_DATA_BUFFER_SIZE)
	var n uint32
	if err := windows.DeviceIoControl(h, windows.FSCTL_GET_REPARSE_POINT, nil, 0, &buf[0], uint32(len(buf)), &n, nil); err != nil {
		return "", &fs.PathError{Op: "readlink", Path: name, Err: err}
	}
	target, ok := parseReparse(buf[:n])
	if !ok {
		return "", &fs.PathError{Op: "readlink", Path: name, Err: syscall.EINVAL}
	}
	return target, nil
}
