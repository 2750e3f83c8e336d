//go:build !linux

package corpus

import "os/exec"

// freeBytes: only Linux has /dev/shm; elsewhere the benchmark uses TMPDIR.
func freeBytes(string) int64 { return 0 }

// unreadableAsChild: a mode-000 directory is only checked on Linux.
func unreadableAsChild(*exec.Cmd, string) (bool, string) {
	return false, "checked on Linux only"
}
