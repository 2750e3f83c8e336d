//go:build linux && !repoprep_portable

package snapshot

import (
	"errors"

	"golang.org/x/sys/unix"
)

// exchange swaps the directories at tmp and out in one step.
func exchange(tmp, out string) error {
	return unix.Renameat2(unix.AT_FDCWD, tmp, unix.AT_FDCWD, out, unix.RENAME_EXCHANGE)
}

// exchangeUnsupported reports a kernel (ENOSYS) or filesystem (EINVAL:
// NFS, some overlays) without RENAME_EXCHANGE.
func exchangeUnsupported(err error) bool {
	return errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EINVAL)
}
