//go:build darwin

package snapshot

import (
	"errors"

	"golang.org/x/sys/unix"
)

// exchange swaps the directories at tmp and out in one step.
func exchange(tmp, out string) error {
	return unix.RenamexNp(tmp, out, unix.RENAME_SWAP)
}

// exchangeUnsupported reports a filesystem without RENAME_SWAP: ENOTSUP
// (as renamex_np(2) documents: some network and FAT volumes), EINVAL, or
// ENOSYS (as the tests' stand-in for any of them says).
func exchangeUnsupported(err error) bool {
	return errors.Is(err, unix.ENOTSUP) || errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS)
}
