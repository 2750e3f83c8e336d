package testkit

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// TestNPMCI installs once per lock file: a second call finds the install
// without running npm, a new lock gets an install of its own, and a
// failing npm skips the test (it fails under RequireNodeEnv).
func TestNPMCI(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the stand-in npm is a shell script")
	}
	dir := t.TempDir()
	fakeNPM := func(name, script string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"+script), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := fakeNPM("npm-good", `[ "$1" = ci ] && mkdir -p node_modules/pkg && echo "$PWD" > node_modules/pkg/where`)
	bad := fakeNPM("npm-bad", "echo 'npm error: no registry' >&2; exit 1")
	pkg := func(lock string) string {
		p := filepath.Join(t.TempDir(), "pkg")
		WriteTree(t, p, map[string]string{"package.json": "{}\n", "package-lock.json": lock})
		return p
	}
	installs := func(d string) {
		t.Cleanup(func() { os.RemoveAll(d) })
	}
	ctx := context.Background()
	// A lock no other test run has: the name of this run's temporary dir.
	first := pkg(`{"lockfileVersion": 3, "name": "` + dir + `"}`)

	got := NPMCI(t, ctx, good, first)
	installs(got)
	if _, err := os.Stat(filepath.Join(got, "node_modules", "pkg", "where")); err != nil {
		t.Fatalf("the install is not where NPMCI says: %v", err)
	}
	if again := NPMCI(t, ctx, bad, first); again != got {
		t.Errorf("second call: %s, want the cached %s (without running npm)", again, got)
	}
	if other := NPMCI(t, ctx, good, pkg(`{"lockfileVersion": 3, "name": "`+dir+`-2"}`)); other == got {
		t.Errorf("a new lock file shares the install %s", got)
	} else {
		installs(other)
	}

	t.Setenv(RequireNodeEnv, "")
	failing := pkg(`{"lockfileVersion": 3, "name": "` + dir + `-3"}`)
	var inner *testing.T
	t.Run("npm fails", func(t *testing.T) {
		inner = t
		NPMCI(t, ctx, bad, failing)
	})
	if !inner.Skipped() {
		t.Errorf("a failing npm ci did not skip the test")
	}
}

func TestScript(t *testing.T) {
	modules := t.TempDir()
	src := filepath.Join(t.TempDir(), "read.mjs")
	if err := os.WriteFile(src, []byte("console.log(1)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var a, b string
	t.Run("copies", func(t *testing.T) {
		a, b = Script(t, modules, src), Script(t, modules, src)
		if a == b || filepath.Dir(a) != modules || filepath.Ext(a) != ".mjs" {
			t.Errorf("copies %s and %s: want two names of their own in %s, ending .mjs", a, b, modules)
		}
		if data, err := os.ReadFile(a); err != nil || string(data) != "console.log(1)\n" {
			t.Errorf("copy %s: %q, %v", a, data, err)
		}
	})
	for _, p := range []string{a, b} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s outlived its test: %v", p, err)
		}
	}
}
