//go:build linux

package pipeline

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestDiskFull: a run that runs out of space fails, leaves the previous
// snapshot exactly as it was and removes its temporary files. It needs a
// small tmpfs, which only root can mount.
func TestDiskFull(t *testing.T) {
	mnt := t.TempDir()
	if err := syscall.Mount("tmpfs", mnt, "tmpfs", 0, "size=512k"); err != nil {
		t.Skipf("cannot mount a small tmpfs to fill (needs root): %v", err)
	}
	t.Cleanup(func() { syscall.Unmount(mnt, syscall.MNT_DETACH) })
	src := fixtureTree(t)
	out := filepath.Join(mnt, "out")
	runFixture(t, src, out, nil)
	before := treeState(t, out)

	// Grow the input past what the filesystem can hold.
	big := strings.Repeat("0123456789abcdef\n", 64<<10/17*16) // ~1 MiB of text
	if err := os.WriteFile(filepath.Join(src, "grown.txt"), []byte(big), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Run(context.Background(), Options{Root: src, OutDir: out, MaxTextBytes: 1024})
	if err == nil {
		t.Fatal("run on a full disk succeeded")
	}
	if !strings.Contains(err.Error(), "no space left") {
		t.Errorf("error %q does not say the disk is full", err)
	}
	if treeState(t, out) != before {
		t.Fatal("a failed run changed the published snapshot")
	}
	assertNoLeftovers(t, mnt)
}
