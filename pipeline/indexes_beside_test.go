package pipeline

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/repoprep/repoprep/snapshot"
)

// The outputs that need only the records and the staged tree are written
// while the indexes are built, not after them: a build held back until
// files.json, REPO_MAP.md and instructions.json exist still finishes (with
// them written after the build, as before, it would wait forever), and a
// build that fails fails the run, with nothing published, whatever was
// written beside it.
func TestIndexesBesideOutputs(t *testing.T) {
	src := fixtureTree(t)
	want := t.TempDir() + "/want"
	runFixture(t, src, want, nil)
	boom := errors.New("index build failed")
	for _, c := range []struct {
		name    string
		hook    func(ctx context.Context, out *snapshot.Pending) error
		wantErr error
	}{
		{"outputs written beside the build", func(ctx context.Context, out *snapshot.Pending) error {
			return waitWritten(ctx, out, snapshot.FilesJSON, snapshot.RepoMapMD, snapshot.InstructionsJSON, snapshot.OversizeJSON)
		}, nil},
		{"a failed build publishes nothing", func(context.Context, *snapshot.Pending) error { return boom }, boom},
		{"a build failing late publishes nothing", func(ctx context.Context, out *snapshot.Pending) error {
			if err := waitWritten(ctx, out, snapshot.InstructionsJSON); err != nil {
				return err
			}
			return boom
		}, boom},
	} {
		t.Run(c.name, func(t *testing.T) {
			indexesStarting = c.hook
			defer func() { indexesStarting = nil }()
			out := t.TempDir() + "/out"
			for _, workers := range []int{1, 2} {
				_, err := Run(context.Background(), Options{Root: src, OutDir: out, Workers: workers, MaxTextBytes: 1024, PreviewLines: 3, Version: "test", Full: true})
				if c.wantErr != nil {
					if !errors.Is(err, c.wantErr) {
						t.Fatalf("workers %d: Run = %v, want %v", workers, err, c.wantErr)
					}
					if _, err := os.Stat(out); !os.IsNotExist(err) {
						t.Fatalf("workers %d: OUT exists after a failed run (%v)", workers, err)
					}
					continue
				}
				if err != nil {
					t.Fatalf("workers %d: %v", workers, err)
				}
				sameOutputs(t, want, out)
			}
		})
	}
}

// waitWritten waits until every name exists in the pending snapshot, or fails
// after a while: the test's proof that it was written while the build
// waited.
func waitWritten(ctx context.Context, out *snapshot.Pending, names ...string) error {
	deadline := time.Now().Add(20 * time.Second)
	for _, name := range names {
		for {
			if _, err := os.Stat(out.Path(name)); err == nil {
				break
			}
			if time.Now().After(deadline) {
				return errors.New(name + " was not written while the index build waited")
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	return nil
}

// sameOutputs compares the snapshot files that do not record times.
func sameOutputs(t *testing.T, want, got string) {
	t.Helper()
	for _, name := range []string{snapshot.FilesJSON, snapshot.RepoMapMD, snapshot.InstructionsJSON, snapshot.OversizeJSON, snapshot.SearchIndex, snapshot.LinesJSON, snapshot.LineTokens} {
		a, err := os.ReadFile(want + "/" + name)
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(got + "/" + name)
		if err != nil {
			t.Fatal(err)
		}
		if string(a) != string(b) {
			t.Errorf("%s differs from a run's without the hook", strings.TrimPrefix(name, "/"))
		}
	}
}
