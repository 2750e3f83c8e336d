package corpus

import "context"

// tableRun is the table being written (writeTable) beside the work that
// feeds it: the builds of a whole run, the digests of a merge. Each
// repository is handed over by its slot in LIST as it is done, in any
// order; the writer takes them in LIST order as far as they are there.
// It is one goroutine more than the worker budget, and it waits while
// the repository next in LIST is not done.
type tableRun struct {
	in     tableInput
	cancel context.CancelFunc
	out    chan tableResult
	result *tableResult // once wait or stop has it
}

type tableResult struct {
	m   *Manifest
	err error
}

// startTable starts writing the table of in, whose statuses and digests
// are allocated, one per repository of LIST, and filled by done.
func startTable(ctx context.Context, in tableInput) *tableRun {
	ctx, cancel := context.WithCancel(ctx)
	in.ready = make([]chan struct{}, len(in.statuses))
	for i := range in.ready {
		in.ready[i] = make(chan struct{})
	}
	t := &tableRun{in: in, cancel: cancel, out: make(chan tableResult, 1)}
	go func() {
		m, err := writeTable(ctx, in)
		t.out <- tableResult{m, err}
	}()
	return t
}

// done hands over repository slot of LIST: what became of it and, when
// it did not fail, its digest. It is called once a slot, from any
// goroutine.
func (t *tableRun) done(slot int, st repoStatus, digest *repoRows) {
	if st.Error != "" {
		digest = nil
	}
	t.in.statuses[slot], t.in.digests[slot] = st, digest
	close(t.in.ready[slot])
}

// wait waits for the table, every slot handed over, and returns its
// manifest.
func (t *tableRun) wait() (*Manifest, error) {
	if t.result == nil {
		r := <-t.out
		t.result = &r
	}
	return t.result.m, t.result.err
}

// stop stops a table that is still being written (its pending directory
// is discarded and its lock released) and waits for it; after wait it
// does nothing.
func (t *tableRun) stop() {
	t.cancel()
	t.wait()
}
