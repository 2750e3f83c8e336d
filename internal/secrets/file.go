package secrets

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/repoprep/repoprep/rules"
)

const (
	// chunkBytes is how much new content each step of ScanFile reads.
	chunkBytes = 4 << 20
	// carryBytes is how much of a chunk is scanned again with the next one, so a match
	// that starts near the end (a private key block, at most MaxSpanBytes from its
	// keyword's line) is seen whole: matches starting in the carry belong to the next step.
	carryBytes = rules.MaxSpanBytes + maxLineWindow
	// maxLineBytes caps how far ScanFile reads looking for the end of one line; a longer
	// line is cut there (a match across that cut is only found if it fits in the carry).
	maxLineBytes = 32 << 20
)

// ScanFile scans the file name in line-aligned chunks, so memory stays near chunkBytes +
// carryBytes whatever the file's size, and returns its findings sorted by offset. Path
// allowlists are matched against name with slashes. With redact set and something found,
// it rewrites the file in place (a temporary file in the same directory, then a rename),
// each secret replaced by [REDACTED:rule-id]; Start and End still refer to the original.
// Safe for concurrent use on different files.
func (s *Scanner) ScanFile(name string, redact bool) ([]Finding, error) {
	return s.ScanFileAs(name, filepath.ToSlash(name), redact)
}

// ScanFileAs is ScanFile for a file whose path in the repository (the one
// path allowlists are written against, e.g. "(^|/)testdata/", and whose
// extension says how values are read) differs from where it lies on disk,
// as for a staged copy under OUT/tree.
func (s *Scanner) ScanFileAs(name, path string, redact bool) ([]Finding, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	hits, err := s.scanReader(context.Background(), f, s.pathSkips(path), path, chunkBytes)
	f.Close()
	found := stripHits(hits)
	if err != nil || !redact || len(found) == 0 {
		return found, err
	}
	if err := redactFile(name, found); err != nil {
		return nil, err
	}
	return found, nil
}

// Scan is one content's findings, with what the cross-file pass needs to mask each
// finding's value elsewhere; the values never leave this package.
type Scan struct {
	Findings []Finding // sorted by offset
	values   [][][]byte
}

// AddValues puts finding i's values into vals: a caller that drops some findings (path
// allowlists, --pii report) passes on only the values it masks.
func (sc *Scan) AddValues(vals *Values, i int) {
	f := sc.Findings[i]
	vals.add(f.Rule, sc.values[i])
}

// ScanReader scans one content read from r, held at path in the repository ("" for none;
// see ScanContent), without path allowlists: a caller whose content several paths share
// judges each path with AllowsPath. Safe for concurrent use on different readers.
//
// It stops with ctx's error once ctx is done, between reads and between keyword windows:
// a 200 MB line dense with keywords takes minutes to scan.
func (s *Scanner) ScanReader(ctx context.Context, r io.Reader, path string) (*Scan, error) {
	return s.scan(ctx, r, nil, path)
}

// scan is ScanReader without the rules skip marks.
func (s *Scanner) scan(ctx context.Context, r io.Reader, skip []bool, path string) (*Scan, error) {
	hits, err := s.scanReader(ctx, r, skip, path, chunkBytes)
	if err != nil {
		return nil, err
	}
	sc := &Scan{Findings: stripHits(hits), values: make([][][]byte, len(hits))}
	for i, h := range hits {
		sc.values[i] = h.values
	}
	return sc, nil
}

// ScanLeftOut is ScanReader for a file the tree leaves out (a log, a dump, an archive),
// read as it is in the source: only credential rules run (what is not published leaks
// no personal data), and on a binary content (a NUL byte in its first 8,000, as git
// decides) only those with a format of their own, not the judged assignments
// (password = ...), which read compressed bytes as text.
func (s *Scanner) ScanLeftOut(ctx context.Context, r io.Reader, path string) (*Scan, error) {
	br := bufio.NewReaderSize(r, 8000)
	head, _ := br.Peek(8000)
	binary := bytes.IndexByte(head, 0) >= 0
	skip := s.pathSkips(path)
	if skip == nil {
		skip = make([]bool, len(s.rules))
	}
	for i := range s.rules {
		if s.rules[i].kind != rules.KindCredential || binary && s.rules[i].assignment {
			skip[i] = true
		}
	}
	return s.scan(ctx, br, skip, path)
}

// ScanBytes is ScanReader for a content held whole in memory (the
// pipeline's per-file loop holds each text it stages): it is scanned where
// it lies, without ScanReader's 4 MiB read buffer. A content longer than
// one of ScanReader's chunks goes through ScanReader, so the answer is the
// same either way.
func (s *Scanner) ScanBytes(ctx context.Context, content []byte, path string) (*Scan, error) {
	if len(content) > chunkBytes {
		return s.ScanReader(ctx, bytes.NewReader(content), path)
	}
	cands, _ := s.candidates(ctx, content, nil, path)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	hits := s.findings(content, cands, 1, 0)
	slices.SortFunc(hits, func(a, b hit) int { return cmp.Compare(a.Start, b.Start) })
	sc := &Scan{Findings: stripHits(hits), values: make([][][]byte, len(hits))}
	for i, h := range hits {
		sc.values[i] = h.values
	}
	return sc, nil
}

// pathSkips marks the rules whose path allowlist covers path; nil when none
// does, or when path is "" (scan for every rule; the caller judges paths).
func (s *Scanner) pathSkips(path string) []bool {
	if path == "" {
		return nil
	}
	var skip []bool
	for i := range s.rules {
		if s.rules[i].pathAllowed(path) {
			if skip == nil {
				skip = make([]bool, len(s.rules))
			}
			skip[i] = true
		}
	}
	return skip
}

// scanBufs recycles ScanFile's read buffers across files and workers.
var scanBufs = sync.Pool{New: func() any {
	b := make([]byte, 0, chunkBytes+carryBytes)
	return &b
}}

// fill reads r into buf's spare capacity until buf is full or r ends, and
// reports whether it ended. Both block scanners read this way (scanReader
// for the rules, Matcher.find for known values), so each step sees as much
// of the file as its buffer holds whatever sizes r's reads come in.
func fill(r io.Reader, buf []byte) ([]byte, bool, error) {
	for len(buf) < cap(buf) {
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, true, nil
		}
		if err != nil {
			return buf, false, err
		}
	}
	return buf, false, nil
}

// scanReader is ScanFile's loop. Each step scans buf[:scanEnd], which starts and ends on
// line boundaries, keeps the findings that start before keep, and carries buf[keep:] over.
// A block (a private key) whose closing marker lies beyond scanEnd is followed as an
// openBlock through the next steps, whatever its length; findings inside it are dropped
// once it closes. chunk is a parameter so tests can cross many chunk boundaries in a
// small file.
func (s *Scanner) scanReader(ctx context.Context, r io.Reader, skip []bool, path string, chunk int) ([]hit, error) {
	var buf []byte
	if chunk == chunkBytes {
		// A fresh 4 MiB buffer per file made the stage spend most of its
		// time clearing memory and collecting it on trees of small files.
		bp := scanBufs.Get().(*[]byte)
		buf = (*bp)[:0]
		defer func() {
			if cap(buf) == chunkBytes+carryBytes {
				*bp = buf[:0]
				scanBufs.Put(bp)
			}
		}()
	} else {
		buf = make([]byte, 0, chunk+carryBytes)
	}
	var (
		found  []hit
		base   int64 // file offset of buf[0]
		line   = 1   // line number of buf[0]
		maxEnd int64 // end of the last finding kept, so steps never report overlaps
		eof    bool
		ob     *openBlock // a block being followed
	)
	for {
		if cap(buf)-len(buf) < chunk {
			buf = slices.Grow(buf, chunk)
		}
		if !eof {
			var err error
			if buf, eof, err = fill(r, buf); err != nil {
				return nil, err
			}
		}
		scanEnd := len(buf)
		if !eof {
			i := bytes.LastIndexByte(buf, '\n')
			if i < 0 || i < len(buf)-maxLineBytes {
				if len(buf) < maxLineBytes {
					continue // a line longer than the buffer: read more of it
				}
			} else {
				scanEnd = i + 1
			}
		}
		last := eof && scanEnd == len(buf)
		keep := scanEnd
		if !last && scanEnd > carryBytes {
			keep = bytes.LastIndexByte(buf[:scanEnd-carryBytes], '\n') + 1
			if keep == 0 {
				keep = scanEnd - carryBytes // one huge line: cut it
			}
		}
		cands, open := s.candidates(ctx, buf[:scanEnd], skip, path)
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		var closed *hit
		if ob != nil {
			end, ok, abandon := s.feed(ob, buf[ob.fed-base:scanEnd], ob.fed)
			switch {
			case abandon:
				ob = nil
			case ok:
				if !ob.rejected {
					h := s.finish(ob)
					closed = &h
				}
				found = slices.DeleteFunc(found, func(h hit) bool { return h.Start >= ob.abs && h.Start < end })
				maxEnd = max(maxEnd, end)
				ob = nil
			}
		}
		cands = slices.DeleteFunc(cands, func(c candidate) bool {
			return c.start >= keep || base+int64(c.start) < maxEnd
		})
		hits := s.findings(buf[:scanEnd], cands, line, base)
		if closed != nil {
			found = append(found, *closed)
		}
		for _, h := range hits {
			found = append(found, h)
			maxEnd = max(maxEnd, h.End)
		}
		if ob == nil && open != nil && open.start < keep && base+int64(open.start) >= maxEnd && !last {
			ob = open
			s.startBlock(ob, buf[:scanEnd], base, line)
			s.feed(ob, buf[open.start:scanEnd], ob.abs) // blocks saw no closing marker in it
		}
		if last {
			slices.SortFunc(found, func(a, b hit) int { return cmp.Compare(a.Start, b.Start) })
			return found, nil
		}
		line += bytes.Count(buf[:keep], nl)
		base += int64(keep)
		buf = buf[:copy(buf, buf[keep:])]
	}
}

// Redact returns a copy of content with each finding's bytes replaced by [REDACTED:rule-id].
// fs must come from scanning this same content; findings that overlap are masked as their
// union, under the first one's rule.
func Redact(content []byte, fs []Finding) []byte {
	out := make([]byte, 0, len(content))
	var pos int64
	for _, f := range mergeSpans(fs, int64(len(content))) {
		out = append(out, content[pos:f.Start]...)
		out = append(out, "[REDACTED:"+f.Rule+"]"...)
		pos = f.End
	}
	return append(out, content[pos:]...)
}

// Mask is one replacement a redaction makes: bytes [Start, End) of the
// content become Text ("[REDACTED:rule-id]").
type Mask struct {
	Start, End int64
	Text       string
}

// Masks returns, in order, the replacements Redact makes in a content of
// size bytes for fs (and RedactFile, in a file of that size): overlapping
// findings become their union under the first one's rule. A caller that
// holds the content applies them itself and adjusts what it measured
// (tokens.Recount) instead of measuring the redacted copy again.
func Masks(fs []Finding, size int64) []Mask {
	merged := mergeSpans(fs, size)
	out := make([]Mask, len(merged))
	for i, f := range merged {
		out[i] = Mask{Start: f.Start, End: f.End, Text: "[REDACTED:" + f.Rule + "]"}
	}
	return out
}

// mergeSpans sorts fs by offset and merges overlapping ones into their union, under the
// rule of the one that starts first (the longest, on a tie). Spans outside [0, size)
// (size < 0 for unknown) are dropped.
func mergeSpans(fs []Finding, size int64) []Finding {
	sorted := slices.SortedFunc(slices.Values(fs), func(a, b Finding) int {
		return cmp.Or(cmp.Compare(a.Start, b.Start), cmp.Compare(b.End, a.End))
	})
	out := sorted[:0]
	for _, f := range sorted {
		if f.Start < 0 || f.End <= f.Start || (size >= 0 && f.End > size) {
			continue
		}
		if n := len(out); n > 0 && f.Start < out[n-1].End {
			out[n-1].End = max(out[n-1].End, f.End)
			continue
		}
		out = append(out, f)
	}
	return out
}

// RedactFile rewrites the file name with each finding of fs (from scanning
// that file, or from a Matcher over it) replaced by [REDACTED:rule-id],
// overlapping findings as their union, through a temporary file and a
// rename, for a caller that chose which findings to redact.
func RedactFile(name string, fs []Finding) error {
	if len(fs) == 0 {
		return nil
	}
	return redactFile(name, fs)
}

// redactFile rewrites name with fs redacted, streamed (Rewrite).
func redactFile(name string, fs []Finding) error {
	fs = mergeSpans(fs, -1)
	src, err := os.Open(name)
	if err != nil {
		return err
	}
	defer src.Close()
	return Rewrite(name, func(w *bufio.Writer) error {
		var pos int64
		for _, f := range fs {
			if _, err := io.CopyN(w, src, f.Start-pos); err != nil {
				return err
			}
			if _, err := src.Seek(f.End, io.SeekStart); err != nil {
				return err
			}
			if _, err := w.WriteString("[REDACTED:" + f.Rule + "]"); err != nil {
				return err
			}
			pos = f.End
		}
		_, err := io.Copy(w, src)
		return err
	})
}

// Rewrite replaces the file name with what fill writes: the one way a
// redaction is written. The new text goes to a temporary file beside name,
// which takes name's permissions and is then renamed over it, so a failure
// (a full disk) leaves name as it was.
func Rewrite(name string, fill func(*bufio.Writer) error) (err error) {
	info, err := os.Stat(name)
	if err != nil {
		return err
	}
	// A short name of its own: name's base may already be 255 bytes
	// (NAME_MAX), and any suffix on it would not fit.
	tmp, err := os.CreateTemp(filepath.Dir(name), ".redact-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	w := bufio.NewWriterSize(tmp, 256<<10)
	if err := fill(w); err != nil {
		return err
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if err := tmp.Chmod(info.Mode().Perm()); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), name)
}
