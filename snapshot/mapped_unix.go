//go:build unix

package snapshot

import (
	"syscall"
)

// mapFile maps size bytes of f read-only. The mapping outlives f's
// descriptor; unmap releases it.
func mapFile(fd uintptr, size int64) (data []byte, unmap func(), err error) {
	if size == 0 {
		return nil, func() {}, nil
	}
	data, err = syscall.Mmap(int(fd), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, nil, err
	}
	return data, func() { syscall.Munmap(data) }, nil
}
