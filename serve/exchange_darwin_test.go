//go:build darwin

package serve

import "golang.org/x/sys/unix"

// exchangeDirs swaps a and b in one step, as repoprep run publishes.
func exchangeDirs(a, b string) error { return unix.RenamexNp(a, b, unix.RENAME_SWAP) }
