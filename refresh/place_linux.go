//go:build linux && !repoprep_portable

package refresh

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/zeebo/blake3"
	"golang.org/x/sys/unix"

	"github.com/repoprep/repoprep/internal/dirfd"
	"github.com/repoprep/repoprep/report"
	"github.com/repoprep/repoprep/stages"
)

// cloneFile makes dst share src's blocks (FICLONE: btrfs, XFS with
// reflink, bcachefs, overlayfs over them): no bytes are copied and a
// later write to either file is copy-on-write. It errs where the
// filesystem cannot (ext4, tmpfs: EOPNOTSUPP; across filesystems: EXDEV),
// and the caller copies.
func cloneFile(dst, src *os.File) error {
	return unix.IoctlFileClone(int(dst.Fd()), int(src.Fd()))
}

// cloneUnsupported reports a clone error that every other file of the
// same trees would meet too: the filesystem has no reflinks, or the two
// trees are on different filesystems.
func cloneUnsupported(err error) bool {
	return errors.Is(err, errors.ErrUnsupported) || errors.Is(err, unix.EXDEV) || errors.Is(err, unix.ENOTTY)
}

// placeFast is place on raw descriptors where the kernel has openat2: the
// previous copy opened beneath the previous tree in one call, the new one
// created, the bytes copied, both closed, and nothing else (os.File would
// add a poller registration and flag changes to each of the 9,000 files
// of a refresh of Go's src/). A previous copy that still has the identity
// trust the state recorded (copyID: nothing wrote to it since, or its
// ctime would have moved) is copied in the kernel (copy_file_range) and
// not hashed; any other is read whole (its size from fstat, as a reflink
// takes it), hashed and written, so a copy edited in OUT fails the hash as
// in place. ok is false where openat2 is missing or refused: the caller
// places the file itself.
func (p *Prior) placeFast(ctx context.Context, from string, out *dirfd.Out, rel string, want [32]byte, trust *copyID) (n int64, why string, err error, ok bool) {
	src, err, fast := p.copies.OpenFd(from)
	switch {
	case !fast:
		return 0, "", nil, false
	case err != nil && dirfd.IsResource(err):
		return 0, "", &fs.PathError{Op: "openat2", Path: from, Err: err}, true
	case err != nil:
		return 0, report.NotReusedCopy, nil, true // gone, or a symlink on the way: not what files.json says
	}
	defer unix.Close(src)
	var st unix.Stat_t
	if err := unix.Fstat(src, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		return 0, report.NotReusedCopy, nil, true // a directory, FIFO or device where a file was
	}
	dst, err := out.CreateFD(rel, 0o644)
	if err != nil {
		n, why, err := placeFailed(err)
		return n, why, err, true
	}
	placed := false
	defer func() {
		unix.Close(dst)
		if !placed {
			out.Remove(rel)
		}
	}()
	cloned := false
	if cloneFiles && !p.noClone.Load() {
		err := unix.IoctlFileClone(dst, src)
		cloned = err == nil
		if cloneUnsupported(err) {
			p.noClone.Store(true)
		}
	}
	if trust != nil && *trust == (copyID{Dev: uint64(st.Dev), Ino: st.Ino, Size: st.Size, Ctime: st.Ctim.Nano()}) {
		if cloned {
			placed = true
			return st.Size, "", nil, true
		}
		if !p.noCopyRange.Load() {
			n, err := copyRange(ctx, dst, src, st.Size)
			switch {
			case err == nil:
				placed = true
				return n, "", nil, true
			case errors.Is(err, errCopyRange):
				p.noCopyRange.Store(true) // the kernel copies no range here: read and write
			case dirfd.IsResource(err):
				return 0, "", &fs.PathError{Op: "copy_file_range", Path: rel, Err: err}, true
			default:
				return 0, report.NotReusedCopy, nil, true // shrunk since its fstat
			}
		}
	}
	bp := copyBufs.Get().(*[]byte)
	defer copyBufs.Put(bp)
	buf := *bp
	h := blake3.New()
	for n < st.Size {
		if err := ctx.Err(); err != nil {
			return 0, "", err, true
		}
		m, err := unix.Read(src, buf[:min(int64(len(buf)), st.Size-n)])
		if err == unix.EINTR {
			continue
		}
		if err != nil && dirfd.IsResource(err) {
			return 0, "", &fs.PathError{Op: "read", Path: from, Err: err}, true
		}
		if err != nil || m == 0 {
			return 0, report.NotReusedCopy, nil, true // shrunk or unreadable: the hash cannot match
		}
		h.Write(buf[:m])
		if !cloned {
			if err := writeAll(dst, buf[:m]); err != nil {
				n, why, err := placeFailed(&fs.PathError{Op: "write", Path: rel, Err: err})
				return n, why, err, true
			}
		}
		n += int64(m)
	}
	if [32]byte(h.Sum(nil)) != want {
		return 0, report.NotReusedCopy, nil, true // edited in OUT since it was published
	}
	placed = true
	return n, "", nil, true
}

// errCopyRange: copy_file_range is not available between these files (an
// old kernel, a filesystem without it); nothing was copied.
var errCopyRange = errors.New("copy_file_range unsupported")

// copyRange copies size bytes from src to dst, both at offset 0, in the
// kernel. An error other than errCopyRange after some bytes leaves dst
// partial: the caller removes it.
func copyRange(ctx context.Context, dst, src int, size int64) (n int64, err error) {
	for n < size {
		if err := ctx.Err(); err != nil {
			return n, err
		}
		m, err := unix.CopyFileRange(src, nil, dst, nil, int(min(size-n, 1<<30)), 0)
		switch {
		case err == unix.EINTR:
			continue
		case n == 0 && (err == unix.ENOSYS || err == unix.EXDEV || err == unix.EINVAL || err == unix.EOPNOTSUPP):
			return 0, errCopyRange
		case err != nil:
			return n, err
		case m == 0:
			return n, io.ErrUnexpectedEOF
		}
		n += int64(m)
	}
	return n, nil
}

// writeAll writes b to fd, past short writes and interruptions.
func writeAll(fd int, b []byte) error {
	for len(b) > 0 {
		m, err := unix.Write(fd, b)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return err
		}
		b = b[m:]
	}
	return nil
}

// stagedCopies takes the identity of each staged record's copy in env's
// tree (fstatat relative to its directory, no symlink followed), indexed
// like recs: nil for the others, and for copies changed within
// CopyTrustWindow of now.
func stagedCopies(env *stages.Env, recs []*stages.Record) []*copyID {
	out, err := env.Tree()
	if err != nil {
		return nil // every copy is hashed next time
	}
	trusted := time.Now().Add(-CopyTrustWindow).UnixNano()
	ids := make([]*copyID, len(recs))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= len(recs) {
					return
				}
				if !recs[i].Staged {
					continue
				}
				st, err := out.Lstat(recs[i].Path)
				if err != nil || !st.IsRegular() {
					continue
				}
				if st.CtimeNs < trusted {
					ids[i] = &copyID{Dev: st.ID.Dev, Ino: st.ID.Ino, Size: st.Size, Ctime: st.CtimeNs}
				}
			}
		})
	}
	wg.Wait()
	return ids
}
