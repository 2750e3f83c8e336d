package main

import (
	"io"
	"sync"

	"github.com/schollz/progressbar/v3"
)

// progress draws one bar per stage on a terminal. pipeline calls it from
// worker goroutines; progressbar locks internally, and mu guards the swap
// from one stage's bar to the next.
type progress struct {
	w   io.Writer
	mu  sync.Mutex
	bar *progressbar.ProgressBar
}

func newProgress(w io.Writer) *progress { return &progress{w: w} }

func (p *progress) Stage(name string, total int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar != nil {
		p.bar.Finish()
	}
	p.bar = progressbar.NewOptions(total,
		progressbar.OptionSetWriter(p.w),
		progressbar.OptionSetDescription(name),
		progressbar.OptionShowCount(),
		progressbar.OptionSetItsString("files"),
		progressbar.OptionShowIts(),
		progressbar.OptionThrottle(100_000_000),
		progressbar.OptionClearOnFinish(),
	)
}

func (p *progress) Add(n int) {
	p.mu.Lock()
	bar := p.bar
	p.mu.Unlock()
	if bar != nil {
		bar.Add(n)
	}
}

func (p *progress) Done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar != nil {
		p.bar.Finish()
		p.bar = nil
	}
	io.WriteString(p.w, "\r\033[K")
}
