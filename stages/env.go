package stages

import (
	"errors"
	"fmt"
	"os"
	"syscall"

	"github.com/repoprep/repoprep/internal/extract"
	"github.com/repoprep/repoprep/rules"
)

// Env is what the per-file stages share: the input and output roots, the
// rules and the limits. It is read-only while stages run, so workers share
// one Env without locks.
type Env struct {
	Src          *os.Root   // the input tree, only read
	TreeDir      string     // OUT/tree of the snapshot being built
	Rules        *rules.Set // classes, junk names, secret rules
	MaxTextBytes int64      // text larger than this is staged but flagged oversize

	// Extract bounds each document's text extraction; zero fields take
	// extract.DefaultLimits.
	Extract extract.Limits
}

// errNotRegular means a path that the scan saw as a regular file is now
// something else (swapped for a FIFO, a directory, a device).
var errNotRegular = errors.New("no longer a regular file")

// errReplaced means the path now names another file than the scan found.
var errReplaced = errors.New("replaced by another file since the scan")

// openSrc opens a record's file for reading without blocking on a FIFO that
// replaced it after the scan and without touching its access time, and
// checks it is still a regular file. All reads go through os.Root, so a
// file swapped for a symlink out of the tree cannot be followed.
func (e *Env) openSrc(rec *Record) (*os.File, error) {
	f, err := openNoATime(e.Src, rec.src, 0)
	if err != nil {
		return nil, err
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !info.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s: %w", rec.Path, errNotRegular)
	}
	// os.Root keeps opens inside SRC but follows a symlink that stays
	// inside. A file swapped after the scan for a link to another file
	// (an ignored .env, say) must not be staged under the first name.
	if st, ok := info.Sys().(*syscall.Stat_t); ok && rec.ino != 0 && (uint64(st.Dev) != rec.dev || st.Ino != rec.ino) {
		f.Close()
		return nil, fmt.Errorf("%s: %w", rec.Path, errReplaced)
	}
	return f, nil
}
