//go:build unix

package stages

import (
	"path/filepath"
	"syscall"
	"testing"
)

func TestScanDevice(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mknod(filepath.Join(dir, "null"), syscall.S_IFCHR|0o666, int(1<<8|3)); err != nil {
		t.Skipf("cannot make a device node here (needs CAP_MKNOD): %v", err)
	}
	recs, _ := scanDir(t, dir, ScanOptions{})
	if r := recs["null"]; r == nil || r.Reason != "special-file" || r.Kind != KindSpecial {
		t.Fatalf("device = %+v, want special-file", r)
	}
}
