//go:build linux && !repoprep_portable

package dirfd

import (
	"bytes"
	"io/fs"
	"sync"

	"golang.org/x/sys/unix"
)

// KeepsATime reports that opens can avoid moving access times: Linux has
// O_NOATIME (granted to the file's owner and to root).
const KeepsATime = true

const oNoATime = unix.O_NOATIME

// kernelSys is whether the kernel has openat2 (Linux 5.6) and no filter
// refuses it.
type kernelSys struct{ openat2 bool }

const resolveFlags = unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS

// probe tries openat2 once on the root: ENOSYS on old kernels, EPERM under
// seccomp filters that predate it (some container runtimes).
func probe(fd int) kernelSys {
	how := &unix.OpenHow{Flags: unix.O_RDONLY | unix.O_DIRECTORY | unix.O_CLOEXEC, Resolve: resolveFlags}
	if pfd, err := unix.Openat2(fd, ".", how); err == nil {
		unix.Close(pfd)
		return kernelSys{openat2: true}
	}
	return kernelSys{}
}

// walksPaths: openat2 resolves a path beneath the descriptor refusing
// every symlink and "..", so a path of several components is as safe as
// one.
func (s kernelSys) walksPaths() bool { return s.openat2 }

// openat opens the single component name below pfd; flags hold
// O_NOFOLLOW, and openat2 refuses any symlink on the way besides.
func (s kernelSys) openat(pfd int, name string, flags int) (int, error) {
	if s.openat2 {
		return unix.Openat2(pfd, name, &unix.OpenHow{Flags: uint64(flags), Resolve: resolveFlags})
	}
	return unix.Openat(pfd, name, flags, 0)
}

// getdents reads the directory at fd to its end, handing each block the
// kernel fills to fn; name names the directory in errors.
func getdents(fd int, name string, fn func(block []byte) error) error {
	bp := direntBufs.Get().(*[]byte)
	defer direntBufs.Put(bp)
	buf := *bp
	for {
		n, err := unix.Getdents(fd, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return &fs.PathError{Op: "getdents", Path: name, Err: err}
		}
		if n <= 0 {
			return nil
		}
		if err := fn(buf[:n]); err != nil {
			return err
		}
	}
}

// direntBufs holds getdents' buffers: a fresh one per directory is a
// 32 KiB allocation, zeroed, for every directory a scan reads (a tenth of
// the CPU of an unchanged refresh of Go's src/). fn never keeps a block:
// both readers copy the names out.
var direntBufs = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

// readDirFD reads the names of the directory at fd with getdents.
func readDirFD(fd int, name string) ([]string, error) {
	var names []string
	err := getdents(fd, name, func(block []byte) error {
		_, _, names = unix.ParseDirent(block, -1, names)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return names, nil
}

// readDirTypes reads the directory at fd (rewound by the caller) with each
// entry's type: getdents gives it (d_type) on every common filesystem,
// and an entry whose type it leaves unknown is stated relative to fd.
// path names the directory in errors.
func readDirTypes(fd int, path string) ([]typedName, error) {
	var out []typedName
	err := getdents(fd, path, func(block []byte) error {
		for b := block; len(b) >= 19; {
			// struct linux_dirent64: ino u64, off s64, reclen u16, type u8, name.
			reclen := int(b[16]) | int(b[17])<<8
			if reclen < 19 || reclen > len(b) {
				return &fs.PathError{Op: "getdents", Path: path, Err: unix.EIO}
			}
			typ, name := b[18], b[19:reclen]
			if i := bytes.IndexByte(name, 0); i >= 0 {
				name = name[:i]
			}
			b = b[reclen:]
			if s := string(name); s != "." && s != ".." {
				isDir := typ == unix.DT_DIR
				if typ == unix.DT_UNKNOWN {
					var st unix.Stat_t
					if err := unix.Fstatat(fd, s, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
						return &fs.PathError{Op: "fstatat", Path: path + "/" + s, Err: err}
					}
					isDir = st.Mode&unix.S_IFMT == unix.S_IFDIR
				}
				out = append(out, typedName{s, isDir})
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
