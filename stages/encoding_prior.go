package stages

import (
	"cmp"
	"context"
	"errors"
	"io"
	"path"
	"slices"
	"strings"

	"github.com/repoprep/repoprep/internal/textenc"
	"github.com/repoprep/repoprep/snapshot"
)

// A repository's legacy files are mostly written in one charset, and a
// file whose own evidence is weak (a few characters, a drawing of
// symbols, a near tie, a refusal while some charset reads it) is decided
// better by the charset its other files were decided in on strong
// evidence (textenc.Options.Prior). The per-file loop decides every file
// alone; the pipeline then finds the prior (FindEncodingPriors) and runs
// the weak files through the same loop again with it (Redecide).

// EncodingMemo is what normalize learned of a text's charset for the
// repository prior: the run's own pass after the loop, and a refresh,
// which carries it for the files it reuses (a reused weak file decided
// under another prior is decided again).
type EncodingMemo struct {
	// Strong is the legacy charset the text was decided in on strong
	// evidence (detection with a clear margin, or a declaration in the
	// file's head), as FindEncodingPriors counts it; "" for UTF-8 and
	// ASCII, a weak choice, a refusal, or a charset only the file's name
	// declares.
	Strong string
	// Named is the single-byte charset only the text's name declares and
	// decided it in ("latin1" in menu_de_de.latin1.vim; textenc's
	// DeclaredInName): not counted for a prior, but one a prior may
	// contest (textenc.Contests).
	Named string
	// Prior is the prior the text was decided under ("" none). Set by the
	// pipeline before Redecide; Normalize passes it to the decoder.
	Prior string
	// Weak: the text's own evidence was weak, so another prior may give
	// another result (textenc.Result.Weak). (The bools are last, so they
	// share a word: a Record per file of the tree carries this.)
	Weak bool
	// thisRun: normalize decided the text in this run; a refresh's state
	// (which keeps the exported fields only) leaves it false for a text it
	// reuses (Record.EncodingReused).
	thisRun bool
}

// Same reports whether two memos say the same of a text, whichever run
// made each.
func (m EncodingMemo) Same(o EncodingMemo) bool {
	m.thisRun, o.thisRun = false, false
	return m == o
}

// EncodingReused reports whether rec's charset memo is a refresh's, taken
// with the text from the previous snapshot, rather than this run's
// decision: a refresh that decides such a text again under another prior
// no longer reuses it.
func (r *Record) EncodingReused() bool { return !r.Memo.Enc.thisRun }

// encodingMemo is what a decoding says of the text for the prior; own is
// the text's memo before a prior contested its choice (Redecide keeps
// its Strong and Named).
func encodingMemo(res textenc.Result, decErr error, prior string, own EncodingMemo) EncodingMemo {
	m := EncodingMemo{Weak: res.Weak, Prior: prior, thisRun: true}
	switch {
	case decErr == nil && res.ByPrior && !res.Weak:
		// A strong single-byte choice the prior contested
		// (textenc.Contests): it still counts for the charset its own
		// evidence chose, so the prior is the same whether this run or a
		// refresh counts it.
		m.Strong, m.Named = own.Strong, own.Named
	case decErr == nil && res.DeclaredInName:
		m.Named = priorFamily(res.Encoding)
	case decErr == nil && !res.Weak && !res.ByPrior:
		m.Strong = priorFamily(res.Encoding)
	}
	return m
}

// priorFamily is the charset a strongly decided text counts for, or "" for
// one that is no legacy charset a weak file could be read in: UTF-8,
// UTF-16/32, 7-bit ISO-2022-JP. GB18030 counts as GBK, which the decoder
// reports when no four-byte sequence occurs; ISO-8859-1 as Windows-1252,
// which browsers read it as.
func priorFamily(encoding string) string {
	switch {
	case encoding == "utf-8", strings.HasPrefix(encoding, "utf-"), encoding == "iso-2022-jp", encoding == "":
		return ""
	case encoding == "gb18030":
		return "gbk"
	case encoding == "iso-8859-1":
		return "windows-1252"
	}
	return encoding
}

// Thresholds of a prior. A repository (or a top-level directory) has one
// when its strongly decided legacy texts number at least minPriorFiles
// and one charset holds at least minPriorShare of them. Eight files are
// more than a stray vendored page or two; nine in ten leave room for a
// few files of another charset (a Latin-1 README in a GBK repository, a
// detection gone wrong) but not for a repository of several, such as
// vim's runtime (Windows-1252 44, ISO-8859-2 16, KOI8-R 8... of 105), or
// a Korean PHP site with a bundled library of Western pages (87%
// EUC-KR): those have none.
const (
	minPriorFiles = 8
	minPriorShare = 0.9
)

// EncodingPriors are the charsets a repository's weak texts are decided
// by: the repository's, and each top-level directory's that has one of
// its own.
type EncodingPriors struct {
	Repo  string            // "" none
	ByTop map[string]string // top-level directory -> its prior, where it has one
}

// For is the prior of the text at path (files.json's path): its
// top-level directory's, else the repository's.
func (p EncodingPriors) For(path string) string {
	if top, _, ok := strings.Cut(path, "/"); ok {
		if prior, ok := p.ByTop[top]; ok {
			return prior
		}
	}
	return p.Repo
}

// FindEncodingPriors finds the priors from the records' EncodingMemo.
// It is a function of the set of records (counts, ties broken by name),
// not of their order or of the workers'.
func FindEncodingPriors(recs []*Record) EncodingPriors {
	all := map[string]int{}
	byTop := map[string]map[string]int{}
	for _, rec := range recs {
		s := rec.Memo.Enc.Strong
		if s == "" || rec.Err != "" || !isText(rec) {
			continue
		}
		all[s]++
		if top, _, ok := strings.Cut(rec.Path, "/"); ok {
			if byTop[top] == nil {
				byTop[top] = map[string]int{}
			}
			byTop[top][s]++
		}
	}
	p := EncodingPriors{Repo: dominant(all)}
	for top, counts := range byTop {
		if d := dominant(counts); d != "" {
			if p.ByTop == nil {
				p.ByTop = map[string]string{}
			}
			p.ByTop[top] = d
		}
	}
	return p
}

// dominant is the charset that holds minPriorShare of counts' texts,
// if they number minPriorFiles.
func dominant(counts map[string]int) string {
	total := 0
	names := make([]string, 0, len(counts))
	for name, n := range counts {
		total += n
		names = append(names, name)
	}
	if total < minPriorFiles {
		return ""
	}
	slices.SortFunc(names, func(a, b string) int { return cmp.Or(cmp.Compare(counts[b], counts[a]), cmp.Compare(a, b)) })
	if float64(counts[names[0]]) < minPriorShare*float64(total) {
		return ""
	}
	return names[0]
}

// isText reports a record normalize decodes: a source or text file.
func isText(rec *Record) bool { return rec.Category == "source" || rec.Category == "text" }

// NeedsRedecide reports whether rec's text was decided under another
// prior than prior, on weak evidence or as a single-byte charset the
// prior may contest (textenc.Contests): the pass after the loop, and a
// refresh whose prior changed, decide it again.
func (r *Record) NeedsRedecide(prior string) bool {
	m := r.Memo.Enc
	return r.Kind == KindFile && r.Err == "" && isText(r) && m.Prior != prior &&
		(m.Weak || textenc.Contests(prior, m.Strong) || textenc.Contests(prior, m.Named))
}

// Redecide makes rec, a text decided on weak evidence, ready to go through
// the per-file loop (Process) again under prior: its staged copy (this
// run's, or a refresh's copy of the previous one) is removed, and it is
// the record the scan made again, with what a refresh set before the loop
// (Memo.Expect, Memo.NameClean). Call it after the loop and before the
// cross-file stages, never while workers write.
func (e *Env) Redecide(rec *Record, prior string) {
	if rec.Staged {
		e.removeStaged(rec.Path)
	}
	e.forgetMisdeclared(rec.Path)
	*rec = Record{
		Entry: snapshot.Entry{Path: rec.Path, Size: cmp.Or(rec.ident.Size, rec.Size)}, // NewRecord's have no identity
		dir:   rec.dir, name: rec.name, srcIsPath: rec.srcIsPath, Kind: rec.Kind, ident: rec.ident,
		Memo: Memo{Expect: rec.Memo.Expect, NameClean: rec.Memo.NameClean, Enc: EncodingMemo{Prior: prior, Strong: rec.Memo.Enc.Strong, Named: rec.Memo.Enc.Named}},
	}
}

// DecideEncoding classifies and triages rec, as Sniff does, and for a
// text decodes it into nothing to learn its EncodingMemo as the per-file
// loop would, without staging it: explain finds the prior a run would
// (FindEncodingPriors) this way. Its cost is a read of each text, no
// token count and no write.
func (e *Env) DecideEncoding(ctx context.Context, rec *Record) error {
	if err := e.Sniff(ctx, rec); err != nil {
		return err
	}
	if rec.Skip() || !isText(rec) {
		return nil
	}
	f, err := e.openSrc(rec)
	if err != nil {
		return readFailed(rec, "normalize", err)
	}
	defer f.Close()
	var n textenc.Normalizer
	res, decErr := n.Normalize(&sourceReader{ctx: ctx, r: f}, io.Discard, textenc.Options{Name: path.Base(rec.Path), NoTokens: true})
	if err := ctx.Err(); err != nil {
		return err
	}
	rec.Memo.Enc = encodingMemo(res, decErr, "", EncodingMemo{})
	if decErr != nil && !isRefusal(decErr) {
		return readFailed(rec, "normalize", decErr)
	}
	return nil
}

// isRefusal reports one of the decoder's refusals, which a run records as
// the file's reason, not as a failure.
func isRefusal(err error) bool {
	return errors.Is(err, textenc.ErrBinary) || errors.Is(err, textenc.ErrMojibake) ||
		errors.Is(err, textenc.ErrUndecodable) || errors.Is(err, textenc.ErrInvalidUTF8)
}
