//go:build !darwin && (!linux || repoprep_portable)

package snapshot

import (
	"errors"
	"syscall"
)

// exchange: this platform (Windows, or Linux built with repoprep_portable
// to test the fallback) has no atomic swap of two names; publication
// moves the old snapshot aside and the new one in, with the journal.
func exchange(tmp, out string) error { return syscall.ENOSYS }

// exchangeUnsupported reports the answer of exchange above, or of a test
// acting as a filesystem without an exchange (EINVAL).
func exchangeUnsupported(err error) bool {
	return errors.Is(err, syscall.ENOSYS) || errors.Is(err, syscall.EINVAL)
}
