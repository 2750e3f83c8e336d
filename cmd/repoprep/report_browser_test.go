package main

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/repoprep/repoprep/internal/testkit"
	"github.com/repoprep/repoprep/internal/testkit/browser"
)

// reportViewports are the windows the report is checked at: desktop and
// phone, each light and dark.
var reportViewports = []browser.Viewport{
	browser.Desktop,
	{Width: browser.Desktop.Width, Height: browser.Desktop.Height, Dark: true},
	browser.Phone,
	{Width: browser.Phone.Width, Height: browser.Phone.Height, Dark: true, Mobile: true},
}

// readmeShot is where -update writes the desktop light screenshot that
// the README shows; maxShotBytes keeps it light for the repository.
const (
	readmeShot   = "../../docs/images/report.png"
	maxShotBytes = 300 << 10
)

// TestReportInBrowser runs `repoprep run` on this repository and loads
// OUT/report.html from file:// in headless Chromium at desktop and phone
// widths, light and dark: no console error, no exception, no request
// (the page is self-contained), ready (data-ready="1") within a
// generous bound, a treemap with cells, at least three data tables with
// rows, and no serious or critical axe-core violation. With -update the
// desktop light screenshot becomes docs/images/report.png.
func TestReportInBrowser(t *testing.T) {
	if testkit.Race || testing.Short() {
		t.Skip("a whole run of the repository and a browser: the pass without -race or -short runs it")
	}
	b := browser.Open(t)
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out")
	start := time.Now()
	if code, _, stderr := runCmd(t, "run", "-q", "--progress", "never", "-o", out, root); code != exitOK {
		t.Fatalf("repoprep run %s: exit %d\n%s", root, code, stderr)
	}
	t.Logf("repoprep run on the repository: %v", time.Since(start).Round(time.Millisecond))
	shots := t.TempDir()
	if dir := os.Getenv("REPOPREP_REPORT_SHOTS"); dir != "" {
		shots = dir // to look at them after the test
	}
	pages := checkReport(t, b, filepath.Join(out, "report.html"), 10*time.Second, shots)
	if update := flag.Lookup("update"); update != nil && update.Value.String() == "true" && pages[0] != nil {
		shot := pages[0].Screenshot
		if len(shot) > maxShotBytes {
			t.Fatalf("the desktop screenshot is %d KB, over %d KB: not written to %s", len(shot)>>10, maxShotBytes>>10, readmeShot)
		}
		if err := os.MkdirAll(filepath.Dir(readmeShot), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(readmeShot, shot, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s (%d KB)", readmeShot, len(shot)>>10)
	}
}

// TestBenchReport is make bench-report: the checks of TestReportInBrowser
// on a large tree (REPOPREP_BENCH_REPORT=DIR, Go's src/ by default), run
// into a tmpfs, where the page must be drawn (navigation start to
// data-ready) within 2 s and weigh under 5 MB. It prints both figures.
func TestBenchReport(t *testing.T) {
	tree := os.Getenv("REPOPREP_BENCH_REPORT")
	if tree == "" {
		t.Skip("set REPOPREP_BENCH_REPORT=DIR (make bench-report)")
	}
	const (
		maxReady = 2 * time.Second
		maxBytes = 5 << 20
	)
	b := browser.Open(t)
	base, err := os.MkdirTemp("/dev/shm", "repoprep-benchreport-")
	if err != nil {
		base = t.TempDir()
		t.Logf("no tmpfs at /dev/shm (%v): OUT in %s", err, base)
	} else {
		t.Cleanup(func() { os.RemoveAll(base) })
	}
	out := filepath.Join(base, "out")
	start := time.Now()
	if code, _, stderr := runCmd(t, "run", "-q", "--progress", "never", "-o", out, tree); code != exitOK {
		t.Fatalf("repoprep run %s: exit %d\n%s", tree, code, stderr)
	}
	t.Logf("repoprep run %s: %v", tree, time.Since(start).Round(time.Millisecond))
	html := filepath.Join(out, "report.html")
	info, err := os.Stat(html)
	if err != nil {
		t.Fatal(err)
	}
	// A first page pays for the browser's cold start (fonts, the first
	// renderer): a user's browser is already running, so a small page of
	// text, tables and SVG goes first and is not measured.
	warm := filepath.Join(base, "warm.html")
	if err := os.WriteFile(warm, []byte(warmPage), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("warm-up page ready after %v", b.Load(t, browser.FileURL(warm), browser.Desktop).Ready.Round(time.Millisecond))
	pages := checkReport(t, b, html, maxReady, base)
	for _, p := range pages {
		if p != nil {
			t.Logf("bench-report: %s: report.html %.2f MB, load+draw %v", p.Viewport, float64(info.Size())/(1<<20), p.Ready.Round(time.Millisecond))
		}
	}
	if info.Size() >= maxBytes {
		t.Errorf("report.html is %.2f MB, want under %d MB", float64(info.Size())/(1<<20), maxBytes>>20)
	}
}

// warmPage is the warm-up of TestBenchReport.
const warmPage = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>warm-up</title>
<style>body{font-family:system-ui,sans-serif} code{font-family:monospace} @media (prefers-color-scheme: dark){body{background:#111;color:#eee}}</style></head>
<body><main><h1>Warm-up</h1><p>Text, <code>code</code> and <strong>bold</strong>.</p>
<table><caption>t</caption><tr><th scope="col">a</th></tr><tr><td>1</td></tr></table>
<svg width="100" height="50"><rect width="50" height="50" fill="teal"></rect><text x="55" y="30">svg</text></svg>
<script>document.documentElement.dataset.ready = "1";</script></main></body></html>`

// reportShape is what the page shows, counted in the browser.
type reportShape struct {
	Rects       int `json:"rects"`       // <rect> cells of svg#treemap
	Tables      int `json:"tables"`      // table.data with at least one data row
	ScrollWidth int `json:"scrollWidth"` // wider than the viewport: the page scrolls sideways
}

const countShape = `(() => ({
	rects: document.querySelectorAll("svg#treemap rect").length,
	tables: [...document.querySelectorAll("table.data")].filter(t => [...t.rows].some(r => r.querySelector("td"))).length,
	scrollWidth: document.documentElement.scrollWidth,
}))()`

// checkReport loads the page at every reportViewports entry and checks
// it there; it returns the pages in that order (nil where a subtest did
// not get as far), their screenshots written to shots.
func checkReport(t *testing.T, b *browser.Browser, html string, maxReady time.Duration, shots string) []*browser.Page {
	t.Helper()
	if _, err := os.Stat(html); err != nil {
		t.Fatalf("no report page: %v", err)
	}
	pages := make([]*browser.Page, len(reportViewports))
	for i, v := range reportViewports {
		t.Run(v.String(), func(t *testing.T) {
			p := b.Load(t, browser.FileURL(html), v)
			pages[i] = p
			if err := os.WriteFile(filepath.Join(shots, "report-"+v.String()+".png"), p.Screenshot, 0o644); err != nil {
				t.Error(err)
			}
			switch {
			case !p.IsReady:
				t.Errorf("not ready (data-ready=\"1\") within %v", b.ReadyTimeout)
			case p.Ready > maxReady:
				t.Errorf("ready after %v, want within %v", p.Ready.Round(time.Millisecond), maxReady)
			default:
				t.Logf("ready after %v (navigation start to data-ready)", p.Ready.Round(time.Millisecond))
			}
			for what, got := range map[string][]string{"console errors": p.ConsoleErrors, "uncaught exceptions": p.Exceptions, "requests (the page must make none)": p.Requests} {
				if len(got) > 0 {
					t.Errorf("%s:\n  %s", what, strings.Join(got, "\n  "))
				}
			}
			var shape reportShape
			p.Evaluate(t, countShape, &shape)
			if shape.Rects < 1 {
				t.Errorf("the treemap (svg#treemap) has %d rect cells, want at least 1", shape.Rects)
			}
			if shape.Tables < 3 {
				t.Errorf("%d table.data with rows, want at least 3", shape.Tables)
			}
			if shape.ScrollWidth > int(v.Width) {
				t.Logf("note: the page is %d px wide in a %d px viewport (scrolls sideways)", shape.ScrollWidth, v.Width)
			}
			if v.Mobile {
				return // axe-core at desktop width, once per colour scheme: each run is seconds
			}
			start := time.Now()
			vs := p.Axe(t)
			bad := vs.AtLeast(browser.Serious)
			t.Logf("axe-core in %v: %d violations, %d serious or critical", time.Since(start).Round(time.Millisecond), len(vs), len(bad))
			for _, v := range vs {
				if v.Impact != browser.Serious && v.Impact != browser.Critical {
					t.Logf("axe-core, allowed: %s", v)
				}
			}
			for _, v := range bad {
				t.Errorf("axe-core: %s", v)
			}
		})
	}
	return pages
}
