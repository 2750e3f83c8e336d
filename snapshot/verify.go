package snapshot

import (
	"bufio"
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/zeebo/blake3"
	"golang.org/x/sync/errgroup"

	"github.com/repoprep/repoprep/internal/lineindex"
	"github.com/repoprep/repoprep/internal/secrets"
	"github.com/repoprep/repoprep/internal/tokens"
)

// Drift is one way a published snapshot differs from what its index says.
// Path is relative to OUT: an index file ("files.json") or a staged file
// ("tree/src/main.go").
type Drift struct {
	Path    string `json:"path"`
	Problem string `json:"problem"`
}

func (d Drift) String() string { return d.Path + ": " + d.Problem }

// Verify checks a published snapshot in outDir and returns every drift it
// finds, sorted by path: each staged entry must exist under tree/ as a
// regular file with its recorded hash and line count, tree/ must hold
// nothing else, and files.json, oversize.json, secrets.json and
// report.json must parse, carry their schema and agree with each other;
// report.html, when there, must be a regular file within its cap.
// search.index and lines.json must be bound to the staged files (search
// index's content digest, lines.json's hashes and sums), load, and list
// the staged (and staged oversize) files with their sizes; lines.json's
// marks must be those of the staged text. linetokens.index must be bound
// to the staged files and hold the line lengths and token counts their
// texts give. Every file is read within its
// cap (ReadFile).
// It errs only when outDir cannot be checked at all (ErrNotSnapshot
// when it holds no files.json) or ctx is done. Files
// are hashed by GOMAXPROCS workers, each streaming through a small buffer.
func Verify(ctx context.Context, outDir string) ([]Drift, error) {
	snap, err := Open(outDir)
	if err != nil {
		return nil, err
	}
	defer snap.Close()
	v := &verifier{snap: snap, previews: map[string]string{}, lines: map[string]*lineindex.File{}}
	defer func() {
		if v.tokens != nil {
			v.tokens.Close()
		}
	}()

	m := v.manifest()
	v.oversize(m)
	v.sarif(v.secrets(m))
	v.report()
	v.reportPage()
	v.indexes(m)
	if v.regularIndex(RepoMapMD) {
		v.withinCap(RepoMapMD)
	}
	if m != nil {
		if err := v.tree(ctx, m); err != nil {
			return nil, err
		}
	}
	sort.Slice(v.drifts, func(i, j int) bool {
		if v.drifts[i].Path != v.drifts[j].Path {
			return v.drifts[i].Path < v.drifts[j].Path
		}
		return v.drifts[i].Problem < v.drifts[j].Problem
	})
	return v.drifts, nil
}

// verifier collects drifts; add is safe for concurrent use.
type verifier struct {
	snap     *Snapshot
	previews map[string]string          // oversize.json's preview by path, checked against the staged file
	lines    map[string]*lineindex.File // lines.json's marks by path, checked against the staged file
	tokens   *TokenIndex                // linetokens.index when its records check out, for tree() to compare with the texts
	mu       sync.Mutex
	drifts   []Drift
}

func (v *verifier) add(path, format string, args ...any) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.drifts = append(v.drifts, Drift{Path: path, Problem: fmt.Sprintf(format, args...)})
}

// regularIndex reports whether the index file name is a regular file,
// recording a drift when it is missing or anything else: a symlink (to
// /etc/passwd, say), a directory, or a FIFO that would hang its reader.
func (v *verifier) regularIndex(name string) bool {
	info, err := v.snap.Lstat(name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		v.add(name, "missing")
		return false
	case err != nil:
		v.add(name, "unreadable: %v", err)
		return false
	case !info.Mode().IsRegular():
		v.add(name, "not a regular file (%v)", info.Mode().Type())
		return false
	}
	return true
}

// withinCap records a drift when the file name is larger than its cap
// (ReadFile's): a file verify does not read itself, but others do.
func (v *verifier) withinCap(name string) {
	info, err := v.snap.Lstat(name)
	if err != nil {
		return
	}
	if limit := v.snap.maxBytes(name, nil, false); info.Size() > limit {
		v.add(name, "%v: %d bytes, at most %d here", ErrTooLarge, info.Size(), limit)
	}
}

// readIndex reads one index file, recording a drift when it is missing or
// not a regular file.
func (v *verifier) readIndex(name string) []byte {
	if !v.regularIndex(name) {
		return nil
	}
	data, err := v.snap.ReadFile(name)
	if errors.Is(err, fs.ErrNotExist) {
		v.add(name, "missing")
		return nil
	}
	if err != nil {
		v.add(name, "unreadable: %v", err)
		return nil
	}
	return data
}

// manifest parses files.json and checks that it is sorted, has no repeated
// path, a hash on every staged entry and a staged canonical copy behind
// every duplicate. It returns nil when files.json cannot be used at all.
func (v *verifier) manifest() *Manifest {
	data := v.readIndex(FilesJSON)
	if data == nil {
		return nil
	}
	m, err := ParseManifest(data)
	if err != nil {
		v.add(FilesJSON, "%v", err)
		return nil
	}
	v.snap.remember(m) // the other files' caps
	staged := make(map[string]bool, len(m.Files))
	for i, e := range m.Files {
		if i > 0 && m.Files[i-1].Path >= e.Path {
			if m.Files[i-1].Path == e.Path {
				v.add(FilesJSON, "path %q is listed twice", e.Path)
			} else {
				v.add(FilesJSON, "not sorted by path at %q", e.Path)
			}
		}
		staged[e.Path] = e.Staged
	}
	for _, e := range m.Files {
		switch {
		case e.Staged && e.DuplicateOf != "":
			v.add(FilesJSON, "%q is staged and also a duplicate of %q", e.Path, e.DuplicateOf)
		case e.DuplicateOf != "" && !staged[e.DuplicateOf]:
			v.add(FilesJSON, "%q is a duplicate of %q, which is not staged", e.Path, e.DuplicateOf)
		case e.Staged && e.Hash == "":
			v.add(FilesJSON, "%q is staged without a hash", e.Path)
		}
	}
	return m
}

// decodeIndex decodes an index file's JSON and checks its schema; strict
// refuses unknown fields, for the formats this package owns.
func (v *verifier) decodeIndex(name, schema string, into any, strict bool) bool {
	data := v.readIndex(name)
	if data == nil {
		return false
	}
	var head struct{ Schema string }
	if err := json.Unmarshal(data, &head); err != nil {
		v.add(name, "parse: %v", err)
		return false
	}
	if head.Schema != schema {
		v.add(name, "schema %q, want %q", head.Schema, schema)
		return false
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if strict {
		dec.DisallowUnknownFields()
	}
	if err := dec.Decode(into); err != nil {
		v.add(name, "parse: %v", err)
		return false
	}
	return true
}

// oversize checks oversize.json lists exactly the staged oversize entries,
// with their line counts.
func (v *verifier) oversize(m *Manifest) {
	var idx OversizeIndex
	if !v.decodeIndex(OversizeJSON, OversizeSchema, &idx, true) || m == nil {
		return
	}
	byPath := make(map[string]*Entry, len(m.Files))
	for i := range m.Files {
		byPath[m.Files[i].Path] = &m.Files[i]
	}
	listed := make(map[string]bool, len(idx.Files))
	for _, f := range idx.Files {
		listed[f.Path] = true
		switch e := byPath[f.Path]; {
		case e == nil:
			v.add(OversizeJSON, "lists %q, which files.json does not", f.Path)
		case !e.Oversize || !e.Staged:
			v.add(OversizeJSON, "lists %q, which files.json does not mark as staged and oversize", f.Path)
		case f.Lines != e.Lines:
			v.add(OversizeJSON, "%q has %d lines, files.json records %d", f.Path, f.Lines, e.Lines)
		case f.Size != e.Size || f.Encoding != e.Encoding:
			v.add(OversizeJSON, "%q has size %d and encoding %q, files.json records %d and %q", f.Path, f.Size, f.Encoding, e.Size, e.Encoding)
		default:
			v.previews[f.Path] = f.Preview
		}
	}
	for _, e := range m.Files {
		if e.Oversize && e.Staged && !listed[e.Path] {
			v.add(OversizeJSON, "does not list oversize file %q", e.Path)
		}
	}
}

// verifySecrets is the part of secrets.json that Verify checks; fields it
// does not know are allowed, since the secret scan owns the format.
type verifySecrets struct {
	Findings []struct {
		Path string `json:"path"`
		Line int    `json:"line"`
		Rule string `json:"rule"`
	} `json:"findings"`
}

// secrets checks every finding names a listed path, a line and a rule, and
// that each entry's secrets count matches its findings.
// It returns the findings for secrets.sarif's check, nil when secrets.json
// cannot be used.
func (v *verifier) secrets(m *Manifest) *verifySecrets {
	var s verifySecrets
	if !v.decodeIndex(SecretsJSON, secrets.Schema, &s, false) {
		return nil
	}
	if m == nil {
		return &s
	}

	byPath := map[string]int{}
	for _, f := range s.Findings {
		byPath[f.Path]++
		if f.Line < 0 || f.Rule == "" { // line 0: the secret is in the path or link target
			v.add(SecretsJSON, "finding in %q lacks a line or a rule", f.Path)
		}
	}
	for _, e := range m.Files {
		if n := byPath[e.Path]; n != e.Secrets {
			v.add(SecretsJSON, "%d findings for %q, files.json records %d", n, e.Path, e.Secrets)
		}
		delete(byPath, e.Path)
	}
	for _, p := range slices.Sorted(maps.Keys(byPath)) {
		v.add(SecretsJSON, "findings for %q, which files.json does not list", p)
	}
	return &s
}

// verifySARIF is the part of secrets.sarif a reader (GitHub code
// scanning) relies on.
type verifySARIF struct {
	Version string `json:"version"`
	Runs    []struct {
		Results []struct {
			RuleID    string `json:"ruleId"`
			Locations []struct {
				PhysicalLocation struct {
					ArtifactLocation struct {
						URI string `json:"uri"`
					} `json:"artifactLocation"`
					Region struct {
						StartLine int `json:"startLine"`
					} `json:"region"`
				} `json:"physicalLocation"`
			} `json:"locations"`
		} `json:"results"`
	} `json:"runs"`
}

// sarif checks secrets.sarif reports the same findings as secrets.json
// (s; nil when that could not be read): one result per finding, at the
// same path, line and rule.
func (v *verifier) sarif(s *verifySecrets) {
	data := v.readIndex(SecretsSARIF)
	if data == nil {
		return
	}
	var doc verifySARIF
	if err := json.Unmarshal(data, &doc); err != nil {
		v.add(SecretsSARIF, "parse: %v", err)
		return
	}
	if doc.Version != "2.1.0" || len(doc.Runs) != 1 {
		v.add(SecretsSARIF, "want SARIF 2.1.0 with one run, got version %q with %d runs", doc.Version, len(doc.Runs))
		return
	}
	if s == nil {
		return
	}
	type key struct {
		path, rule string
		line       int
	}
	want := map[key]int{}
	for _, f := range s.Findings {
		// SARIF lines start at 1: a secret in a name (line 0) is reported on line 1.
		want[key{f.Path, f.Rule, max(f.Line, 1)}]++
	}
	for _, r := range doc.Runs[0].Results {
		if len(r.Locations) != 1 {
			v.add(SecretsSARIF, "a %s result has %d locations, want 1", r.RuleID, len(r.Locations))
			continue
		}
		loc := r.Locations[0].PhysicalLocation
		p, err := url.PathUnescape(loc.ArtifactLocation.URI)
		if err != nil {
			v.add(SecretsSARIF, "result uri %q: %v", loc.ArtifactLocation.URI, err)
			continue
		}
		k := key{p, r.RuleID, loc.Region.StartLine}
		if want[k] == 0 {
			v.add(SecretsSARIF, "reports %s at %s:%d, which secrets.json does not", k.rule, k.path, k.line)
			continue
		}
		want[k]--
	}
	for _, k := range slices.SortedFunc(maps.Keys(want), func(a, b key) int { return strings.Compare(a.path, b.path) }) {
		if want[k] > 0 {
			v.add(SecretsSARIF, "does not report %s at %s:%d, which secrets.json lists", k.rule, k.path, k.line)
		}
	}
}

// report checks report.json parses and carries its schema; its content
// differs between runs by design.
func (v *verifier) report() {
	var rep map[string]any
	v.decodeIndex(ReportJSON, ReportSchema, &rep, false)
}

// reportPage checks report.html, when it is there: a regular file within
// its cap. Its content differs between runs, as report.json's does, and
// is a function of the other files (repoprep report writes it again); a
// snapshot published before there was a page has none.
func (v *verifier) reportPage() {
	if _, err := v.snap.Lstat(ReportHTML); errors.Is(err, fs.ErrNotExist) {
		return
	}
	if v.regularIndex(ReportHTML) {
		v.withinCap(ReportHTML)
	}
}

// tree compares tree/ with the staged entries: walked first, so a missing
// file, an extra file, a non-regular file, a hard-linked file (the server
// refuses those) and a directory holding no staged file are each told
// apart; then every staged file is hashed, its lines and tokens counted
// and, for an oversize file, its preview compared with oversize.json.
func (v *verifier) tree(ctx context.Context, m *Manifest) error {
	tree, err := v.snap.Tree()
	if err != nil {
		v.add(TreeDir, "unreadable: %v", err)
		return nil
	}
	defer tree.Close()
	regular := map[string]bool{}
	var dirs []string
	err = fs.WalkDir(tree.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			v.add("tree/"+p, "unreadable: %v", err)
			return nil
		}
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		switch {
		case d.IsDir():
			if p != "." {
				dirs = append(dirs, p)
			}
		case d.Type().IsRegular():
			regular[p] = true
			if info, err := d.Info(); err == nil {
				if n := LinkCount(info); n != 1 {
					v.add("tree/"+p, "has %d hard links; the server refuses such files", n)
				}
			}
		default:
			v.add("tree/"+p, "not a regular file (%v)", d.Type())
			regular[p] = false
		}
		return nil
	})
	if err != nil {
		return err
	}

	byPath := make(map[string]*Entry, len(m.Files))
	holds := map[string]bool{} // directories above a staged file
	var jobs []*Entry
	for i := range m.Files {
		e := &m.Files[i]
		byPath[e.Path] = e
		if !e.Staged {
			continue
		}
		for d := path.Dir(e.Path); d != "." && !holds[d]; d = path.Dir(d) {
			holds[d] = true
		}
		isRegular, found := regular[e.Path]
		switch {
		case !found:
			v.add("tree/"+e.Path, "missing (files.json lists it as staged)")
		case isRegular:
			jobs = append(jobs, e)
		}
	}
	for _, p := range slices.Sorted(maps.Keys(regular)) {
		switch e := byPath[p]; {
		case e == nil:
			v.add("tree/"+p, "not listed in files.json")
		case !e.Staged:
			v.add("tree/"+p, "present, but files.json says it is not staged")
		}
	}
	for _, d := range dirs {
		if !holds[d] {
			v.add("tree/"+d, "a directory that holds no staged file")
		}
	}

	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(runtime.GOMAXPROCS(0))
	for _, e := range jobs {
		if gctx.Err() != nil {
			break
		}
		g.Go(func() error {
			var lc *lineindex.LineCounter
			if v.tokens != nil {
				lc = &lineindex.LineCounter{}
			}
			c, err := measureStaged(gctx, tree, e.Path, e.Oversize && v.lines[e.Path] != nil, lc)
			if gctx.Err() != nil {
				return gctx.Err()
			}
			switch {
			case err != nil:
				v.add("tree/"+e.Path, "unreadable: %v", err)
				return nil
			case c.hash != e.Hash && e.Hash != "":
				v.add("tree/"+e.Path, "content changed: hash %s, files.json records %s", c.hash, e.Hash)
			case c.lines != e.Lines:
				v.add("tree/"+e.Path, "%d lines, files.json records %d", c.lines, e.Lines)
			case e.Tokens < c.tokensLow || e.Tokens > c.tokensHigh:
				v.add("tree/"+e.Path, "%d o200k tokens, files.json records %d", c.tokensLow, e.Tokens)
			}
			if want, ok := v.previews[e.Path]; ok {
				v.preview(tree, e.Path, want)
			}
			if c.marks != nil {
				v.checkMarks(e.Path, c.marks.File())
			}
			if lc != nil {
				v.checkTokens(e.Path, lc)
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	return ctx.Err()
}

// preview checks an oversize preview is the staged file's first lines, as
// many as the preview holds.
func (v *verifier) preview(tree *os.Root, name, want string) {
	n := strings.Count(want, "\n")
	if want != "" && !strings.HasSuffix(want, "\n") {
		n++
	}
	got, err := readPreview(tree.FS(), name, n)
	switch {
	case err != nil:
		v.add(OversizeJSON, "preview of %q: %v", name, err)
	case got != want:
		v.add(OversizeJSON, "the preview of %q is not the staged file's first %d lines", name, n)
	}
}

// staged is what Verify measures of one staged file.
type staged struct {
	hash  string
	lines int
	// The token count files.json records lies between these. The whole
	// text's count (cut only at newlines past 1 MiB) is the low bound;
	// normalize's 64 KiB line-aligned batches and the line-by-line count
	// of a redacted copy are above it by at most one token a line (all
	// 9,696 text files of GOROOT/src). Each forced cut of a line longer
	// than 1 MiB can move a count by a token or two either way.
	tokensLow, tokensHigh int
	marks                 *lineindex.Marker // the line marks, when asked for
}

var hashBufs = sync.Pool{New: func() any { b := bufio.NewReaderSize(nil, 64<<10); return b }}

// maxTokenBatchBytes bounds one token count while verifying.
const maxTokenBatchBytes = 1 << 20

// measureStaged streams one staged file once: BLAKE3 over its bytes, lines
// as the staged files count them (newlines, plus one for a last line
// without one) and the token bounds, with one count of the text, and its
// line marks if marks is set (an oversize file's), and its line token
// counts into lc unless it is nil. Safe for concurrent use.
func measureStaged(ctx context.Context, tree *os.Root, name string, marks bool, lc *lineindex.LineCounter) (staged, error) {
	f, err := tree.Open(filepath.FromSlash(name))
	if err != nil {
		return staged{}, err
	}
	defer f.Close()
	h := blake3.New()
	br := hashBufs.Get().(*bufio.Reader)
	defer hashBufs.Put(br)
	br.Reset(io.TeeReader(ctxReader{ctx, f}, h))
	var c staged
	if marks {
		c.marks = &lineindex.Marker{}
	}
	var batch []byte
	cuts := 0
	countBatch := func(final bool) {
		cut := len(batch)
		if !final {
			if i := bytes.LastIndexByte(batch, '\n'); i >= 0 {
				cut = i + 1
			} else {
				cut = runeCut(batch)
				cuts++
			}
		}
		c.tokensLow += tokens.Count(string(batch[:cut]))
		batch = append(batch[:0], batch[cut:]...)
	}
	var last byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(chunk) > 0 {
			if c.marks != nil {
				c.marks.Write(chunk)
			}
			if lc != nil {
				lc.Write(chunk)
			}
			batch = append(batch, chunk...)
			last = chunk[len(chunk)-1]
			if last == '\n' {
				c.lines++
			}
		}
		if len(batch) >= maxTokenBatchBytes {
			countBatch(false)
		}
		if err == io.EOF {
			break
		}
		if err != nil && err != bufio.ErrBufferFull {
			return staged{}, err
		}
	}
	if last != 0 && last != '\n' {
		c.lines++
	}
	countBatch(true)
	c.tokensHigh = c.tokensLow + c.lines + 2*cuts
	c.tokensLow -= 2 * cuts
	c.hash = "blake3:" + hex.EncodeToString(h.Sum(nil))
	return c, nil
}

// runeCut is the length of the longest prefix of b that does not end in
// an incomplete rune.
func runeCut(b []byte) int {
	last := len(b) - 1
	for last > 0 && !utf8.RuneStart(b[last]) {
		last--
	}
	if last >= 0 && !utf8.FullRune(b[last:]) {
		return last
	}
	return len(b)
}

// ctxReader stops reading once ctx is done.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
