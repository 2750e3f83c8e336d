package pipeline

import (
	"time"

	"github.com/repoprep/repoprep/refresh"
	"github.com/repoprep/repoprep/report"
	"github.com/repoprep/repoprep/stages"
)

// refreshKey is the refresh key, taken beside the lock and the scan.
type refreshKey struct {
	done chan struct{}
	key  string
	err  error // the running program could not be read
}

// keyed waits for the refresh key and records it in the report; call it
// after the scan, before anything reads r.reuse.
func (r *run) keyed() {
	<-r.key.done
	switch {
	case r.key.err != nil:
		// Without the build's digest no snapshot can be trusted to be this
		// build's: read everything, and write no state.
		r.reuse.Previous, r.reuse.Detail = report.PreviousNoState, r.key.err.Error()
	case r.opts.Full:
		r.reuse.Key, r.reuse.Previous = r.key.key, report.PreviousFull
	default:
		r.reuse.Key = r.key.key
	}
}

// keepIfUnchanged ends a refresh right after the scan when nothing it
// depends on changed (refresh.Prior.Unchanged: the same scan, no file in
// the racy window, the same key, the published snapshot as its state
// describes it): the snapshot at OUT is what the run would publish, so it
// is kept as it is, and nothing in OUT is written. The result is that
// snapshot's manifest and findings, with a report of this run whose
// refresh says unchanged (report.json in OUT stays the one that
// published the snapshot). It also takes the scan's digest for the state
// a republishing run writes (run.scanSum).
func (r *run) keepIfUnchanged(env *stages.Env, recs []*stages.Record) (*Result, bool) {
	if r.reuse.Key == "" {
		return nil, false // no state is written, none is used
	}
	r.scanSum = refresh.ScanDigest(recs, r.pruned)
	if r.opts.Full {
		return nil, false
	}
	<-r.load.done
	p := r.load.p
	if p == nil {
		return nil, false
	}
	begin := time.Now()
	if ok, why := p.Unchanged(env, recs, r.scanSum); !ok {
		r.opts.Logger.Debug("refresh: publishing again", "why", why)
		return nil, false
	}
	m, findings := p.Result()
	res := &Result{Manifest: m, Findings: findings}
	r.reuse.Previous, r.reuse.Unchanged = report.PreviousUsed, true
	for _, rec := range recs {
		if rec.Kind != stages.KindFile || rec.Category != "" || rec.Err != "" {
			r.reuse.NotReused[report.NotReusedScan]++
		} else {
			r.reuse.Reused++
		}
	}
	r.record("reuse", time.Since(begin), 0, recs, nil)
	res.Report = r.buildReport(res)
	r.kept = true
	return res, true
}
