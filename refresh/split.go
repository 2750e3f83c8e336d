package refresh

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/zeebo/blake3"
	"golang.org/x/sync/errgroup"

	"github.com/repoprep/repoprep/internal/dedup"
	"github.com/repoprep/repoprep/internal/dirfd"
	"github.com/repoprep/repoprep/internal/secrets"
	"github.com/repoprep/repoprep/report"
	"github.com/repoprep/repoprep/snapshot"
	"github.com/repoprep/repoprep/stages"
)

// Split is the seam between the scan and the per-file stages. It returns
// the records those stages must read now (todo) and a function, wait,
// that the caller must call once those stages are done (or failed:
// abandon). Meanwhile every other record's staged text (its own, or its
// canonical copy's for a duplicate) is copied from the previous tree into
// the new one, in the background so the copies overlap the per-file work,
// and checked against the hash files.json recorded. wait returns when the
// copies are done, having filled each record placed from its previous
// entry (stages.Env.Reuse), and returns the records whose copy was not
// what files.json said: the per-file stages must read those too. The
// per-file stages must have run on todo by then. Records
// without staged text (refused, binary, data...) are filled at once. why
// counts, by reason, the records not taken. It only decides which records
// enter the per-file loop.
//
// When nothing changed (every file the state lists is there with its
// identity, no file is new, and no path or link target holds a secret:
// namesClean), the files with findings are not read either. Their values
// are the ones the previous run caught, so every copy it redacted and
// every finding it reported stand: their previous copies are placed like
// any other, and p.replayed tells the caller to take the previous findings
// instead of running the secret stage. If one of those copies is not what
// files.json says, they are all read after all.
//
// The same holds when the only other changes are files that held nothing
// (no finding, so no value of theirs is masked anywhere): edited or new
// texts that still hold nothing, and files gone. The rules, run on the
// texts in the per-file loop, caught nothing, and none holds a value the
// previous run looked for, which the state knows by its sketch and
// digest (stillNothing). A value caught in one file is masked in every
// file, so the texts with findings are read again only when a change
// adds or holds one. Otherwise, as when a copy differs, wait gives the
// replay up and returns them to be read.
func (p *Prior) Split(ctx context.Context, env *stages.Env, recs []*stages.Record, workers int, why map[string]int, namesClean func() bool) (todo []*stages.Record, wait func(abandon bool) ([]*stages.Record, error)) {
	reasons := make([]string, len(recs))
	var jobs []job
	priors := make([]taken, len(recs))
	type finding struct {
		i  int
		en *snapshot.Entry
	}
	var findings []finding // read again for their findings, unless replayed
	seen := 0
	// edited are the records read because they changed, whose previous
	// texts held nothing, or are new: a replay may stand beside them
	// (stillNothing). known counts those with a previous entry.
	var edited []int
	known := 0
	partial := true
	// rescan: a file the scan decides (ignored, excluded by a rule) that
	// the secret stage scans every run, not as it was when it held
	// nothing: a replay, which runs no secret stage, would not see it.
	rescan := false
	for i, rec := range recs {
		if p.files[rec.Path] != nil {
			rec.Memo.NameClean = true // recorded, so its path held no finding under these rules
		}
		r, en, se := p.check(env, rec)
		switch {
		case r == "" || r == report.NotReusedFindings:
			seen++
		case r == report.NotReusedScan:
			rescan = rescan || rec.Kind == stages.KindFile && rec.Err == "" && rec.Size > 0 && !p.decidedAsBefore(rec)
		case (r == report.NotReusedChanged || r == report.NotReusedRacy || r == report.NotReusedError) && p.heldNothing(rec.Path):
			edited = append(edited, i)
			known++
		case r == report.NotReusedNew:
			edited = append(edited, i)
		default:
			partial = false
		}
		if r == report.NotReusedFindings && en != nil {
			findings = append(findings, finding{i, en})
		}
		if r == report.NotReusedFindings && se.Text != "" {
			// Read again for its values; if its text is what it was, its
			// token count is last time's (exact, and not counted again).
			if d, err := hex.DecodeString(se.Text); err == nil && len(d) == 32 {
				rec.Memo.Expect = &stages.Expectation{Key: p.textKey, Digest: [32]byte(d), Tokens: se.Tokens, Final: en.Hash, FinalTokens: en.Tokens}
			}
		}
		if r != "" {
			reasons[i] = r
			continue
		}
		priors[i] = taken{entry: *en, rulesClean: se.Rules, valuesClean: true, clean: true, enc: se.Enc}
		switch j, ok := p.placeJob(i, en); {
		case !ok:
			reasons[i] = report.NotReusedCopy
		case j.from == "":
			reuse(rec, priors[i]) // nothing to place
		default:
			jobs = append(jobs, j)
		}
	}
	// The replay: every other file as it was, and every finding from text.
	// A partial one: beside it texts edited or new, and files gone, none
	// of which held anything; wait decides whether the texts read hold
	// nothing now.
	full := seen == len(p.files) && len(edited) == 0 &&
		!slices.ContainsFunc(reasons, func(r string) bool { return r != "" && r != report.NotReusedFindings && r != report.NotReusedScan })
	partial = partial && (seen+known == len(p.files) || p.goneHeldNothing(recs))
	replay := len(findings) > 0 && !rescan && (full || partial) &&
		!slices.ContainsFunc(p.findings, func(f secrets.PathFinding) bool { return f.Line == 0 }) &&
		namesClean()
	var replayed []job // placed like the others, filled only if all of them are
	if replay {
		for _, f := range findings {
			prior := taken{entry: *f.en, enc: p.files[recs[f.i].Path].Enc}
			if hasText(f.en) {
				// Grouped by its text before redaction, as when read.
				d, err := hex.DecodeString(p.files[recs[f.i].Path].Text)
				if err != nil || len(d) != 32 {
					replay = false
					break
				}
				prior.replayed = (*[32]byte)(d)
			}
			j, ok := p.placeJob(f.i, f.en)
			if !ok {
				replay = false
				break
			}
			priors[f.i] = prior
			replayed = append(replayed, j)
		}
	}
	if replay {
		for _, j := range replayed {
			reasons[j.i] = ""
			if j.from != "" {
				jobs = append(jobs, j)
			}
		}
	}
	for i, r := range reasons {
		if r != "" {
			why[r]++
			todo = append(todo, recs[i])
		}
	}

	pctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		// A few long-lived workers, not a goroutine per file: each would
		// grow its stack again for the copy.
		g, gctx := errgroup.WithContext(pctx)
		out, err := env.Tree()
		if err != nil && len(jobs) > 0 {
			done <- err
			return
		}
		var next atomic.Int64
		for range max(workers, 1) {
			g.Go(func() error {
				for {
					k := int(next.Add(1) - 1)
					if k >= len(jobs) || gctx.Err() != nil {
						return nil
					}
					j := jobs[k]
					rec := recs[j.i]
					n, r, err := p.place(gctx, j.from, out, rec.Path, j.want, j.trust)
					if err != nil {
						return fmt.Errorf("refresh %s: %w", rec.Path, err)
					}
					reasons[j.i] = r
					priors[j.i].sum, priors[j.i].bytes = j.want, n
				}
			})
		}
		done <- g.Wait()
	}()
	wait = func(abandon bool) ([]*stages.Record, error) {
		if abandon {
			cancel()
		}
		err := <-done
		cancel()
		if err == nil {
			err = ctx.Err()
		}
		if err != nil {
			return nil, err
		}
		isReplayed := make(map[int]bool, len(replayed))
		for _, j := range replayed {
			isReplayed[j.i] = true
		}
		p.replayed = replay && !slices.ContainsFunc(jobs, func(j job) bool { return isReplayed[j.i] && reasons[j.i] != "" })
		if p.replayed && len(edited) > 0 {
			clean, err := p.stillNothing(ctx, env, recs, edited)
			if err != nil {
				return nil, err
			}
			p.replayed = clean
		}
		var late []*stages.Record
		for _, j := range jobs {
			rec := recs[j.i]
			if r := reasons[j.i]; r != "" {
				why[r]++
				late = append(late, rec)
				continue
			}
			if isReplayed[j.i] && !p.replayed {
				continue // read below, its copy removed
			}
			reuse(rec, priors[j.i])
		}
		for _, j := range replayed {
			rec := recs[j.i]
			switch {
			case p.replayed:
				if j.from == "" {
					reuse(rec, priors[j.i]) // nothing was placed
				}
			case reasons[j.i] == "":
				// A replay given up: read for its findings after all.
				if j.from != "" {
					out, err := env.Tree()
					if err == nil {
						err = out.Remove(rec.Path)
					}
					if err != nil {
						return nil, fmt.Errorf("refresh %s: %w", rec.Path, err)
					}
				}
				why[report.NotReusedFindings]++
				late = append(late, rec)
			}
		}
		return late, nil
	}
	return todo, wait
}

// decidedAsBefore reports whether rec, a file the scan decided, is the
// one the previous run scanned for secrets and found nothing in.
func (p *Prior) decidedAsBefore(rec *stages.Record) bool {
	se := p.decided[rec.Path]
	return se != nil && rec.Identity() == se.identity() && !racy(se.Mtime, se.Ctime, p.started)
}

// heldNothing reports whether the previous run found nothing in the file
// at path: no finding and no mask, its text read or the file refused
// (with an error read again every run, or for good).
func (p *Prior) heldNothing(path string) bool {
	se, en := p.files[path], p.entries[path]
	return se != nil && en != nil && (se.Redo == "" || se.Redo == report.NotReusedError) && en.Secrets == 0 && en.Masked == 0
}

// goneHeldNothing reports whether every file the previous run read that
// recs lacks (deleted, or renamed) held nothing and counted toward no
// encoding prior: its going changes no value, finding or charset.
func (p *Prior) goneHeldNothing(recs []*stages.Record) bool {
	here := make(map[string]bool, len(recs))
	for _, rec := range recs {
		here[rec.Path] = true
	}
	for path, se := range p.files {
		if !here[path] && (!p.heldNothing(path) || se.Enc.Strong != "") {
			return false
		}
	}
	return true
}

// stillNothing decides a partial replay once the per-file stages have
// read the edited records: each is a text as before (category and
// charset evidence, so no encoding prior moves), or a new text that
// counts toward no prior and was decided on strong evidence; the rules
// caught nothing in it, and it holds no value of the previous run's set
// (its name was checked with the others: NoValueInNames). A file refused
// before and again now has no text and is scanned by no stage, as
// before. Those are then clean as a secret stage would leave
// them.
func (p *Prior) stillNothing(ctx context.Context, env *stages.Env, recs []*stages.Record, edited []int) (bool, error) {
	var texts []int
	for _, i := range edited {
		rec := recs[i]
		se, en := p.files[rec.Path], p.entries[rec.Path]
		refused := en != nil && en.Err != ""
		if refused && rec.Err != "" {
			continue // refused again
		}
		if rec.Err != "" || !rec.Staged || !rec.RulesCaughtNothing() {
			return false, nil
		}
		texts = append(texts, i)
		if se == nil || en == nil || refused {
			if m := rec.Memo.Enc; m.Strong != "" || m.Named != "" || m.Weak {
				return false, nil // new, and it could move a prior
			}
		} else if rec.Category != en.Category || !rec.Memo.Enc.Same(se.Enc) {
			return false, nil
		}
	}
	if len(p.valueList) > 0 {
		out, err := env.Tree()
		if err != nil {
			return false, err
		}
		finder, err := p.finder()
		if err != nil {
			return false, nil // not what this build writes: read them all
		}
		for _, i := range texts {
			f, err := out.Open(recs[i].Path)
			if err != nil {
				return false, err
			}
			held, err := finder.Holds(ctx, f)
			f.Close()
			if err != nil || held {
				return false, err
			}
		}
	}
	for _, i := range texts {
		recs[i].Memo.Clean, recs[i].Memo.ValuesClean = true, true
	}
	return true, nil
}

// finder finds the previous run's values in a text by their sketches.
// It is made once, for the names and the texts read alike (neither runs
// beside the other).
func (p *Prior) finder() (*secrets.SketchFinder, error) {
	p.finderOnce.Do(func() {
		if len(p.sketch) != len(p.valueList) {
			p.sketchFinder, p.finderErr = nil, secrets.ErrSketch
			return
		}
		p.sketchFinder, p.finderErr = secrets.NewSketchFinder(p.sketchKey, p.valuesKey, p.sketch, p.valueList)
	})
	return p.sketchFinder, p.finderErr
}

// NoValueInNames reports whether no name a replay would publish unread
// holds a value the previous run looked for: a path the previous run did
// not record (its name was not checked then: a new symlink, an ignored
// file), any symlink's target, a pruned directory. A replay takes the
// previous findings, and those values are not in this run's set, so
// without this a new link whose target holds a token caught in a file
// would show it in files.json (the rules alone need not catch it there).
func (p *Prior) NoValueInNames(recs []*stages.Record, pruned []stages.Pruned) bool {
	if len(p.valueList) == 0 {
		return true
	}
	finder, err := p.finder()
	if err != nil {
		return false
	}
	holds := func(name string) bool { return finder.HoldsIn([]byte(name)) }
	for _, rec := range recs {
		if !rec.Memo.NameClean && holds(rec.Path) || rec.LinkTarget != "" && holds(rec.LinkTarget) {
			return false
		}
	}
	for _, pr := range pruned {
		if holds(pr.Path) {
			return false
		}
	}
	return true
}

// job is one staged text to place: recs[i]'s, from the previous tree.
type job struct {
	i     int
	from  string // the previous tree's copy to place; "": nothing to place
	want  [32]byte
	trust *copyID // its identity when the state was made
}

// placeJob is the copy that gives recs[i] its previous staged text, from
// its previous entry en: from is "" when the entry has no staged text
// (refused, binary, excluded...), ok false when files.json's hash for it
// is malformed.
func (p *Prior) placeJob(i int, en *snapshot.Entry) (j job, ok bool) {
	if !hasText(en) {
		return job{i: i}, true
	}
	from := snapshot.ServedBy(en, p.entries)
	if from == "" {
		return job{}, false // a duplicate of nothing staged: not what a run writes
	}
	want, err := hex.DecodeString(strings.TrimPrefix(en.Hash, dedup.HashPrefix))
	if err != nil || len(want) != 32 || !strings.HasPrefix(en.Hash, dedup.HashPrefix) {
		return job{}, false
	}
	j = job{i: i, from: from, want: [32]byte(want)}
	if se := p.files[from]; se != nil {
		j.trust = se.Copy
	}
	return j, true
}

// cloneFiles lets a benchmark measure the copy where reflinks work.
var cloneFiles = true

// copyBufs holds place's buffers; it runs on many goroutines at once.
var copyBufs = sync.Pool{New: func() any { b := make([]byte, 256<<10); return &b }}

// place puts a copy of the previous tree's from at rel in the new tree
// out (its directories made and the copy created relative to their
// parent's descriptor), a reflink where the filesystem has them (FICLONE:
// no bytes copied, and later writes to either never show in the other),
// else a copy; either way the bytes are hashed and must hash to want. A hard
// link is never used: it would share one inode between two snapshots, so
// a change to one would change a published snapshot, and verify and serve
// refuse hard-linked files. why is "" when placed, else why the record
// must be read from its source instead (nothing is left at rel). err is
// for failures of the machine: a full disk must stop the run.
func (p *Prior) place(ctx context.Context, from string, out *dirfd.Out, rel string, want [32]byte, trust *copyID) (n int64, why string, err error) {
	if n, why, err, ok := p.placeFast(ctx, from, out, rel, want, trust); ok {
		return n, why, err
	}
	src, err := p.copies.Open(from)
	if err != nil {
		if dirfd.IsResource(err) {
			return 0, "", err
		}
		return 0, report.NotReusedCopy, nil // gone, replaced by a symlink or a FIFO: not what files.json says
	}
	defer src.Close()
	dst, err := out.Create(rel, 0o644)
	if err != nil {
		return placeFailed(err)
	}
	ok := false
	defer func() {
		if !ok {
			dst.Close()
			out.Remove(rel)
		}
	}()
	bp := copyBufs.Get().(*[]byte)
	defer copyBufs.Put(bp)
	buf := *bp
	h := blake3.New()
	cloned := false
	if cloneFiles && !p.noClone.Load() {
		err := cloneFile(dst, src)
		cloned = err == nil
		if cloneUnsupported(err) {
			p.noClone.Store(true) // the filesystem has none: copy the rest without asking
		}
	}
	for {
		if err := ctx.Err(); err != nil {
			return 0, "", err
		}
		m, rerr := src.Read(buf)
		h.Write(buf[:m])
		if !cloned && m > 0 {
			if _, err := dst.Write(buf[:m]); err != nil {
				return placeFailed(err)
			}
		}
		n += int64(m)
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			if dirfd.IsResource(rerr) {
				return 0, "", rerr
			}
			return 0, report.NotReusedCopy, nil
		}
	}
	if [32]byte(h.Sum(nil)) != want {
		return 0, report.NotReusedCopy, nil // edited in OUT since it was published
	}
	if err := dst.Close(); err != nil {
		return placeFailed(err)
	}
	ok = true
	return n, "", nil
}

// placeFailed sorts a failed write to the new tree: a path that no longer
// fits (this run's temporary name is longer) is the file's business, and
// normalize will record it; anything else stops the run.
func placeFailed(err error) (int64, string, error) {
	if errors.Is(err, syscall.ENAMETOOLONG) {
		return 0, report.NotReusedPathLength, nil
	}
	return 0, "", err
}

// taken is what a previous run established about a file whose identity
// has not changed since, under the same build, rules and options.
type taken struct {
	entry snapshot.Entry // its files.json entry
	// sum and bytes are the BLAKE3-256 and the size of the staged text
	// placed at the record's tree path (entries with text only).
	sum   [32]byte
	bytes int64
	// rulesClean: the secret rules ran on that text at this very path and
	// found nothing. valuesClean: none of the values the previous run's
	// cross-file pass looked for occurs in it.
	rulesClean, valuesClean bool
	// replayed, for a text with findings taken as it was instead of read
	// (the previous redacted copy): the keyed digest of its text before
	// redaction (the Expectation's), which dedup groups it by, as a run
	// that reads it groups it by its hash before redaction.
	replayed *[32]byte
	// clean: neither pass found anything in it. With the entry's secrets
	// count it stands for the secret stage's verdict when a refresh reads
	// no file at all and takes the previous findings (the stage then does
	// not run; when it runs, it decides both afresh).
	clean bool
	// enc: what normalize learned of its charset (stages.EncodingMemo).
	enc stages.EncodingMemo
}

// hasText reports whether an entry has staged text: its own, or its
// canonical copy's for a duplicate.
func hasText(en *snapshot.Entry) bool { return en.Staged || en.DuplicateOf != "" }

// reuse fills rec from a previous run instead of running classify, triage
// and normalize on it: the fields those stages set come from the entry,
// and an entry with text counts as staged (dedup decides afresh which copy
// is canonical) with the hash verified while placing it. What the
// cross-file stages decide (duplicate_of, secrets, redaction) is left for
// them. The staged text is already at rec's tree path.
func reuse(rec *stages.Record, t taken) {
	en := &t.entry
	rec.Size = en.Size
	rec.Category, rec.Reason, rec.Mime, rec.Language = en.Category, en.Reason, en.Mime, en.Language
	rec.Test, rec.ExtMismatch = en.Test, en.ExtMismatch
	rec.Encoding, rec.BOM, rec.CRLF = en.Encoding, en.BOM, en.CRLF
	rec.Lines, rec.Tokens, rec.Oversize = en.Lines, en.Tokens, en.Oversize
	rec.ExtractedFrom, rec.Extractor, rec.ExtractorVersion = en.ExtractedFrom, en.Extractor, en.ExtractorVersion
	rec.Truncated = en.Truncated // a text cut short at a work limit is cut the same way again
	rec.Mojibake = en.Mojibake
	rec.Replaced = en.Replaced
	// The only errors a state lets through are lasting refusals (a work
	// limit, encrypted, no text: stages.Memo.Lasting): the entry keeps it, and the next state too.
	rec.Err, rec.Memo.Lasting = en.Err, en.Err != ""
	rec.Staged = hasText(en)
	rec.Secrets, rec.Masked, rec.Memo.Clean = en.Secrets, en.Masked, t.clean
	rec.Memo.RulesClean = t.rulesClean // a left-out file's scan too (stages.SecretValues)
	rec.Memo.Enc = t.enc
	if rec.Staged {
		rec.Placed(t.sum, t.bytes)
		rec.Hash = fmt.Sprintf("%s%x", dedup.HashPrefix, t.sum)
		rec.Memo.ValuesClean = t.valuesClean
		if t.replayed != nil {
			rec.Placed(*t.replayed, t.bytes)
			rec.Memo.Final = rec.Hash
		}
	}
}

// Replayed reports whether this refresh read no file and takes the
// previous findings (Split's replay): the secret stage does not run.
func (p *Prior) Replayed() bool { return p != nil && p.replayed }

// Findings are the previous snapshot's findings, for a replay.
func (p *Prior) Findings() []secrets.PathFinding {
	return append([]secrets.PathFinding{}, p.findings...)
}

// ValuesKnown reports whether the cross-file secret pass looks for no
// value the previous run did not (stages.SecretOptions.ValuesKnown): then
// a reused text none of those values occurred in can be skipped.
func (p *Prior) ValuesKnown(v *secrets.Values) bool {
	ds, err := v.Digests(p.valuesKey)
	if err != nil {
		return false
	}
	for _, d := range ds {
		if !p.values[d] {
			return false
		}
	}
	return true
}
