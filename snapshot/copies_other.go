//go:build !linux || repoprep_portable

package snapshot

import "os"

// fastOpen: no one-call open beneath a directory here (openat2 is
// Linux's); every open walks with dirfd.
type fastOpen struct{}

func newFastOpen(*os.File) *fastOpen { return nil }

func (*fastOpen) open(string) (*os.File, bool, error) { return nil, false, nil }
