//go:build !linux || repoprep_portable

package refresh

import (
	"context"
	"errors"
	"os"

	"github.com/repoprep/repoprep/internal/dirfd"
	"github.com/repoprep/repoprep/stages"
)

// cloneFile is the reflink where one is wired in (refresh_linux.go); here
// the caller copies.
func cloneFile(dst, src *os.File) error { return errors.ErrUnsupported }

// cloneUnsupported: here no clone is ever tried twice.
func cloneUnsupported(err error) bool { return err != nil }

// placeFast is place on raw descriptors where wired in
// (refresh_linux.go); here the caller places every file itself.
func (p *Prior) placeFast(ctx context.Context, from string, out *dirfd.Out, rel string, want [32]byte, trust *copyID) (int64, string, error, bool) {
	return 0, "", nil, false
}

// stagedCopies takes no identities here: every copy is hashed.
func stagedCopies(env *stages.Env, recs []*stages.Record) []*copyID { return nil }
