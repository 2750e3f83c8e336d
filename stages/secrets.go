package stages

import (
	"bufio"
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"unicode/utf8"

	"github.com/zeebo/blake3"
	"golang.org/x/sync/errgroup"

	"github.com/repoprep/repoprep/internal/secrets"
	"github.com/repoprep/repoprep/internal/tokens"
)

// Finding is one secret at one path. Duplicates share their canonical
// copy's findings, each under its own path.
type Finding struct {
	Path string
	secrets.Finding
}

// Secret handling modes; pipeline validates the flag.
const (
	modeRedact  = "redact"
	modeExclude = "exclude"
)

// Secrets scans each unique staged content once, after dedup. In redact
// mode each match in the staged copy becomes [REDACTED:rule-id]; in exclude
// mode a file with findings leaves the tree (reason "secret"); in report
// mode the copy is left as it is. Findings never hold the secret itself.
func (e *Env) Secrets(ctx context.Context, recs []*Record, workers int, mode string) ([]Finding, error) {
	sc, err := secrets.New(e.Rules.Secrets)
	if err != nil {
		return nil, fmt.Errorf("secrets: %w", err)
	}
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
	// Each content is scanned once with every rule; path allowlists are then
	// judged for each path holding it, and the staged copy (which every
	// holder is served from) is redacted for what any holder keeps.
	kept := make([]map[*Record][]secrets.Finding, len(canon))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(workers)
	for i, rec := range canon {
		if gctx.Err() != nil {
			break
		}
		g.Go(func() error {
			name := e.treePath(rec)
			fs, err := scanStaged(gctx, sc, name)
			if err != nil {
				return fmt.Errorf("secrets %s: %w", rec.Path, err)
			}
			if len(fs) == 0 {
				return nil
			}
			byHolder := map[*Record][]secrets.Finding{}
			var redact []secrets.Finding
			seen := map[int64]bool{}
			for _, h := range append([]*Record{rec}, dups[rec.Path]...) {
				for _, f := range fs {
					if sc.AllowsPath(f.Rule, h.Path) {
						continue
					}
					byHolder[h] = append(byHolder[h], f)
					if !seen[f.Start] {
						seen[f.Start] = true
						redact = append(redact, f)
					}
				}
			}
			kept[i] = byHolder
			if len(redact) == 0 || mode != modeRedact {
				return nil
			}
			if err := secrets.RedactFile(name, redact); err != nil {
				return fmt.Errorf("secrets %s: %w", rec.Path, err)
			}
			return e.remeasure(gctx, rec)
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var out []Finding
	for i, rec := range canon {
		if len(kept[i]) == 0 {
			continue
		}
		holders := append([]*Record{rec}, dups[rec.Path]...)
		for _, h := range holders {
			// Redaction changed the shared copy: every holder reports it.
			h.Hash, h.Lines, h.Tokens, h.OutSize = rec.Hash, rec.Lines, rec.Tokens, rec.OutSize
			for _, f := range kept[i][h] {
				out = append(out, Finding{Path: h.Path, Finding: f})
			}
			h.Secrets = len(kept[i][h])
		}
		if mode == modeExclude {
			// The content leaves the tree, so no holder has a copy to be
			// served from, allowlisted or not.
			if err := e.unstage(rec); err != nil {
				return nil, fmt.Errorf("secrets: %w", err)
			}
			for _, h := range holders {
				h.Reason, h.DuplicateOf, h.Hash = "secret", "", ""
			}
		}
	}
	slices.SortFunc(out, func(a, b Finding) int {
		return cmp.Or(cmp.Compare(a.Path, b.Path), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Column, b.Column), cmp.Compare(a.Rule, b.Rule))
	})
	return out, nil
}

// scanStaged scans one staged copy for every rule. The scanner stops
// between reads and keyword windows once ctx is done, but one regular
// expression over one window cannot be interrupted, and on a 200 MB line
// dense with keywords a window is a 32 MiB line that takes seconds: so a
// cancelled run does not wait for it. The scan goes on in the background
// until that window is done and its result is dropped; the file it reads
// may be removed meanwhile (an open file outlives its name).
func scanStaged(ctx context.Context, sc *secrets.Scanner, name string) ([]secrets.Finding, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	type result struct {
		fs  []secrets.Finding
		err error
	}
	done := make(chan result, 1)
	go func() {
		defer f.Close()
		fs, err := sc.ScanReader(ctx, &sourceReader{ctx: ctx, r: f}, "")
		done <- result{fs, err}
	}()
	select {
	case r := <-done:
		return r.fs, r.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// maxCountBytes bounds one token count in remeasure: a 200 MB line is
// counted in pieces cut at rune boundaries (as normalize cuts a line
// without newlines), so memory stays bounded and a cancelled run stops
// between pieces.
const maxCountBytes = 1 << 20

// remeasure refreshes what redaction changed in a staged copy: its hash,
// size, lines (a private key block collapses to one line) and tokens.
func (e *Env) remeasure(ctx context.Context, rec *Record) error {
	f, err := os.Open(e.treePath(rec))
	if err != nil {
		return err
	}
	defer f.Close()
	h := blake3.New()
	br := bufio.NewReaderSize(io.TeeReader(&sourceReader{ctx: ctx, r: f}, h), 64<<10)
	var size int64
	lines, toks := 0, 0
	var line []byte // the current line, or what is left of it past maxCountBytes
	for {
		chunk, err := br.ReadSlice('\n')
		size += int64(len(chunk))
		line = append(line, chunk...)
		switch {
		case len(chunk) > 0 && chunk[len(chunk)-1] == '\n', err == io.EOF && len(line) > 0:
			lines++
			toks += tokens.Count(string(line))
			line = line[:0]
		case len(line) >= maxCountBytes:
			cut := len(line) // at a rune boundary; an incomplete last rune waits for the next piece
			last := cut - 1
			for last > 0 && !utf8.RuneStart(line[last]) {
				last--
			}
			if !utf8.FullRune(line[last:]) {
				cut = last
			}
			toks += tokens.Count(string(line[:cut]))
			line = append(line[:0], line[cut:]...)
		}
		if err == io.EOF {
			break
		}
		if err != nil && err != bufio.ErrBufferFull {
			return fmt.Errorf("secrets %s: %w", rec.Path, err)
		}
	}
	rec.Hash = fmt.Sprintf("blake3:%x", h.Sum(nil))
	rec.OutSize, rec.Lines, rec.Tokens = size, lines, toks
	return nil
}
