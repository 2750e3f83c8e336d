package testkit

import (
	"context"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zeebo/blake3"
)

// RequireNodeEnv names the environment variable that turns a missing node
// or npm, or an npm ci that fails, into a test failure: CI sets it, so the
// checks that run node packages never skip there.
const RequireNodeEnv = "REPOPREP_REQUIRE_NODE"

// Node returns the paths of node and npm. Without them the test is
// skipped with a message naming what goes unchecked, or fails when
// RequireNodeEnv is set.
func Node(tb testing.TB, unchecked string) (node, npm string) {
	tb.Helper()
	node, errNode := exec.LookPath("node")
	npm, errNpm := exec.LookPath("npm")
	if errNode != nil || errNpm != nil {
		if os.Getenv(RequireNodeEnv) != "" {
			tb.Fatalf("%s is set but node or npm is missing (%v, %v): %s", RequireNodeEnv, errNode, errNpm, unchecked)
		}
		tb.Skipf("node or npm not found: %s (set %s=1 to fail instead)", unchecked, RequireNodeEnv)
	}
	return node, npm
}

// npmCache is the user's cache directory, read when the test binary
// starts: before a TestMain points XDG_CACHE_HOME at a temporary one for
// repoprep's own caches (cmd/repoprep's does), so every test binary
// shares one install per lock file.
var npmCache = func() string {
	if dir, err := os.UserCacheDir(); err == nil {
		return dir
	}
	return os.TempDir()
}()

// NPMCI installs the packages that pkgDir's package.json and
// package-lock.json pin (npm ci, install scripts off) into a cache
// directory named by the lock file's hash, and returns that directory:
// node_modules sits in it. The install happens once per lock file on a
// machine; a test process installs into a temporary directory beside it
// and renames it into place, so two processes never see a half-installed
// tree, and a new lock file gets a directory of its own. When npm ci
// fails (no registry?) the test is skipped, or fails when RequireNodeEnv
// is set.
//
// Node resolves a script's imports from the script's own directory:
// run scripts from the returned directory (Script copies one there).
func NPMCI(tb testing.TB, ctx context.Context, npm, pkgDir string) string {
	tb.Helper()
	lock, err := os.ReadFile(filepath.Join(pkgDir, "package-lock.json"))
	if err != nil {
		tb.Fatal(err)
	}
	sum := blake3.Sum256(lock)
	dir := filepath.Join(npmCache, "repoprep-test", filepath.Base(pkgDir)+"-"+hex.EncodeToString(sum[:8]))
	// The directory appears only by the rename below, after npm ci
	// succeeded: its existence means a complete install.
	if _, err := os.Stat(filepath.Join(dir, "node_modules")); err == nil {
		return dir
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		tb.Fatal(err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), ".install-")
	if err != nil {
		tb.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	for _, name := range []string{"package.json", "package-lock.json"} {
		data, err := os.ReadFile(filepath.Join(pkgDir, name))
		if err == nil {
			err = os.WriteFile(filepath.Join(tmp, name), data, 0o644)
		}
		if err != nil {
			tb.Fatal(err)
		}
	}
	start := time.Now()
	cmd := exec.CommandContext(ctx, npm, "ci", "--prefer-offline", "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error")
	cmd.Dir = tmp
	if out, err := cmd.CombinedOutput(); err != nil {
		if os.Getenv(RequireNodeEnv) != "" {
			tb.Fatalf("npm ci in %s: %v\n%s", pkgDir, err, out)
		}
		tb.Skipf("npm ci in %s: %v (no registry?): the check that needs it is skipped\n%s", pkgDir, err, out)
	}
	tb.Logf("npm ci: %s in %v", pkgDir, time.Since(start).Round(time.Millisecond))
	if err := os.Rename(tmp, dir); err != nil {
		if _, statErr := os.Stat(filepath.Join(dir, "node_modules")); statErr != nil {
			tb.Fatal(err) // not another test process that installed it first
		}
	}
	return dir
}

// scriptSeq makes the names Script gives unique within a process; the
// process id makes them unique across processes.
var scriptSeq atomic.Int64

// Script copies the script at path into modules (a directory NPMCI
// returned) under a name of its own, so that node resolves its imports
// from modules/node_modules, and returns the copy's path; the copy is
// removed when the test ends.
func Script(tb testing.TB, modules, path string) string {
	tb.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	ext := filepath.Ext(path)
	name := filepath.Base(path[:len(path)-len(ext)]) + "-" + strconv.Itoa(os.Getpid()) + "-" + strconv.FormatInt(scriptSeq.Add(1), 10) + ext
	copied := filepath.Join(modules, name)
	if err := os.WriteFile(copied, data, 0o644); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { os.Remove(copied) })
	return copied
}
