package stages

import (
	"testing"
	"unsafe"
)

// TestRecordPacks: a Record is kept for every file of the tree for the
// whole run, so its size is memory per file. 512 bytes is one of the Go
// allocator's size classes; at 632 (before what only the per-file loop
// needs, the head, triage's reasons, the file's bytes and a scan with
// findings, moved to its work, and the OS path stopped being held beside
// Path) each took 640, and at 680 (before its fields were ordered to pack
// and the scan's file ID stopped being held twice) 704.
func TestRecordPacks(t *testing.T) {
	if got, limit := unsafe.Sizeof(Record{}), uintptr(512); got > limit {
		t.Errorf("stages.Record is %d bytes, over %d: order its fields so they pack, or keep what only one stage needs off it", got, limit)
	}
}
