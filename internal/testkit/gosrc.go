package testkit

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// GoRoot asks the go command for GOROOT: the Go distribution's src/ is
// the largest body of real text nobody here wrote that every machine
// running these tests has.
func GoRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// GoSrc returns GOROOT/src, or skips the test when there is none.
func GoSrc(tb testing.TB) string {
	tb.Helper()
	root, err := GoRoot()
	if err != nil {
		tb.Skipf("go env GOROOT: %v", err)
	}
	src := filepath.Join(root, "src")
	if _, err := os.Stat(src); err != nil {
		tb.Skipf("no GOROOT/src: %v", err)
	}
	return src
}
