// Command rsscap runs a test binary for `go test -exec` and fails it when
// its peak resident memory passes a limit: make test holds every test
// process under 4 GB (REPOPREP_TEST_RSS_LIMIT), so a test that grows past
// it fails where it grew instead of swapping a CI runner to a halt. With
// REPOPREP_TEST_RSS_LOG set, each binary's wall time and peak are
// appended there, for make test's summary.
package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"
)

// defaultLimit is make test's bound on one test process.
const defaultLimit = 4 << 30

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: rsscap TEST-BINARY [ARGS...] (as go test -exec)")
		os.Exit(2)
	}
	limit := int64(defaultLimit)
	if s := os.Getenv("REPOPREP_TEST_RSS_LIMIT"); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n <= 0 {
			fmt.Fprintf(os.Stderr, "rsscap: REPOPREP_TEST_RSS_LIMIT=%q: want a byte count\n", s)
			os.Exit(2)
		}
		limit = n
	}
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		fmt.Fprintf(os.Stderr, "rsscap: %v\n", err)
		os.Exit(2)
	}
	name := filepath.Base(os.Args[1])
	peak := peakRSS(cmd.ProcessState)
	if log := os.Getenv("REPOPREP_TEST_RSS_LOG"); log != "" {
		if f, err := os.OpenFile(log, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644); err == nil {
			fmt.Fprintf(f, "%s\t%.1f s\t%d MB\n", name, wall.Seconds(), peak>>20)
			f.Close()
		}
	}
	code := cmd.ProcessState.ExitCode()
	if peak > limit {
		fmt.Fprintf(os.Stderr, "rsscap: %s peaked at %d MB, over the %d MB a test process may use; shrink what it holds\n", name, peak>>20, limit>>20)
		if code == 0 {
			code = 1
		}
	}
	os.Exit(code)
}
