package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// Viewport is the window a page is loaded into.
type Viewport struct {
	Width, Height int64
	Dark          bool // prefers-color-scheme: dark (light otherwise)
	Mobile        bool // a phone: the page's meta viewport applies, touch on
}

// The viewports the report is checked at.
var (
	Desktop = Viewport{Width: 1280, Height: 800}
	Phone   = Viewport{Width: 390, Height: 844, Mobile: true}
)

// String names a viewport for subtests and screenshot files: 1280x800-light.
func (v Viewport) String() string {
	scheme := "light"
	if v.Dark {
		scheme = "dark"
	}
	return fmt.Sprintf("%dx%d-%s", v.Width, v.Height, scheme)
}

// ReadyMarker is what a page sets once it is drawn: the time to ready is
// measured up to document.documentElement.dataset.ready == "1".
const ReadyMarker = `document.documentElement.dataset.ready == "1"`

// readyHook runs in the page before any of its own scripts: it notes
// performance.now() (milliseconds since the navigation started) when the
// root element gets data-ready="1", whether a script sets it or the
// markup has it.
const readyHook = `(() => {
	const mark = () => {
		const root = document.documentElement;
		if (root && root.dataset.ready === "1" && window.__browserReadyMs === undefined) {
			window.__browserReadyMs = performance.now();
		}
	};
	new MutationObserver(mark).observe(document, {attributes: true, subtree: true, attributeFilter: ["data-ready"]});
	document.addEventListener("DOMContentLoaded", mark);
})();`

// settle waits for the frames after ready to be painted and for any
// timer the page set to run, so errors they raise are counted.
const settle = `new Promise(done => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(done, 50))))`

// Page is one loaded page: what went wrong while it loaded, how long it
// took, and its screenshot. Its tab stays open for Evaluate and Axe until
// the test ends.
type Page struct {
	URL      string
	Viewport Viewport

	ConsoleErrors []string      // console.error calls and browser log errors, in order
	Exceptions    []string      // uncaught exceptions and unhandled rejections
	Requests      []string      // every request past the page itself (data: and blob: aside); http(s) ones were blocked
	IsReady       bool          // the page set data-ready="1" within ReadyTimeout
	Ready         time.Duration // from navigation start to data-ready="1"
	Screenshot    []byte        // PNG of the viewport, after ready

	b      *Browser
	ctx    context.Context // the tab's
	events *events
}

// events collects what the tab reports; the tab's listener writes, Load
// reads.
type events struct {
	page string // the URL loaded: not a request of the page's own

	mu         sync.Mutex
	console    []string
	exceptions []string
	requests   []string
}

// FileURL is the file:// URL of a local path.
func FileURL(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String()
}

// Load opens rawURL in a new tab at v with the network off, waits until
// the page is ready (ReadyMarker) or ReadyTimeout passes, lets it settle,
// and takes a screenshot. A page that never gets ready is not a harness
// failure: IsReady says so. Trouble driving the browser fails the test.
func (b *Browser) Load(tb testing.TB, rawURL string, v Viewport) *Page {
	tb.Helper()
	ev := &events{page: rawURL}
	ctx, cancel := chromedp.NewContext(b.ctx, chromedp.WithListener(ev.listen))
	tb.Cleanup(cancel)
	p := &Page{URL: rawURL, Viewport: v, b: b, ctx: ctx, events: ev}

	// The first Do attaches the tab, which then lives as long as that
	// call's context: ctx itself, with a watchdog instead of a deadline.
	watchdog := time.AfterFunc(time.Minute, cancel)
	err := chromedp.Do(ctx)
	watchdog.Stop()
	if err != nil {
		tb.Fatalf("open a tab for %s: %v", rawURL, err)
	}
	// Turn on what the listener needs before the navigation, so nothing
	// the page does goes unseen.
	tctx, tcancel := context.WithTimeout(ctx, b.ReadyTimeout+time.Minute)
	defer tcancel()
	scheme := "light"
	if v.Dark {
		scheme = "dark"
	}
	var opts []chromedp.EmulateViewportOption
	if v.Mobile {
		opts = append(opts, chromedp.EmulateMobile, chromedp.EmulatePortrait)
	}
	err = chromedp.Do(tctx,
		chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
			if _, err := chromedp.Call(ctx, log.Enable, struct{}{}); err != nil {
				return err
			}
			if _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); err != nil {
				return err
			}
			// Every http(s) request pauses here and is failed (blocked
			// by client); the listener records it.
			_, err := chromedp.Call(ctx, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{
				{URLPattern: "http://*"}, {URLPattern: "https://*"},
			}})
			if err != nil {
				return err
			}
			if _, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
				Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}},
			}); err != nil {
				return err
			}
			_, err = chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: readyHook})
			return err
		}),
		chromedp.EmulateViewport(v.Width, v.Height, opts...),
	)
	if err != nil {
		tb.Fatalf("set up the tab for %s: %v", rawURL, err)
	}
	// Subscribe here, before the navigation: a paused request nobody
	// answers would hang the page's load.
	go blockRequests(ctx, chromedp.Events(ctx, fetch.RequestPaused))

	if err := chromedp.Do(tctx, chromedp.Navigate(rawURL)); err != nil {
		tb.Fatalf("navigate to %s: %v", rawURL, err)
	}
	deadline := time.Now().Add(b.ReadyTimeout)
	for {
		ms, err := chromedp.Run(tctx, chromedp.Evaluate[*float64](`window.__browserReadyMs ?? null`))
		if err != nil {
			tb.Fatalf("%s: wait for ready: %v", rawURL, err)
		}
		if ms != nil {
			p.IsReady, p.Ready = true, time.Duration(*ms*float64(time.Millisecond))
			break
		}
		if time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if _, err := chromedp.Run(tctx, chromedp.Evaluate[chromedp.Void](settle, chromedp.EvalAwaitPromise)); err != nil {
		tb.Fatalf("%s: settle: %v", rawURL, err)
	}
	p.Screenshot, err = chromedp.Run(tctx, chromedp.CaptureScreenshot())
	if err != nil {
		tb.Fatalf("%s: screenshot: %v", rawURL, err)
	}
	ev.mu.Lock()
	p.ConsoleErrors = append([]string(nil), ev.console...)
	p.Exceptions = append([]string(nil), ev.exceptions...)
	p.Requests = append([]string(nil), ev.requests...)
	ev.mu.Unlock()
	return p
}

// blockRequests fails every request the tab's fetch interception pauses
// (http and https: see Load) until the tab closes; the listener has
// recorded them. It runs in a goroutine of its own: a listener may not
// send commands.
func blockRequests(ctx context.Context, paused iter.Seq2[fetch.EventRequestPaused, error]) {
	for ev, err := range paused {
		if err != nil {
			return // the tab closed
		}
		chromedp.Call(ctx, fetch.FailRequest, fetch.FailRequestParams{RequestID: ev.RequestID, ErrorReason: network.ErrorReasonBlockedByClient})
	}
}

// listen runs in the tab's message loop: it only records.
func (e *events) listen(ev any) {
	e.mu.Lock()
	defer e.mu.Unlock()
	switch ev := ev.(type) {
	case *runtime.EventConsoleAPICalled:
		if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeAssert {
			e.console = append(e.console, "console."+string(ev.Type)+": "+argsText(ev.Args))
		}
	case *runtime.EventExceptionThrown:
		e.exceptions = append(e.exceptions, exceptionText(ev.ExceptionDetails))
	case *log.EventEntryAdded:
		if ev.Entry.Level == log.EntryLevelError {
			e.console = append(e.console, string(ev.Entry.Source)+": "+ev.Entry.Text+atURL(ev.Entry.URL))
		}
	case *network.EventRequestWillBeSent:
		u := ev.Request.URL
		if ev.Type == network.ResourceTypeDocument && u == e.page {
			return // the page itself
		}
		if strings.HasPrefix(u, "data:") || strings.HasPrefix(u, "blob:") {
			return
		}
		e.requests = append(e.requests, u)
	case *network.EventWebSocketCreated:
		e.requests = append(e.requests, ev.URL) // not paused by fetch; no host name resolves (Open)
	}
}

// argsText renders console arguments the way the console shows
// primitives; objects by their description.
func argsText(args []*runtime.RemoteObject) string {
	var parts []string
	for _, a := range args {
		switch {
		case a.Type == runtime.RemoteObjectTypeString:
			var s string
			if json.Unmarshal(a.Value, &s) == nil {
				parts = append(parts, s)
				continue
			}
		case len(a.Value) > 0:
			parts = append(parts, string(a.Value))
			continue
		}
		parts = append(parts, a.Description)
	}
	return strings.Join(parts, " ")
}

// exceptionText is the exception's description (message and stack) or,
// for a thrown non-Error, its text and value.
func exceptionText(d *runtime.ExceptionDetails) string {
	if d == nil {
		return "exception without details"
	}
	if d.Exception != nil && d.Exception.Description != "" {
		return d.Exception.Description
	}
	s := d.Text
	if d.Exception != nil && len(d.Exception.Value) > 0 {
		s += " " + string(d.Exception.Value)
	}
	return s + atURL(d.URL)
}

func atURL(u string) string {
	if u == "" {
		return ""
	}
	return " (" + u + ")"
}

// Evaluate runs js in the page and decodes its JSON result into out (nil
// to ignore it); a promise is awaited. Errors fail the test.
func (p *Page) Evaluate(tb testing.TB, js string, out any) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, time.Minute)
	defer cancel()
	raw, err := chromedp.Run(ctx, chromedp.Evaluate[[]byte](js, chromedp.EvalAwaitPromise))
	if err != nil {
		tb.Fatalf("%s: evaluate %.80q: %v", p.URL, js, err)
	}
	if out == nil {
		return
	}
	if len(raw) == 0 {
		raw = []byte("null") // undefined
	}
	if err := json.Unmarshal(raw, out); err != nil {
		tb.Fatalf("%s: evaluate %.80q: result %.200s: %v", p.URL, js, raw, err)
	}
}
