//go:build linux

package serve

import "golang.org/x/sys/unix"

// exchangeDirs swaps a and b in one step, as repoprep run publishes.
func exchangeDirs(a, b string) error {
	return unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
}
