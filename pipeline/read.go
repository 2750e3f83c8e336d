package pipeline

import (
	"cmp"
	"context"
	"time"

	"github.com/repoprep/repoprep/internal/tokens"
	"github.com/repoprep/repoprep/refresh"
	"github.com/repoprep/repoprep/report"
	"github.com/repoprep/repoprep/stages"
)

// readFiles runs the per-file stages on the records they must read, with
// what the previous snapshot gives taken meanwhile (refresh.Prior.Split): the
// copies of reused files go on while the others are read, and a record
// whose copy turned out not to be what files.json said is read after.
// Without a previous snapshot every record is read.
func (r *run) readFiles(ctx context.Context, env *stages.Env, recs []*stages.Record) error {
	<-r.load.done
	r.prior = r.load.p
	if r.prior == nil {
		r.reuse.Previous = cmp.Or(r.load.previous, r.reuse.Previous, report.PreviousNone)
		r.reuse.Detail = cmp.Or(r.load.detail, r.reuse.Detail)
		if r.load.previous == report.PreviousNoState && r.load.detail != "" {
			// OUT holds a snapshot whose state is missing, damaged, not
			// this key's or refused (too large to be one): say so, or a
			// scheduled refresh just runs slow every time.
			r.opts.Logger.Warn("refresh: not using the previous snapshot's state; reading every file again", "why", r.load.detail)
		}
		if len(recs) > 0 {
			r.reuse.NotReused[r.reuse.Previous] = len(recs)
		}
		if !r.warmed {
			go tokens.Warm()
		}
		if err := r.useScanner(env); err != nil {
			return err
		}
		return r.perFile(ctx, env, recs, true)
	}
	r.reuse.Previous = report.PreviousUsed
	begin := time.Now()
	r.opts.Progress.Stage("reuse", -1)
	todo, wait := r.prior.Split(ctx, env, recs, r.opts.Workers, r.reuse.NotReused, func() bool {
		return r.useScanner(env) == nil && env.NamesClean(ctx, r.secrets, recs) && r.prior.NoValueInNames(recs, r.pruned)
	})
	warmIfCounting(todo)
	spent := time.Since(begin)
	// The rules' compile, started after the scan, runs beside the copies
	// Split has started placing.
	err := r.useScanner(env)
	if err == nil {
		err = r.perFile(ctx, env, todo, true)
	}
	begin = time.Now()
	late, werr := wait(err != nil)
	spent += time.Since(begin) // the copies' time that the reading did not hide
	if err = cmp.Or(err, werr); err != nil {
		return err
	}
	if len(late) > 0 {
		warmIfCounting(late)
		if err := r.perFile(ctx, env, late, false); err != nil {
			return err
		}
	}
	r.reuse.Reused = len(recs) - len(todo) - len(late)
	read := make(map[*stages.Record]bool, len(todo)+len(late))
	for _, rec := range append(todo, late...) {
		read[rec] = true
	}
	// Its CPU is the loop's: the copies are placed while the loop runs.
	r.record("reuse", spent, 0, recs, func(rec *stages.Record) bool { return !read[rec] })
	// The cross-file pass may skip a reused text when it looks for no value
	// the previous run did not (none of those occurred in it).
	r.secrets.ValuesKnown = r.prior.ValuesKnown
	return nil
}

// warmIfCounting builds the tokenizer's tables in the background (a
// fraction of a second of one core) if some record the per-file stages
// read will have its tokens counted: one that is not decided by the scan
// and for which the refresh expects no text. An unchanged refresh whose
// only reads are files with findings then never builds them (REPO_MAP.md
// is reused too, refresh.Prior.SameRepoMap).
func warmIfCounting(recs []*stages.Record) {
	for _, rec := range recs {
		if rec.Kind == stages.KindFile && rec.Category == "" && rec.Err == "" && rec.Size > 0 && rec.Memo.Expect == nil {
			go tokens.Warm()
			return
		}
	}
}

// priorLoad is the previous snapshot, loaded while the scan runs.
type priorLoad struct {
	done             chan struct{}
	p                *refresh.Prior
	previous, detail string
}
