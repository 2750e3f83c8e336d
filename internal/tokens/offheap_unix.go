//go:build unix

package tokens

import (
	"syscall"
	"unsafe"
)

// offHeap returns n zeroed Ts in anonymous memory mapped for the purpose,
// outside the garbage-collected heap, and the mapping to release them with.
// The BPE tables live there: they hold no pointers, live as long as the
// process, and would otherwise count towards the heap the collector lets
// grow to twice the live data, about 20 MB more peak memory for nothing.
// Pages never written (the trie is sized for its worst case) take no
// memory. T must hold no pointers.
func offHeap[T any](n int) ([]T, []byte) {
	size := int(unsafe.Sizeof(*new(T))) * n
	if size == 0 {
		return nil, nil
	}
	mem, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return make([]T, n), nil // no mapping: the heap will do
	}
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(mem))), n), mem
}

// unmap releases memory from offHeap; nothing may use it afterwards.
func unmap(mem []byte) {
	if mem != nil {
		_ = syscall.Munmap(mem)
	}
}
