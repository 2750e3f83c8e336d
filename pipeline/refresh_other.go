//go:build !linux || repoprep_portable

package pipeline

import (
	"context"
	"errors"
	"os"

	"github.com/repoprep/repoprep/stages"
)

// cloneFile is the reflink where one is wired in (refresh_linux.go); here
// the caller copies.
func cloneFile(dst, src *os.File) error { return errors.ErrUnsupported }

// cloneUnsupported: here no clone is ever tried twice.
func cloneUnsupported(err error) bool { return err != nil }

// placeFast is place on raw descriptors where wired in
// (refresh_linux.go); here the caller places every file itself.
func (p *prior) placeFast(ctx context.Context, from, to string, want [32]byte, trust *copyID) (int64, string, error, bool) {
	return 0, "", nil, false
}

// openOwn opens a file of the previous snapshot for reading (see
// refresh_linux.go); here without O_NOATIME or O_NONBLOCK, which the
// caller's regular-file check follows.
func openOwn(name string) (*os.File, error) { return os.Open(name) }

// openBeneath is openat2 where wired in (refresh_linux.go); here the caller
// walks with dirfd.
func openBeneath(dir *os.File, rel string) (*os.File, bool, error) { return nil, false, nil }

// stagedCopies takes no identities here: every copy is hashed.
func stagedCopies(treeDir string, recs []*stages.Record) []*copyID { return nil }
