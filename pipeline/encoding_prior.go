package pipeline

import (
	"context"
	"errors"

	"github.com/repoprep/repoprep/report"
	"github.com/repoprep/repoprep/stages"
)

// redecideWeak is the pass after the per-file loop that lets the
// repository's other files decide its weak texts (stages.EncodingMemo):
// it finds the repository's prior charsets from the texts decided on
// strong evidence, this run's and those a refresh reused alike, and runs
// every weak text decided under another prior (all of them, in a run
// whose loop knew no prior; in a refresh, the ones whose prior changed)
// through the same per-file loop again, under its prior. A weak text
// never counts toward a prior, so one pass settles it; the prior is a
// function of the set of files, so the result does not depend on the
// order the workers took them in.
func (r *run) redecideWeak(ctx context.Context, env *stages.Env, recs []*stages.Record) error {
	priors := stages.FindEncodingPriors(recs)
	var again []*stages.Record
	for _, rec := range recs {
		if prior := priors.For(rec.Path); rec.NeedsRedecide(prior) {
			again = append(again, rec)
		}
	}
	if len(again) == 0 {
		return nil
	}
	if r.prior.Replayed() {
		// A replay reads nothing and takes the previous findings: the
		// files are all as they were, so are the priors, and every weak
		// text was decided under its prior last time. Reading one now
		// would stage it without the secret stage's redaction.
		return errors.New("refresh: a replay found a text to decide again; run with --full")
	}
	for _, rec := range again {
		if r.prior != nil && rec.EncodingReused() {
			// A refresh took it from the previous snapshot; it is read
			// again now, for the prior: say so in report.json.
			r.reuse.Reused--
			r.reuse.NotReused[report.NotReusedPrior]++
		}
		env.Redecide(rec, priors.For(rec.Path))
	}
	return r.perFile(ctx, env, again, false)
}
