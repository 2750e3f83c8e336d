package stages

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/zeebo/blake3"
	"golang.org/x/sync/errgroup"

	"github.com/repoprep/repoprep/internal/dedup"
	"github.com/repoprep/repoprep/internal/secrets"
	"github.com/repoprep/repoprep/internal/tokens"
	"github.com/repoprep/repoprep/rules"
)

// Secret handling modes; pipeline validates the flags.
const (
	modeRedact  = "redact"
	modeExclude = "exclude"
)

// SecretOptions says what the secrets stage does with what it finds.
type SecretOptions struct {
	Scanner *secrets.Scanner // built once per run, with the run's fingerprint key
	Values  *secrets.Values  // every value masked so far (names, the key); the stage adds to it
	Mode    string           // credentials: redact, report or exclude
	PII     string           // personal data: redact or report (off: the scanner has no pii rules)
	// Baseline holds fingerprints that are known and accepted: such findings are left
	// out of what the stage returns and records, but treated like any other in the tree.
	Baseline map[string]bool
	// ValuesKnown, when set, reports whether every value in the set was already looked
	// for by the previous run a refresh reuses: then the second pass can skip a reused
	// text in which none of those values occurred (Prior.ValuesClean). Called once,
	// between the passes.
	ValuesKnown func(*secrets.Values) bool
}

// masks reports whether a finding of kind is masked in the staged copy.
func (o SecretOptions) masks(kind string) bool {
	if kind == rules.KindPII {
		return o.PII == modeRedact
	}
	return o.Mode == modeRedact
}

// leftOut reports whether rec is a file the tree leaves out whose content
// the secret stage still scans: every regular file that is not staged
// (a log, a dump, a minified bundle, an oversize or binary file, one a
// rules file excludes or .gitignore names), nor a duplicate of a staged
// one, nor unreadable. Nothing in the tree can keep a file from the scan.
func leftOut(rec *Record) bool {
	return rec.Kind == KindFile && rec.Err == "" && !rec.Staged && rec.DuplicateOf == "" && rec.Size > 0
}

// SecretValues runs after the per-file loop and before names and dedup. It
// runs the credential rules over every file left out of the tree (leftOut,
// secrets.Scanner.ScanLeftOut), reading it from the source, and puts into opts.Values the values of what the rules
// caught anywhere (in the loop's staged texts too) that will be masked: so
// SecretNames masks a name holding a value caught in any content, and the
// cross-file pass masks every copy of it. A left-out file's findings are
// reported by Secrets with staged false; it has no copy to mask.
func (e *Env) SecretValues(ctx context.Context, recs []*Record, workers int, opts SecretOptions) error {
	var todo []*Record
	for _, rec := range recs {
		if leftOut(rec) && !rec.scanned && !rec.Memo.RulesClean {
			todo = append(todo, rec)
		}
	}
	if err := pool(ctx, todo, workers, func(_ int, rec *Record) error {
		scan, err := scanOpened(ctx, opts.Scanner.ScanLeftOut, func() (*os.File, error) { return e.openSrc(rec) }, rec.Path)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return readFailed(rec, "secrets", err)
		}
		rec.scanned = true
		if len(scan.Findings) > 0 {
			rec.setFindings(scan)
		}
		return nil
	}); err != nil {
		return err
	}
	for _, rec := range recs {
		scan := rec.findings()
		if scan == nil {
			continue
		}
		for j, fd := range scan.Findings {
			if (opts.masks(fd.Kind) || opts.Mode == modeExclude && fd.Kind == rules.KindCredential) &&
				!opts.Scanner.AllowsPath(fd.Rule, rec.Path) {
				scan.AddValues(opts.Values, j)
			}
		}
	}
	return nil
}

// SecretNames looks for credentials in every record's path and symlink
// target and in the pruned directories' paths, after SecretValues and
// before dedup: with the credential rules, and for every value caught in
// any content (a name holding a token caught in a file is masked too). A
// record whose name or target holds one gets it masked in files.json
// ([REDACTED:fingerprint] keeps paths unique), loses its staged copy (the
// name would show in tree/), and gets reason "secret-in-name"; the
// findings are returned under the masked path. Names are short, so this
// runs on one goroutine.
func (e *Env) SecretNames(ctx context.Context, opts SecretOptions, recs []*Record, pruned []Pruned) ([]secrets.PathFinding, error) {
	m, err := opts.Scanner.MatcherContext(ctx, opts.Values)
	if err != nil {
		return nil, err
	}
	var out []secrets.PathFinding
	for _, rec := range recs {
		var inPath []secrets.Finding
		if !rec.Memo.NameClean {
			inPath = opts.Scanner.ScanName(rec.Path, opts.Values)
		}
		inPath = withValues(inPath, m.ScanName(rec.Path))
		inTarget := withValues(opts.Scanner.ScanName(rec.LinkTarget, opts.Values), m.ScanName(rec.LinkTarget))
		if len(inPath)+len(inTarget) == 0 {
			continue
		}
		if rec.Staged {
			e.removeStaged(rec.Path)
			rec.Staged, rec.Lines, rec.Tokens, rec.OutSize, rec.Oversize = false, 0, 0, 0, false
		}
		rec.srcIsPath = false // Src stays the OS path: dir and name give it once Path is masked
		rec.Path = secrets.MaskName(rec.Path, inPath)
		rec.LinkTarget = secrets.MaskName(rec.LinkTarget, inTarget)
		rec.Reason = "secret-in-name"
		rec.Secrets = 0
		for _, f := range append(inPath, inTarget...) {
			if !opts.Baseline[f.Fingerprint] {
				out = append(out, secrets.PathFinding{Path: rec.Path, Finding: f})
				rec.Secrets++
			}
		}
	}
	for i := range pruned {
		fs := withValues(opts.Scanner.ScanName(pruned[i].Path, opts.Values), m.ScanName(pruned[i].Path))
		if len(fs) > 0 {
			pruned[i].Path = secrets.MaskName(pruned[i].Path, fs)
		}
	}
	return out, nil
}

// withValues adds to a name's rule findings the values found in it that no
// rule finding overlaps, in order.
func withValues(byRules, byValues []secrets.Finding) []secrets.Finding {
	for _, v := range byValues {
		if !slices.ContainsFunc(byRules, func(f secrets.Finding) bool { return f.Start < v.End && v.Start < f.End }) {
			byRules = append(byRules, v)
		}
	}
	slices.SortFunc(byRules, func(a, b secrets.Finding) int { return cmp.Compare(a.Start, b.Start) })
	return byRules
}

// NamesClean reports whether SecretNames would find nothing in any record's
// path or link target: a refresh that reads no file takes the previous
// snapshot's findings only then.
func (e *Env) NamesClean(ctx context.Context, opts SecretOptions, recs []*Record) bool {
	m, err := opts.Scanner.MatcherContext(ctx, opts.Values)
	if err != nil {
		return false // cancelled: the run ends anyway
	}
	for _, rec := range recs {
		if !rec.Memo.NameClean && len(opts.Scanner.ScanName(rec.Path, opts.Values)) > 0 {
			return false
		}
		if len(opts.Scanner.ScanName(rec.LinkTarget, opts.Values)) > 0 || len(m.ScanName(rec.Path))+len(m.ScanName(rec.LinkTarget)) > 0 {
			return false
		}
	}
	return true
}

// scanned is one canonical content's first-pass result: the findings each path holding
// it reports, and those to mask in the shared staged copy.
type scanned struct {
	byHolder map[*Record][]secrets.Finding
	mask     []secrets.Finding
	exclude  bool // a credential was found and the mode is exclude
}

// Secrets scans each unique staged content, after dedup, in two passes. The first runs
// the rules over every content; path allowlists are then judged for each path holding
// it. The second walks every staged file again for the exact values the first pass (and
// SecretNames) masked, so a token caught in one file is masked in every other file too,
// and reports those occurrences as findings of the same rule. Then, in redact mode, each
// finding in the staged copy becomes [REDACTED:rule-id] (overlapping findings as their
// union); in exclude mode a file with a credential leaves the tree (reason "secret");
// in report mode the copy is left as it is. Personal data follows opts.PII. Findings
// never hold the secret itself.
func (e *Env) Secrets(ctx context.Context, recs []*Record, workers int, opts SecretOptions) ([]secrets.PathFinding, error) {
	sc := opts.Scanner
	var canon []*Record
	dups := map[string][]*Record{} // canonical path -> its duplicates
	for _, rec := range recs {
		switch {
		case rec.Staged:
			canon = append(canon, rec)
		case rec.DuplicateOf != "":
			dups[rec.DuplicateOf] = append(dups[rec.DuplicateOf], rec)
		}
	}
	holders := func(rec *Record) []*Record { return append([]*Record{rec}, dups[rec.Path]...) }

	// Pass 1: the rules, run by Process on each staged text it read; here
	// on the texts a refresh placed instead, but for those the rules found
	// nothing in at this very path (Memo.RulesClean).
	if err := pool(ctx, canon, workers, func(i int, rec *Record) error {
		if rec.scanned || rec.Memo.RulesClean {
			return nil
		}
		scan, err := scanOpened(ctx, sc.ScanReader, func() (*os.File, error) { return e.openStaged(rec.Path) }, rec.Path)
		if err != nil {
			return fmt.Errorf("secrets %s: %w", rec.Path, err)
		}
		if len(scan.Findings) > 0 {
			rec.setFindings(scan)
		}
		rec.scanned = true
		return nil
	}); err != nil {
		return nil, err
	}
	// Each finding judged for every path holding the content, in path
	// order, so the rule a value is first caught by (and reported under
	// elsewhere) does not depend on scheduling.
	results := make([]scanned, len(canon))
	found := make([]bool, len(canon)) // either pass found something in canon[i]
	for i, rec := range canon {
		scan := rec.findings()
		rec.setFindings(nil)
		if scan == nil {
			continue
		}
		found[i] = true
		res := scanned{byHolder: map[*Record][]secrets.Finding{}}
		kept := make([]bool, len(scan.Findings))
		for _, h := range holders(rec) {
			for j, fd := range scan.Findings {
				if !sc.AllowsPath(fd.Rule, h.Path) {
					res.byHolder[h] = append(res.byHolder[h], fd)
					kept[j] = true
				}
			}
		}
		for j, fd := range scan.Findings {
			if !kept[j] {
				continue
			}
			if opts.masks(fd.Kind) {
				res.mask = append(res.mask, fd)
				scan.AddValues(opts.Values, j)
			}
			if opts.Mode == modeExclude && fd.Kind == rules.KindCredential {
				res.exclude = true
				scan.AddValues(opts.Values, j) // the file leaves the tree: no copy of the value may stay
			}
		}
		results[i] = res
	}

	// Pass 2: every value masked anywhere, in every staged file, but a reused text none
	// of whose values occurred in when the previous run looked, if it looked for all.
	if opts.Values != nil && opts.Values.Len() > 0 {
		m, err := sc.MatcherContext(ctx, opts.Values)
		if err != nil {
			return nil, err
		}
		known := opts.ValuesKnown != nil && opts.ValuesKnown(opts.Values)
		if err := pool(ctx, canon, workers, func(i int, rec *Record) error {
			if known && rec.Memo.ValuesClean {
				return nil
			}
			// What pass 1 masks here is not walked again (a key block's own lines).
			f, err := e.openStaged(rec.Path)
			if err != nil {
				return fmt.Errorf("secrets %s: %w", rec.Path, err)
			}
			hits, err := m.ScanOpenContext(ctx, f, results[i].mask)
			f.Close()
			if err != nil {
				return fmt.Errorf("secrets %s: %w", rec.Path, err)
			}
			found[i] = found[i] || len(hits) > 0
			res := &results[i]
			if len(hits) > 0 && res.byHolder == nil {
				res.byHolder = map[*Record][]secrets.Finding{}
			}
			var pass1 []secrets.Finding
			for _, fs := range res.byHolder {
				pass1 = append(pass1, fs...)
			}
			for _, fd := range hits {
				if !slices.ContainsFunc(pass1, func(p secrets.Finding) bool { return p.Start < fd.End && fd.Start < p.End }) {
					for _, h := range holders(rec) {
						res.byHolder[h] = append(res.byHolder[h], fd)
					}
				} // else it widens a first-pass span to the union
				switch {
				case opts.Mode == modeExclude && fd.Kind == rules.KindCredential:
					res.exclude = true
				case opts.masks(fd.Kind):
					res.mask = append(res.mask, fd)
				}
			}
			return nil
		}); err != nil {
			return nil, err
		}
	}

	// Redaction, one rewrite per staged file.
	if err := pool(ctx, canon, workers, func(i int, rec *Record) error {
		res := results[i]
		if res.exclude || len(res.mask) == 0 {
			return nil
		}
		return e.redact(ctx, rec, res.mask)
	}); err != nil {
		return nil, err
	}

	var out []secrets.PathFinding
	for i, rec := range canon {
		res := results[i]
		// For the next refresh: the rules' verdict at this path is known, and
		// whether the text (every holder's) held anything at all.
		// A duplicate the loop scanned at its own path counts what the rules
		// found there too (a rule may depend on the path).
		rec.scanned = true
		for _, h := range holders(rec) {
			h.Memo.Clean = !found[i] && h.findings() == nil
			h.setFindings(nil)
		}
		for _, h := range holders(rec) {
			// Redaction changed the shared copy: every holder reports it.
			h.Hash, h.Lines, h.Tokens, h.OutSize = rec.Hash, rec.Lines, rec.Tokens, rec.OutSize
			h.Masked = 0
			if !res.exclude {
				h.Masked = len(secrets.Masks(res.mask, -1))
			}
			fs := res.byHolder[h]
			slices.SortFunc(fs, func(a, b secrets.Finding) int { return cmp.Compare(a.Start, b.Start) })
			h.Secrets = 0
			for _, f := range fs {
				if !opts.Baseline[f.Fingerprint] {
					out = append(out, secrets.PathFinding{Path: h.Path, Finding: f, Staged: !res.exclude})
					h.Secrets++
				}
			}
		}
		if res.exclude {
			// The content leaves the tree, so no holder has a copy to be
			// served from, allowlisted or not.
			if err := e.unstage(rec); err != nil {
				return nil, fmt.Errorf("secrets: %w", err)
			}
			for _, h := range holders(rec) {
				h.Reason, h.DuplicateOf, h.Hash = "secret", "", ""
			}
		}
	}
	// The files the tree leaves out (SecretValues scanned them): reported,
	// counted, nothing to mask.
	for _, rec := range recs {
		if !leftOut(rec) && rec.Reason != "secret-in-name" {
			continue
		}
		if rec.scanned {
			rec.Memo.Clean = rec.findings() == nil
		}
		scan := rec.findings()
		if scan == nil {
			continue
		}
		if rec.Reason != "secret-in-name" {
			rec.Secrets = 0
		}
		for _, f := range scan.Findings {
			if !opts.Baseline[f.Fingerprint] && !sc.AllowsPath(f.Rule, rec.Path) {
				out = append(out, secrets.PathFinding{Path: rec.Path, Finding: f})
				rec.Secrets++
			}
		}
		rec.setFindings(nil)
	}
	secrets.SortFindings(out)
	return out, nil
}

// pool runs fn on every record with at most workers calls in flight.
func pool(ctx context.Context, recs []*Record, workers int, fn func(int, *Record) error) error {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(workers)
	for i, rec := range recs {
		if gctx.Err() != nil {
			break
		}
		g.Go(func() error { return fn(i, rec) })
	}
	if err := g.Wait(); err != nil {
		return err
	}
	return ctx.Err()
}

// scanOpened runs scan over the file open gives, held at path. The
// scanner stops between reads and keyword windows once ctx is done, but one
// regular expression over one window cannot be interrupted, and on a 200 MB
// line dense with keywords a window is a 32 MiB line that takes seconds: so
// a cancelled run does not wait for it. The scan goes on in the background
// until that window is done and its result is dropped; the file it reads may
// be removed meanwhile (an open file outlives its name).
func scanOpened(ctx context.Context, scan func(context.Context, io.Reader, string) (*secrets.Scan, error), open func() (*os.File, error), path string) (*secrets.Scan, error) {
	f, err := open()
	if err != nil {
		return nil, err
	}
	type result struct {
		scan *secrets.Scan
		err  error
	}
	done := make(chan result, 1)
	go func() {
		defer f.Close()
		sc, err := scan(ctx, &sourceReader{ctx: ctx, r: f}, path)
		done <- result{sc, err}
	}()
	select {
	case r := <-done:
		return r.scan, r.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// maxRecountBytes bounds the staged copies redact reads whole to adjust
// their counts; a larger one is redacted as a stream and measured again.
const maxRecountBytes = 4 << 20

// redact masks fs in rec's staged copy ([REDACTED:rule-id], overlaps as
// their union) and refreshes what that changed: hash, size, lines (a
// private key block collapses to one line) and tokens. The count is
// adjusted by the masked spans only (tokens.Recount), not counted again.
func (e *Env) redact(ctx context.Context, rec *Record, fs []secrets.Finding) error {
	name := e.treePath(rec)
	if rec.OutSize > maxRecountBytes {
		if err := secrets.RedactFile(name, fs); err != nil {
			return fmt.Errorf("secrets %s: %w", rec.Path, err)
		}
		return e.remeasure(ctx, rec)
	}
	text, err := os.ReadFile(name)
	if err != nil {
		return fmt.Errorf("secrets %s: %w", rec.Path, err)
	}
	masks := secrets.Masks(fs, int64(len(text)))
	edits := make([]tokens.Edit, len(masks))
	for i, m := range masks {
		edits[i] = tokens.Edit{Start: int(m.Start), End: int(m.End), Repl: m.Text}
	}
	redacted := []byte(tokens.Apply(string(text), edits))
	if err := secrets.Rewrite(name, func(w *bufio.Writer) error { _, err := w.Write(redacted); return err }); err != nil {
		return fmt.Errorf("secrets %s: %w", rec.Path, err)
	}
	rec.Hash = fmt.Sprintf("%s%x", dedup.HashPrefix, blake3.Sum256(redacted))
	if x := rec.Memo.Expect; x != nil && x.Final == rec.Hash {
		rec.Tokens = x.FinalTokens // a refresh's text redacted into what it was last time
	} else {
		rec.Tokens = tokens.RecountBytes(text, rec.Tokens, edits)
	}
	rec.OutSize, rec.Lines = int64(len(redacted)), countLines(redacted)
	return nil
}

// countLines counts lines as normalize does: newlines, plus a last line
// without one.
func countLines(b []byte) int {
	n := bytes.Count(b, []byte{'\n'})
	if len(b) > 0 && b[len(b)-1] != '\n' {
		n++
	}
	return n
}

// remeasure measures a large redacted copy again as a stream: its hash,
// size, lines and tokens (counted in batches cut where the counts add up,
// as normalize counts).
func (e *Env) remeasure(ctx context.Context, rec *Record) error {
	f, err := os.Open(e.treePath(rec))
	if err != nil {
		return err
	}
	defer f.Close()
	h := blake3.New()
	var counter tokens.Counter
	var lines lineCounter
	size, err := io.Copy(io.MultiWriter(h, &counter, &lines), &sourceReader{ctx: ctx, r: f})
	if err != nil {
		return fmt.Errorf("secrets %s: %w", rec.Path, err)
	}
	rec.Hash = fmt.Sprintf("%s%x", dedup.HashPrefix, h.Sum(nil))
	rec.OutSize, rec.Lines, rec.Tokens = size, lines.total(), counter.Total()
	return nil
}

// lineCounter counts lines as normalize does.
type lineCounter struct {
	n        int
	openLine bool // the text so far ends inside a line
}

func (l *lineCounter) Write(p []byte) (int, error) {
	if len(p) > 0 {
		l.n += bytes.Count(p, []byte{'\n'})
		l.openLine = p[len(p)-1] != '\n'
	}
	return len(p), nil
}

func (l *lineCounter) total() int {
	if l.openLine {
		return l.n + 1
	}
	return l.n
}
