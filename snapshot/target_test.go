package snapshot

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckTargetSymlink: an OUT that is a symlink is refused as one,
// saying where it points, whether it points to a previous snapshot, an
// empty directory, a file or nothing; it is never called "not a
// directory" (it may well point to one).
func TestCheckTargetSymlink(t *testing.T) {
	base := t.TempDir()
	src := filepath.Join(base, "src")
	snap := filepath.Join(base, "snap")
	empty := filepath.Join(base, "empty")
	file := filepath.Join(base, "file")
	for _, d := range []string{src, snap, empty} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(snap, FilesJSON), []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for name, target := range map[string]string{
		"to a snapshot":         snap,
		"to an empty directory": empty,
		"to a file":             file,
		"dangling":              filepath.Join(base, "nowhere"),
		"relative":              "snap",
	} {
		t.Run(name, func(t *testing.T) {
			out := filepath.Join(base, "out-"+strings.ReplaceAll(name, " ", "-"))
			if err := os.Symlink(target, out); err != nil {
				t.Skipf("no symlinks here: %v", err)
			}
			err := CheckTarget(src, out)
			if err == nil {
				t.Fatalf("CheckTarget(%s) = nil, want the symlink refused", out)
			}
			msg := err.Error()
			if !strings.Contains(msg, out+" is a symlink (to "+target+")") || strings.Contains(msg, "not a directory") {
				t.Errorf("CheckTarget: %q, want it to say %s is a symlink to %s", msg, out, target)
			}
		})
	}
	// The directories themselves are fine targets.
	for _, out := range []string{snap, empty} {
		if err := CheckTarget(src, out); err != nil {
			t.Errorf("CheckTarget(%s) = %v", out, err)
		}
	}
}
