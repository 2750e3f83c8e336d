package pipeline

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/repoprep/repoprep/internal/tokens"
	"github.com/repoprep/repoprep/snapshot"
)

// The publication tests need a second process: one that holds the lock, or
// one to kill. The test binary re-runs itself in child mode for that.
const (
	childSrc    = "REPOPREP_TEST_CHILD_SRC"
	childOut    = "REPOPREP_TEST_CHILD_OUT"
	childBlock  = "REPOPREP_TEST_CHILD_BLOCK"  // stage at which the child stops and waits
	childReady  = "REPOPREP_TEST_CHILD_READY"  // file the child creates once it waits
	childGo     = "REPOPREP_TEST_CHILD_GO"     // file whose appearance lets a waiting child go on; unset: wait for ever
	childNoFile = "REPOPREP_TEST_CHILD_NOFILE" // RLIMIT_NOFILE for the run
	childTokens = "REPOPREP_TEST_CHILD_TOKENS" // where the tokenizer's tables are kept between this binary's processes
)

// TestMain runs the test binary as a child run when the environment says
// so, and keeps the tokenizer's tables for the children.
//
// Tests that change package state (tokensReady, refresh's windows,
// extractLimits, the environment) or time what they run stay sequential;
// the heavy ones that do neither call t.Parallel, so they run two at a
// time once the sequential ones are done, and the package's tests (make
// test's longest process) use both cores of a CI runner.
func TestMain(m *testing.M) {
	if src := os.Getenv(childSrc); src != "" {
		tokens.UseCache(os.Getenv(childTokens))
		os.Exit(childRun(src))
	}
	// The children build the tokenizer's tables once, not each: 2-4 s a
	// process under -race. The directory is open to nobody's children too.
	dir, err := os.MkdirTemp("", "repoprep-test-tokens-")
	if err == nil {
		os.Chmod(dir, 0o777)
		os.Setenv(childTokens, dir)
		tokens.UseCache(dir)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func childRun(src string) int {
	opts := Options{Root: src, OutDir: os.Getenv(childOut), Workers: 2, MaxTextBytes: 1024,
		Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))}
	if stage := os.Getenv(childBlock); stage != "" {
		opts.Progress = blockAt{stage, os.Getenv(childReady), os.Getenv(childGo)}
	}
	if n, err := strconv.ParseUint(os.Getenv(childNoFile), 10, 64); err == nil {
		if err := setNoFile(n); err != nil {
			fmt.Fprintln(os.Stderr, "child: setrlimit:", err)
			return 2
		}
	}
	if _, err := Run(context.Background(), opts); err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		return 1
	}
	return 0
}

// blockAt stops the run when a stage starts, after saying so, until the
// file goOn appears (for good when goOn is "").
type blockAt struct{ stage, ready, goOn string }

func (b blockAt) Stage(name string, _ int) {
	if name != b.stage {
		return
	}
	os.WriteFile(b.ready, []byte("ready"), 0o644)
	if b.goOn == "" {
		select {}
	}
	for {
		if _, err := os.Stat(b.goOn); err == nil {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}
func (blockAt) Add(int) {}
func (blockAt) Done()   {}

// startBlockedChild starts a run in another process and waits until it
// holds the lock and has begun its temporary snapshot.
func startBlockedChild(t *testing.T, src, out string, env ...string) *exec.Cmd {
	t.Helper()
	ready := filepath.Join(t.TempDir(), "ready")
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(append(os.Environ(), childSrc+"="+src, childOut+"="+out, childBlock+"=files", childReady+"="+ready), env...)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := os.Stat(ready); err == nil {
			return cmd
		}
		if time.Now().After(deadline) {
			t.Fatal("child run never reached the per-file loop")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestKilledRunLeavesOldSnapshot: SIGKILL mid-run leaves the published
// snapshot intact; the next run is not blocked and removes the leftovers.
func TestKilledRunLeavesOldSnapshot(t *testing.T) {
	src := fixtureTree(t)
	parent := t.TempDir()
	out := filepath.Join(parent, "out")
	runFixture(t, src, out, nil)
	before := treeState(t, out)

	child := startBlockedChild(t, src, out)
	leftovers, _ := filepath.Glob(filepath.Join(parent, ".out.tmp-*"))
	if len(leftovers) == 0 {
		t.Fatal("the child run made no temporary snapshot; the test proves nothing")
	}
	if err := child.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	child.Wait()
	if treeState(t, out) != before {
		t.Fatal("the killed run changed the published snapshot")
	}

	runFixture(t, src, out, nil) // must not be blocked by the dead run's lock
	assertNoLeftovers(t, parent)
}

// TestSecondRunRefused: while one run holds OUT, another exits with
// snapshot.ErrLocked naming the holder, and changes nothing.
func TestSecondRunRefused(t *testing.T) {
	src := fixtureTree(t)
	parent := t.TempDir()
	out := filepath.Join(parent, "out")
	runFixture(t, src, out, nil)
	before := treeState(t, out)
	child := startBlockedChild(t, src, out)

	_, err := Run(context.Background(), Options{Root: src, OutDir: out})
	if !errors.Is(err, snapshot.ErrLocked) {
		t.Fatalf("second run: err = %v, want snapshot.ErrLocked", err)
	}
	if want := "pid " + strconv.Itoa(child.Process.Pid); !strings.Contains(err.Error(), want) {
		t.Errorf("error %q does not name the holder (%s)", err, want)
	}
	if !strings.HasPrefix(err.Error(), out+": ") {
		t.Errorf("error %q does not start with OUT (%s), as the user gave it", err, out)
	}
	if treeState(t, out) != before {
		t.Fatal("the refused run changed the snapshot")
	}
}
