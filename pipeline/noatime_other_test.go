//go:build !linux

package pipeline

import "os"

// openNoATime opens p for reading; there is no O_NOATIME here, and
// treeState leaves atimes out (dirfd.KeepsATime is false).
func openNoATime(p string) (*os.File, error) { return os.Open(p) }
