package snapshot

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestVerifyReportHTML: report.html is optional (snapshots from before the
// page have none), its content is not checked, but when it is there it
// must be a regular file: never a symlink or a directory in its place.
func TestVerifyReportHTML(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, dir string)
		want  []string
	}{
		{"absent", func(t *testing.T, dir string) {}, nil},
		{"regular", func(t *testing.T, dir string) {
			noErr(t, os.WriteFile(filepath.Join(dir, ReportHTML), []byte("<!DOCTYPE html><title>x</title>"), 0o644))
		}, nil},
		{"symlink", func(t *testing.T, dir string) {
			if err := os.Symlink("/etc/passwd", filepath.Join(dir, ReportHTML)); err != nil {
				t.Skipf("no symlinks here: %v", err)
			}
		}, []string{"report.html: not a regular file (L---------)"}},
		{"directory", func(t *testing.T, dir string) {
			noErr(t, os.Mkdir(filepath.Join(dir, ReportHTML), 0o755))
		}, []string{"report.html: not a regular file (d---------)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			tree, extra := verifyFixture()
			writeSnapshot(t, dir, tree, extra)
			tt.setup(t, dir)
			drifts, err := Verify(context.Background(), dir)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, d := range drifts {
				got = append(got, d.String())
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("drifts = %q, want %q", got, tt.want)
			}
		})
	}
}
