//go:build linux

package pipeline

import (
	"os"
	"syscall"
)

// openNoATime opens p for reading without moving its access time.
func openNoATime(p string) (*os.File, error) {
	return os.OpenFile(p, os.O_RDONLY|syscall.O_NOATIME, 0)
}
