// Package report owns report.json and the audit: what a run did, where the
// bulk of a repository is and what looked wrong, as data (Report, Audit)
// and as the summary printed at the end of a run (Audit.Render). The audit
// is a function of the files.json model, the findings and the stage times.
package report

import (
	"fmt"
	"io"
	"path"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/repoprep/repoprep/internal/numfmt"
	"github.com/repoprep/repoprep/internal/secrets"
	"github.com/repoprep/repoprep/snapshot"
)

// Audit is the end-of-run summary an engineer auditing a repository reads:
// what was scanned, where the bulk is, what looked wrong and how fast it
// went. It is printed at the end of a run and embedded in report.json.
type Audit struct {
	Files       int   `json:"files"`
	Bytes       int64 `json:"bytes"`
	Staged      int   `json:"staged"`
	StagedBytes int64 `json:"staged_bytes"` // source bytes of the staged files
	Pruned      int   `json:"pruned"`
	PrunedFiles int   `json:"pruned_files"` // files below the pruned directories (audit_left.go)

	PrunedDirs   []AuditPruned `json:"pruned_dirs"`    // by files, at most 50
	LeftOut      []AuditFile   `json:"left_out"`       // largest files not staged (duplicates aside), at most 50
	LeftOutCount int           `json:"left_out_count"` // all of them
	LeftOutBytes int64         `json:"left_out_bytes"`

	Categories  []AuditCount `json:"categories"`    // by files, then name
	Reasons     []AuditCount `json:"reasons"`       // "category/reason", by files
	Extensions  []AuditCount `json:"extensions"`    // top 15 by files; "(none)" for no extension
	DirsByFiles []AuditCount `json:"dirs_by_files"` // top 10 directories (two levels deep, subtrees counted)
	DirsByBytes []AuditCount `json:"dirs_by_bytes"` // top 10, as above, by bytes

	// The two file lists keep the first auditMaxListed rows in their order
	// and count every file, so report.json stays small on a tree of build
	// products yet says how many there were; everything else in Audit is
	// complete (bounded by the number of categories, reasons, encodings or
	// rules) or a deliberate top-N.
	LargeFiles    []AuditFile  `json:"large_files"`    // over 5 MiB, largest first, at most 50
	LargeCount    int          `json:"large_count"`    // all files over 5 MiB
	Mismatches    []AuditFile  `json:"mismatches"`     // extension disagrees with content, at most 50, see mismatchOrder
	MismatchCount int          `json:"mismatch_count"` // all of them
	Encodings     []AuditCount `json:"encodings"`      // source encodings of staged text

	DuplicateGroups int   `json:"duplicate_groups"`
	DuplicateFiles  int   `json:"duplicate_files"` // files replaced by a pointer to their canonical copy
	DuplicateBytes  int64 `json:"duplicate_bytes"` // bytes those files would have taken

	// Documents whose text was extracted, by format, and documents an
	// extractor refused, by reason (encrypted, unreadable, over-limit,
	// no-text). Formats no extractor reads (legacy .doc, .xls) are in
	// Reasons as document/office, as before.
	DocumentsExtracted []AuditCount `json:"documents_extracted,omitempty"`
	DocumentsRefused   []AuditCount `json:"documents_refused,omitempty"`

	// Refresh is report.json's refresh, shown in one line under Scanned.
	Refresh *Refresh `json:"-"`

	// Tokens is the o200k token count of the staged files: what reading
	// the whole snapshot costs an agent (audit_tokens.go).
	Tokens           int64            `json:"tokens"`
	TokensByCategory []AuditTokens    `json:"tokens_by_category"` // by tokens
	TokensByDir      []AuditTokens    `json:"tokens_by_dir"`      // top-level directories ("." for root files), by tokens, at most 50
	TopTokenFiles    []AuditTokenFile `json:"top_token_files"`    // the 10 staged files with the most tokens

	Secrets      []AuditCount `json:"secrets"` // per rule: files holding its findings, and the findings
	SecretsTotal int          `json:"secrets_total"`
	Stages       []StageTime  `json:"stages"`
	Seconds      float64      `json:"seconds"` // sum of stage times
	FilesPerSec  float64      `json:"files_per_sec"`
	MBPerSec     float64      `json:"mb_per_sec"`
}

// AuditCount is one row of a ranked table.
type AuditCount struct {
	Name     string `json:"name"`
	Files    int    `json:"files"`
	Bytes    int64  `json:"bytes"`
	Findings int    `json:"findings,omitempty"` // secrets rows only
}

// SecretCount is what one secret rule found: in how many files, how many
// findings.
type SecretCount struct{ Files, Findings int }

// CountSecrets groups findings by rule, counting each path once per rule.
func CountSecrets(fs []secrets.PathFinding) map[string]SecretCount {
	out := map[string]SecretCount{}
	seen := map[[2]string]bool{}
	for _, f := range fs {
		c := out[f.Rule]
		c.Findings++
		if k := [2]string{f.Rule, f.Path}; !seen[k] {
			seen[k] = true
			c.Files++
		}
		out[f.Rule] = c
	}
	return out
}

// AuditFile is one file worth a look.
type AuditFile struct {
	Path     string `json:"path"`
	Size     int64  `json:"size"`
	Category string `json:"category"`
	Reason   string `json:"reason,omitempty"`
	Mime     string `json:"mime,omitempty"`
	Test     bool   `json:"test,omitempty"` // a test file or fixture, often misnamed on purpose
}

const (
	auditLargeBytes = 5 << 20 // "files over 5 MB" in the issue; MiB, like --max-text-bytes
	auditTopExts    = 15
	auditTopDirs    = 10
	auditMaxListed  = 50 // keeps report.json small on a repository of build products
	auditMaxRows    = 15 // rows per section of the rendered summary; the rest is "and N more"
	auditDirDepth   = 2  // src/components, not src/components/button/icons
)

// BuildAudit summarizes a manifest, the secret findings per rule and the
// stage timings. It is deterministic: ties are broken by name.
func BuildAudit(m *snapshot.Manifest, secretsByRule map[string]SecretCount, stages []StageTime) Audit {
	a := Audit{Pruned: len(m.Pruned), Stages: stages}
	cats := map[string]*AuditCount{}
	reasons := map[string]*AuditCount{}
	exts := map[string]*AuditCount{}
	dirs := map[string]*AuditCount{}
	encs := map[string]*AuditCount{}
	groups := map[string]bool{}
	var left leftOut
	docsOut, docsLeft := map[string]*AuditCount{}, map[string]*AuditCount{}
	add := func(byName map[string]*AuditCount, name string, size int64) {
		c := byName[name]
		if c == nil {
			c = &AuditCount{Name: name}
			byName[name] = c
		}
		c.Files++
		c.Bytes += size
	}
	for i := range m.Files {
		e := &m.Files[i]
		a.Files++
		a.Bytes += e.Size
		add(cats, e.Category, e.Size)
		if e.Reason != "" {
			add(reasons, e.Category+"/"+e.Reason, e.Size)
		}
		add(exts, auditExt(e.Path), e.Size)
		for _, d := range auditDirs(e.Path) {
			add(dirs, d, e.Size)
		}
		if e.Staged {
			a.Staged++
			a.StagedBytes += e.Size
			if e.Encoding != "" {
				add(encs, e.Encoding, e.Size)
			}
		}
		if e.Size > auditLargeBytes {
			a.LargeCount++
			a.LargeFiles = append(a.LargeFiles, AuditFile{Path: e.Path, Size: e.Size, Category: e.Category, Test: e.Test})
		}
		if e.ExtMismatch {
			a.MismatchCount++
			a.Mismatches = append(a.Mismatches, AuditFile{Path: e.Path, Size: e.Size, Category: e.Category, Mime: e.Mime, Test: e.Test})
		}
		left.add(e)
		switch {
		case e.ExtractedFrom != "" && e.Staged:
			add(docsOut, e.ExtractedFrom, e.Size)
		case strings.HasPrefix(e.Err, "extract: "):
			add(docsLeft, e.Reason, e.Size)
		}
		if e.DuplicateOf != "" {
			a.DuplicateFiles++
			a.DuplicateBytes += e.Size
			groups[e.DuplicateOf] = true
		}
	}
	a.DuplicateGroups = len(groups)
	a.addTokens(m)
	a.LeftOut, a.LeftOutCount, a.LeftOutBytes = left.top, left.count, left.bytes
	// Empty lists are [] in report.json, never null: the schema says array.
	a.LeftOut, a.LargeFiles, a.Mismatches = nonNil(a.LeftOut), nonNil(a.LargeFiles), nonNil(a.Mismatches)
	sort.SliceStable(a.LargeFiles, func(i, j int) bool { return a.LargeFiles[i].Size > a.LargeFiles[j].Size })
	if len(a.LargeFiles) > auditMaxListed {
		a.LargeFiles = a.LargeFiles[:auditMaxListed]
	}
	sort.SliceStable(a.Mismatches, func(i, j int) bool { return mismatchOrder(a.Mismatches[i], a.Mismatches[j]) })
	if len(a.Mismatches) > auditMaxListed {
		a.Mismatches = a.Mismatches[:auditMaxListed]
	}
	a.Categories = auditRank(cats, byFiles, 0)
	a.Reasons = auditRank(reasons, byFiles, 0)
	a.Extensions = auditRank(exts, byFiles, auditTopExts)
	a.DirsByFiles = auditRank(dirs, byFiles, auditTopDirs)
	a.DirsByBytes = auditRank(dirs, byBytes, auditTopDirs)
	a.Encodings = auditRank(encs, byFiles, 0)
	a.DocumentsExtracted = auditRank(docsOut, byFiles, 0)
	a.DocumentsRefused = auditRank(docsLeft, byFiles, 0)
	rules := map[string]*AuditCount{}
	for rule, n := range secretsByRule {
		rules[rule] = &AuditCount{Name: rule, Files: n.Files, Findings: n.Findings}
		a.SecretsTotal += n.Findings
	}
	a.Secrets = auditRank(rules, byFiles, 0)
	for _, s := range stages {
		a.Seconds += s.Seconds
	}
	if a.Seconds > 0 {
		a.FilesPerSec = float64(a.Files) / a.Seconds
		a.MBPerSec = float64(a.Bytes) / (1 << 20) / a.Seconds
	}
	return a
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// mismatchOrder puts the mismatches worth a look first: files outside
// tests before test fixtures (which are misnamed on purpose: GOROOT's
// src has hundreds of .crt and .test fixtures that sniff as something
// else), then the largest first (a .txt that is a 40 MB ZIP hides more
// than a 100-byte one), then by path, so the order is total.
func mismatchOrder(a, b AuditFile) bool {
	if a.Test != b.Test {
		return !a.Test
	}
	if a.Size != b.Size {
		return a.Size > b.Size
	}
	return a.Path < b.Path
}

// auditExt is a file's extension, lower-cased, with compound archive
// extensions kept whole (.tar.gz) and "(none)" for none.
func auditExt(p string) string {
	base := strings.ToLower(path.Base(p))
	for _, two := range []string{".tar.gz", ".tar.bz2", ".tar.xz", ".tar.zst"} {
		if strings.HasSuffix(base, two) {
			return two
		}
	}
	ext := path.Ext(base)
	if ext == "" || ext == base {
		return "(none)"
	}
	return ext
}

// auditDirs lists the directories a file counts toward: its ancestors down
// to auditDirDepth, or "." for a file at the root.
func auditDirs(p string) []string {
	var out []string
	for i, depth := 0, 0; depth < auditDirDepth; depth++ {
		j := strings.IndexByte(p[i:], '/')
		if j < 0 {
			break
		}
		i += j
		out = append(out, p[:i])
		i++
	}
	if out == nil {
		out = []string{"."}
	}
	return out
}

type auditOrder int

const (
	byFiles auditOrder = iota
	byBytes
)

func auditRank(byName map[string]*AuditCount, order auditOrder, top int) []AuditCount {
	out := make([]AuditCount, 0, len(byName))
	for _, c := range byName {
		out = append(out, *c)
	}
	key := func(c AuditCount) int64 {
		if order == byBytes {
			return c.Bytes
		}
		return int64(c.Files)
	}
	sort.Slice(out, func(i, j int) bool {
		if ki, kj := key(out[i]), key(out[j]); ki != kj {
			return ki > kj
		}
		return out[i].Name < out[j].Name
	})
	if top > 0 && len(out) > top {
		out = out[:top]
	}
	return out
}

// Render writes the audit as aligned plain-text tables. With color, section
// titles are bold and warnings yellow; the caller passes false when
// NO_COLOR is set or stdout is not a terminal.
func (a Audit) Render(w io.Writer, color bool) error {
	r := &auditWriter{w: w, color: color}
	r.title("Scanned")
	r.row("files", numfmt.Int(a.Files), numfmt.Bytes(a.Bytes))
	r.row("staged", numfmt.Int(a.Staged), numfmt.Bytes(a.StagedBytes), numfmt.Int(a.Tokens)+" tokens")
	r.row("directories not walked", numfmt.Int(a.Pruned))
	if a.Refresh != nil {
		r.row("reused", a.Refresh.Line(a.Files))
	}
	r.renderLeftOut(a)
	r.counts("By category", a.Categories)
	r.renderTokens(a)
	r.counts("By reason", a.Reasons)
	r.counts("Top extensions", a.Extensions)
	r.counts("Top directories by files", a.DirsByFiles)
	r.counts("Top directories by bytes", a.DirsByBytes)
	r.files("Files over 5 MiB", a.LargeFiles, a.LargeCount, false)
	r.files("Extension and content disagree", a.Mismatches, a.MismatchCount, true)
	r.counts("Encodings of staged files", a.Encodings)
	if a.DuplicateFiles > 0 {
		r.title("Duplicates")
		r.row("groups", numfmt.Int(a.DuplicateGroups))
		r.row("files dropped", numfmt.Int(a.DuplicateFiles), numfmt.Bytes(a.DuplicateBytes)+" saved")
	}
	if len(a.DocumentsExtracted)+len(a.DocumentsRefused) > 0 {
		r.title("Documents")
		for _, c := range a.DocumentsExtracted {
			r.row("extracted "+c.Name, numfmt.Int(c.Files), numfmt.Bytes(c.Bytes))
		}
		for _, c := range a.DocumentsRefused {
			r.row("refused: "+c.Name, numfmt.Int(c.Files), numfmt.Bytes(c.Bytes))
		}
	}
	if a.SecretsTotal > 0 {
		r.title("Secrets")
		for i, s := range a.Secrets {
			if i == auditMaxRows {
				r.more(len(a.Secrets) - i)
				break
			}
			r.row(s.Name, numfmt.Int(s.Files)+" "+numfmt.Plural(s.Files, "file", "files"), numfmt.Int(s.Findings)+" "+numfmt.Plural(s.Findings, "finding", "findings"))
		}
		r.warn(fmt.Sprintf("%s %s: see secrets.json", numfmt.Int(a.SecretsTotal), numfmt.Plural(a.SecretsTotal, "finding", "findings")))
	}
	if len(a.Stages) > 0 {
		r.title("Time")
		for _, s := range a.Stages {
			r.row(s.Name, fmt.Sprintf("%.2fs", s.Seconds), fmt.Sprintf("%.0f files/s", s.FilesPerSec), fmt.Sprintf("%.1f MiB/s", s.MBPerSec))
		}
		r.row("total", fmt.Sprintf("%.2fs", a.Seconds), fmt.Sprintf("%.0f files/s", a.FilesPerSec), fmt.Sprintf("%.1f MiB/s", a.MBPerSec))
	}
	r.flush()
	return r.err
}

// auditWriter buffers one section's rows and aligns them on flush: names
// left, figures right. It keeps the first write error. Colour escapes only
// go on lines that are not aligned, so they never skew a column.
type auditWriter struct {
	w       io.Writer
	rows    [][]string
	color   bool
	err     error
	started bool
}

func (r *auditWriter) printf(format string, args ...any) {
	if r.err == nil {
		_, r.err = fmt.Fprintf(r.w, format, args...)
	}
}

func (r *auditWriter) flush() {
	var widths []int
	for _, row := range r.rows {
		for i, cell := range row {
			if i == len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], utf8.RuneCountInString(cell))
		}
	}
	for _, row := range r.rows {
		var b strings.Builder
		b.WriteString("  ")
		for i, cell := range row {
			pad := strings.Repeat(" ", widths[i]-utf8.RuneCountInString(cell))
			if i > 0 {
				b.WriteString("  ")
			}
			// Figures align right; names and words align left.
			if i > 0 && cell != "" && (cell[0] >= '0' && cell[0] <= '9' || cell[0] == '<') {
				b.WriteString(pad + cell)
			} else {
				b.WriteString(cell + pad)
			}
		}
		r.printf("%s\n", strings.TrimRight(b.String(), " "))
	}
	r.rows = r.rows[:0]
}

func (r *auditWriter) title(s string) {
	r.flush()
	if r.started {
		r.printf("\n")
	}
	r.started = true
	if r.color {
		r.printf("\x1b[1m%s\x1b[0m\n", s)
	} else {
		r.printf("%s\n", s)
	}
}

func (r *auditWriter) warn(s string) {
	r.flush()
	if r.color {
		r.printf("  \x1b[33m%s\x1b[0m\n", s)
	} else {
		r.printf("  %s\n", s)
	}
}

// row adds one line to the section: a name, then figures.
func (r *auditWriter) row(name string, figures ...string) {
	r.rows = append(r.rows, append([]string{name}, figures...))
}

// more ends a section cut at auditMaxRows with the number of rows left.
func (r *auditWriter) more(n int) {
	r.flush()
	r.printf("  and %s more\n", numfmt.Int(n))
}

// counts writes a ranked table of at most auditMaxRows rows; the rows cut
// are summed into one "and N more" row, so the files column still adds up.
func (r *auditWriter) counts(title string, cs []AuditCount) {
	if len(cs) == 0 {
		return
	}
	r.title(title)
	for i, c := range cs {
		if i == auditMaxRows {
			var files int
			var size int64
			for _, c := range cs[i:] {
				files += c.Files
				size += c.Bytes
			}
			r.row(fmt.Sprintf("and %s more", numfmt.Int(len(cs)-i)), numfmt.Int(files), numfmt.Bytes(size))
			break
		}
		r.row(c.Name, numfmt.Int(c.Files), numfmt.Bytes(c.Bytes))
	}
}

// files writes at most auditMaxRows of a file list whose full length is
// total, marking test fixtures.
func (r *auditWriter) files(title string, fs []AuditFile, total int, withMime bool) {
	if total == 0 {
		return
	}
	r.title(fmt.Sprintf("%s: %s", title, numfmt.Int(total)))
	shown := fs[:min(len(fs), auditMaxRows)]
	for _, f := range shown {
		extra := f.Category
		if withMime && f.Mime != "" {
			extra = f.Mime
		}
		if f.Test {
			extra += " (test)"
		}
		r.row(f.Path, numfmt.Bytes(f.Size), extra)
	}
	if total > len(shown) {
		r.more(total - len(shown))
	}
}
