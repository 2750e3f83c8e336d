package browser

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/repoprep/repoprep/internal/testkit"
)

// doc wraps a body in a document that passes every axe-core rule, and
// says it is ready at the end, as the report does.
func doc(head, body string) string {
	return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>harness page</title>
<style>body{color:#111;background:#fff} @media (prefers-color-scheme: dark){body{color:#eee;background:#111}}</style>` + head + `</head>
<body><main><h1>Harness</h1>` + body + `</main>
<script>document.documentElement.dataset.ready = "1";</script></body></html>`
}

// TestHarness proves each check can fail: every page but the clean one
// carries one fault, and the harness must report exactly that fault.
//
// It runs in the pass without -race: a browser is a child process, and the
// race detector has nothing of it to see but the few goroutines here
// (go test -race -run TestHarness passes; run it after changing them).
func TestHarness(t *testing.T) {
	if testkit.Race {
		t.Skip("runs in the pass without -race")
	}
	b := Open(t)
	t.Logf("chromium started in %v", b.Started.Round(time.Millisecond))
	tests := []struct {
		name      string
		html      string
		viewport  Viewport
		console   string   // a console error containing it
		exception string   // an exception containing it
		request   string   // a request to it
		axe       []string // axe-core rule ids of serious or critical violations
		notReady  bool
	}{
		{name: "clean", html: doc("", "<p>Nothing wrong here.</p>"), viewport: Desktop},
		{name: "clean phone dark", html: doc("", "<p>Nothing wrong here.</p>"), viewport: Viewport{Width: 390, Height: 844, Dark: true, Mobile: true}},
		{name: "console error", html: doc("", `<script>console.error("the treemap has no data")</script>`), viewport: Desktop,
			console: "the treemap has no data"},
		{name: "uncaught exception", html: doc("", `<script>null.draw()</script>`), viewport: Desktop,
			exception: "TypeError"},
		{name: "unhandled rejection", html: doc("", `<script>Promise.reject(new Error("late failure"))</script>`), viewport: Desktop,
			exception: "late failure"},
		{name: "error after ready", html: doc("", `<script>setTimeout(() => { throw new Error("after ready") }, 0)</script>`), viewport: Desktop,
			exception: "after ready"},
		{name: "image from the network", html: doc("", `<p>Logo:</p><img src="https://example.com/x.png" alt="logo">`), viewport: Desktop,
			request: "https://example.com/x.png", console: "ERR_BLOCKED_BY_CLIENT"},
		{name: "fetch to the network", html: doc("", `<script>fetch("http://example.org/beacon").catch(() => {})</script>`), viewport: Desktop,
			request: "http://example.org/beacon", console: "ERR_BLOCKED_BY_CLIENT"},
		{name: "websocket to the network", html: doc("", `<script>new WebSocket("wss://example.net/live")</script>`), viewport: Desktop,
			request: "wss://example.net/live", console: "WebSocket"},
		{name: "inaccessible", html: doc("", `<img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=">`+
			`<p style="color:#bbb;background:#fff">Pale grey on white.</p>`), viewport: Desktop,
			axe: []string{"color-contrast", "image-alt"}},
		{name: "low contrast in dark mode only", html: doc(`<style>@media (prefers-color-scheme: dark){.x{color:#222}}</style>`,
			`<p class="x">Dark grey on near black.</p>`), viewport: Viewport{Width: 1280, Height: 800, Dark: true},
			axe: []string{"color-contrast"}},
		{name: "never ready", html: strings.Replace(doc("", "<p>Waiting.</p>"), `dataset.ready = "1"`, `dataset.ready = "0"`, 1), viewport: Desktop,
			notReady: true},
	}
	dir := t.TempDir()
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, tt.name+".html")
			if err := os.WriteFile(path, []byte(tt.html), 0o644); err != nil {
				t.Fatal(err)
			}
			if tt.notReady {
				defer func(d time.Duration) { b.ReadyTimeout = d }(b.ReadyTimeout)
				b.ReadyTimeout = 300 * time.Millisecond
			}
			p := b.Load(t, FileURL(path), tt.viewport)
			t.Logf("%s: ready %v after %v", tt.viewport, p.IsReady, p.Ready.Round(time.Microsecond))
			if p.IsReady == tt.notReady {
				t.Errorf("IsReady = %v, want %v", p.IsReady, !tt.notReady)
			}
			if p.IsReady && (p.Ready <= 0 || p.Ready > DefaultReadyTimeout) {
				t.Errorf("ready after %v: not a time since navigation start", p.Ready)
			}
			checkOne(t, "console errors", p.ConsoleErrors, tt.console)
			checkOne(t, "exceptions", p.Exceptions, tt.exception)
			checkOne(t, "requests", p.Requests, tt.request)

			cfg, err := png.DecodeConfig(bytes.NewReader(p.Screenshot))
			if err != nil {
				t.Fatalf("screenshot: %v", err)
			}
			if int64(cfg.Width) != tt.viewport.Width || int64(cfg.Height) != tt.viewport.Height {
				t.Errorf("screenshot %dx%d, viewport %s", cfg.Width, cfg.Height, tt.viewport)
			}
			var seen struct {
				Width int64 `json:"width"`
				Dark  bool  `json:"dark"`
			}
			p.Evaluate(t, `({width: innerWidth, dark: matchMedia("(prefers-color-scheme: dark)").matches})`, &seen)
			if seen.Width != tt.viewport.Width || seen.Dark != tt.viewport.Dark {
				t.Errorf("the page sees width %d, dark %v; viewport %s", seen.Width, seen.Dark, tt.viewport)
			}
			if i > 0 && tt.axe == nil {
				return // axe-core once on a clean page, and where it must find something
			}
			vs := p.Axe(t)
			var ids []string
			for _, v := range vs.AtLeast(Serious) {
				ids = append(ids, v.ID)
			}
			slices.Sort(ids)
			if !slices.Equal(ids, tt.axe) {
				t.Errorf("axe-core: serious or critical %q, want %q\n%s", ids, tt.axe, vs)
			}
			if tt.axe == nil && len(vs) > 0 {
				t.Errorf("axe-core on the clean page: %s", vs)
			}
		})
	}
}

// checkOne wants exactly one entry, containing want, or none when want is
// empty.
func checkOne(t *testing.T, what string, got []string, want string) {
	t.Helper()
	switch {
	case want == "" && len(got) > 0:
		t.Errorf("%s: %q, want none", what, got)
	case want != "" && !slices.ContainsFunc(got, func(s string) bool { return strings.Contains(s, want) }):
		t.Errorf("%s: %q, want one containing %q", what, got, want)
	}
}

func TestViolationsAtLeast(t *testing.T) {
	vs := Violations{{ID: "a", Impact: Critical}, {ID: "b", Impact: Serious}, {ID: "c", Impact: Moderate}, {ID: "d", Impact: Minor}, {ID: "e"}}
	for _, tt := range []struct {
		min  Impact
		want []string
	}{
		{Critical, []string{"a"}},
		{Serious, []string{"a", "b"}},
		{Moderate, []string{"a", "b", "c"}},
		{Minor, []string{"a", "b", "c", "d"}},
	} {
		var got []string
		for _, v := range vs.AtLeast(tt.min) {
			got = append(got, v.ID)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("AtLeast(%s) = %q, want %q", tt.min, got, tt.want)
		}
	}
	if n := len(vs.ByImpact()[Serious]); n != 1 {
		t.Errorf("ByImpact()[serious] has %d, want 1", n)
	}
}
