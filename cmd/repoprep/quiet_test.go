package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/repoprep/repoprep/snapshot"
)

// TestQuietHidesWarnings: -q promises only errors on stderr. A snapshot
// whose refresh state is gone makes the next run warn that it reads
// every file again; with -q that warning is not printed, without it is.
func TestQuietHidesWarnings(t *testing.T) {
	src := smallRepo(t, nil)
	for _, tc := range []struct {
		name  string
		flags []string
		warns bool
	}{
		{"default", nil, true},
		{"-q", []string{"-q"}, false},
		{"--quiet", []string{"--quiet"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "o")
			args := []string{"run", "--progress", "never", "-o", out, src}
			var stdout, stderr bytes.Buffer
			if code := run(context.Background(), append(args, "-q"), &stdout, &stderr); code != exitOK {
				t.Fatalf("first run: exit %d: %s", code, stderr.String())
			}
			if err := os.Chmod(out, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Remove(filepath.Join(out, snapshot.StateFile)); err != nil {
				t.Fatal(err)
			}
			stdout.Reset()
			stderr.Reset()
			if code := run(context.Background(), append(args, tc.flags...), &stdout, &stderr); code != exitOK {
				t.Fatalf("second run: exit %d: %s", code, stderr.String())
			}
			warned := strings.Contains(stderr.String(), "not using the previous snapshot's state")
			if warned != tc.warns {
				t.Errorf("warned = %v, want %v; stderr:\n%s", warned, tc.warns, stderr.String())
			}
			if !tc.warns && stderr.Len() != 0 {
				t.Errorf("stderr not empty under %s:\n%s", tc.name, stderr.String())
			}
		})
	}
}
