//go:build unix && (!linux || repoprep_portable)

package dirfd

import (
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

// KeepsATime reports that opens cannot avoid moving access times: there
// is no O_NOATIME here, so reading a file may move its atime (as the
// mount's atime policy says).
const KeepsATime = false

const oNoATime = 0

// kernelSys: plain openat needs nothing.
type kernelSys struct{}

func probe(int) kernelSys { return kernelSys{} }

// walksPaths: plain openat would follow a symlink before the last
// component, so every open names one.
func (kernelSys) walksPaths() bool { return false }

// openat opens the single component name below pfd; flags hold
// O_NOFOLLOW, so a symlink at name is refused (ELOOP) and, name being one
// component, nothing else can be followed.
func (kernelSys) openat(pfd int, name string, flags int) (int, error) {
	return unix.Openat(pfd, name, flags, 0)
}

// readDirFD reads the names of the directory at fd through a duplicate of
// the descriptor (the directory is never opened again by path): the
// standard library reads it with the platform's own calls (fdopendir and
// readdir on macOS, getdents elsewhere). The duplicate shares fd's offset,
// which the caller has rewound.
func readDirFD(fd int, name string) ([]string, error) {
	dup, err := dupCloexec(fd)
	if err != nil {
		return nil, &fs.PathError{Op: "dup", Path: name, Err: err}
	}
	f := os.NewFile(uintptr(dup), name)
	defer f.Close()
	names, err := f.Readdirnames(-1)
	if err != nil {
		return nil, err
	}
	return names, nil
}

// dupCloexec duplicates fd, close-on-exec.
func dupCloexec(fd int) (int, error) {
	for {
		dup, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 0)
		if err != unix.EINTR {
			return dup, err
		}
	}
}

// readDirTypes reads the directory at fd (rewound by the caller) with each
// entry's type, through a duplicate of the descriptor as readDirFD does;
// os.File.ReadDir states an entry whose type the system leaves unknown by
// path, so path must name the directory.
func readDirTypes(fd int, path string) ([]typedName, error) {
	dup, err := dupCloexec(fd)
	if err != nil {
		return nil, &fs.PathError{Op: "dup", Path: path, Err: err}
	}
	f := os.NewFile(uintptr(dup), path)
	defer f.Close()
	entries, err := f.ReadDir(-1)
	if err != nil {
		return nil, err
	}
	out := make([]typedName, len(entries))
	for i, e := range entries {
		out[i] = typedName{e.Name(), e.IsDir()}
	}
	return out, nil
}
