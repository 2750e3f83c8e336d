// Package browser drives a headless Chromium (Debian's chromium package)
// for tests of the pages repoprep writes: it loads a page from file:// at
// a given viewport and colour scheme with the network off, and says what
// went wrong in it (console errors, uncaught exceptions, attempted
// requests, how long it took to become ready), takes a screenshot, and
// runs axe-core on it. Only tests import it.
//
// Without chromium the tests that use it are skipped, or fail when
// REPOPREP_REQUIRE_CHROMIUM is set (CI sets it).
package browser

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// RequireEnv names the environment variable that turns a missing chromium
// into a test failure: CI sets it, so the browser checks never skip there.
const RequireEnv = "REPOPREP_REQUIRE_CHROMIUM"

// ExecPath is where Debian's chromium package puts the browser; a
// chromium found first on PATH wins.
const ExecPath = "/usr/bin/chromium"

// DefaultReadyTimeout is how long Load waits for a page to say it is
// ready: generous, since tests share a busy machine; tests that care about
// speed assert their own bound on Page.Ready.
const DefaultReadyTimeout = 10 * time.Second

// maxLogBytes bounds what is kept of chromium's own output, to show
// when a test fails.
const maxLogBytes = 64 << 10

// Browser is one chromium process for one test: each Load opens a tab in
// it. It is safe for concurrent use by subtests.
type Browser struct {
	ctx          context.Context // the browser's chromedp context; every tab is a child
	ReadyTimeout time.Duration   // how long Load waits for ready; DefaultReadyTimeout unless changed
	Started      time.Duration   // from exec to the first answer over the protocol

	axeMu sync.Mutex
	axeJS string // axe-core's source, read on the first Axe call

	log *tailBuffer
}

// Open starts chromium headless (no sandbox when running as root, a
// temporary profile that goes with it) and stops it when the test ends.
// Without chromium the test is skipped, or fails when RequireEnv is set.
func Open(tb testing.TB) *Browser {
	tb.Helper()
	exe := lookChromium(tb)
	log := &tailBuffer{max: maxLogBytes}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe),
		chromedp.CombinedOutput(log),
		// Belt and braces beside the request interception of each tab:
		// no host name resolves, so nothing leaves the machine even if
		// a request slipped past it.
		chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND"),
		chromedp.Flag("no-proxy-server", true),
		// Software rendering only: there is no GPU on the test machines.
		chromedp.Flag("disable-gpu", true),
	)
	if os.Geteuid() == 0 {
		opts = append(opts, chromedp.NoSandbox) // chromium refuses to start as root with it
	}
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(allocCtx)
	b := &Browser{ctx: ctx, ReadyTimeout: DefaultReadyTimeout, log: log}
	tb.Cleanup(func() {
		cancel()
		cancelAlloc()
		if tb.Failed() {
			tb.Logf("chromium's output (last %d KB, D-Bus complaints aside):\n%s", maxLogBytes>>10, log.quiet())
		}
	})
	// The first Do starts the browser; it must have no deadline (the
	// browser lives as long as that call's context), so a watchdog
	// cancels a start that hangs.
	start := time.Now()
	watchdog := time.AfterFunc(time.Minute, cancel)
	err := chromedp.Do(ctx)
	watchdog.Stop()
	if err != nil {
		tb.Fatalf("start %s: %v\n%s", exe, err, log.quiet())
	}
	b.Started = time.Since(start)
	return b
}

// lookChromium finds the browser, or skips (fails under RequireEnv).
func lookChromium(tb testing.TB) string {
	tb.Helper()
	exe, err := exec.LookPath("chromium")
	if err != nil {
		if _, statErr := os.Stat(ExecPath); statErr == nil {
			return ExecPath
		}
		if os.Getenv(RequireEnv) != "" {
			tb.Fatalf("%s is set but chromium is missing: %v (apt-get install chromium)", RequireEnv, err)
		}
		tb.Skipf("chromium not found: the browser checks are skipped (apt-get install chromium; set %s=1 to fail instead)", RequireEnv)
	}
	return exe
}

// tailBuffer keeps the last max bytes written to it; chromium writes to
// it from its own goroutine.
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
	max int
}

func (w *tailBuffer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	if extra := len(w.buf) - w.max; extra > 0 {
		w.buf = append(w.buf[:0], w.buf[extra:]...)
	}
	return len(p), nil
}

// quiet is the output without the lines chromium prints on every start
// in a container: no D-Bus there, and a test in Debian's launcher script
// that trips on a large number.
func (w *tailBuffer) quiet() string {
	var out []string
	for line := range strings.SplitSeq(w.String(), "\n") {
		if !strings.Contains(line, "/dbus/") && !strings.Contains(line, "unexpected operator") {
			out = append(out, line)
		}
	}
	return strings.Join(out, "\n")
}

func (w *tailBuffer) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return string(bytes.TrimSpace(w.buf))
}
