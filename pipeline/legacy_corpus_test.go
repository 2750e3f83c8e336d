package pipeline

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/htmlindex"

	"github.com/repoprep/repoprep/snapshot"
)

// The legacy corpus benchmark (make bench-legacy) measures the
// encoding targets on real repositories. $REPOPREP_LEGACY (never committed)
// holds
//
//	repos.tsv   name, repo (owner/name), commit, split (dev or heldout), family
//	labels.tsv  repo, path, charset, evidence: every tracked file that is text
//	            but not valid UTF-8, with the charset that decodes it to what a
//	            person wrote (a WHATWG or x/text name; "?" when no one charset
//	            does, and then it is not scored), and how that was settled
//	repos/NAME  a work tree of each repository at its commit
//
// The whole pipeline runs once per repository, as `repoprep run` would. A
// labelled file is right when its staged text is the label's decoding (BOM
// dropped, CRLF and CR → LF, and the vendor equivalences bench-encoding
// accepts: ISO-8859-1 as Windows-1252, GBK as GB18030...), garbled when it is
// staged any other way, refused when normalize refused it (undecodable,
// mojibake, invalid-utf8, or binary by the decoder), and dropped when it never
// reached normalize (triage called it binary or junk, or it lies in a pruned
// directory). A file left out by its name (a backup, foo.c.orig) is not an
// encoding verdict and is not scored, like an unsettled label. Valid UTF-8 files are not labelled: one the run refuses, or
// stages other than as written, is counted in a column of its own (7-bit
// ISO-2022-JP may be decoded; a document's extracted text is not counted).
// uchardet, when installed, is scored on the same files as a peer: its
// answer decoded with iconv, as a user of it would. The benchmark fails on
// any garbled file, any valid UTF-8 file refused or changed, and a right rate
// under 97%: the targets for real repositories. Files of the held-out repositories are
// counted but not named unless REPOPREP_LEGACY_HELDOUT=show: whoever tunes
// the decoder must not fit it to them.

// legacyRepo is one line of repos.tsv.
type legacyRepo struct{ name, repo, commit, split, family string }

// legacyLabel is one line of labels.tsv.
type legacyLabel struct{ repo, path, charset, evidence string }

// legacyUnsettled is the charset of a file no one charset decodes (mixed
// encodings, test data of raw bytes): listed, never scored.
const legacyUnsettled = "?"

// legacyResult is one labelled file's score: outcome's verdict is right,
// garbled, refused, dropped or unsettled; detail says what the run did.
type legacyResult struct {
	outcome
	repo, split string
	ours, truth string // where a garbled text first differs from the truth
	peer        string // uchardet's verdict (right, garbled, refused), "" without it
}

// legacyUTF8 counts a repository's valid UTF-8 files the run refused or
// changed, with their paths and what happened.
type legacyUTF8 struct {
	files, refused, changed int
	notes                   []string
}

// readLegacyTSV parses one of the corpus's tables: a header line naming the
// columns want names, in order, then rows of exactly that many tab-separated
// fields. Blank lines and lines starting with # are skipped; a line longer
// than 1 MiB is an error, so a damaged file costs no more than its size.
func readLegacyTSV(r io.Reader, want ...string) ([][]string, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	var rows [][]string
	header := false
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSuffix(sc.Text(), "\r")
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Split(line, "\t")
		if !header {
			if !slices.Equal(fields, want) {
				return nil, fmt.Errorf("line %d: header %q, want %q", n, line, strings.Join(want, "\t"))
			}
			header = true
			continue
		}
		if len(fields) != len(want) {
			return nil, fmt.Errorf("line %d: %d fields, want %d (%s)", n, len(fields), len(want), strings.Join(want, ", "))
		}
		rows = append(rows, fields)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if !header {
		return nil, fmt.Errorf("no header line (want %q)", strings.Join(want, "\t"))
	}
	return rows, nil
}

// readLegacyCorpus reads repos.tsv and labels.tsv under dir.
func readLegacyCorpus(dir string) ([]legacyRepo, []legacyLabel, error) {
	read := func(name string, want ...string) ([][]string, error) {
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			return nil, err
		}
		defer f.Close()
		rows, err := readLegacyTSV(f, want...)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		return rows, nil
	}
	rrows, err := read("repos.tsv", "name", "repo", "commit", "split", "family")
	if err != nil {
		return nil, nil, err
	}
	lrows, err := read("labels.tsv", "repo", "path", "charset", "evidence")
	if err != nil {
		return nil, nil, err
	}
	var repos []legacyRepo
	for _, r := range rrows {
		if r[3] != "dev" && r[3] != "heldout" {
			return nil, nil, fmt.Errorf("repos.tsv: %s: split %q, want dev or heldout", r[0], r[3])
		}
		repos = append(repos, legacyRepo{r[0], r[1], r[2], r[3], r[4]})
	}
	var labels []legacyLabel
	for _, l := range lrows {
		if l[2] != legacyUnsettled {
			if _, ok := legacyLabelOf(l[2]); !ok {
				return nil, nil, fmt.Errorf("labels.tsv: %s/%s: unknown charset %q", l[0], l[1], l[2])
			}
		}
		labels = append(labels, legacyLabel{l[0], l[1], l[2], l[3]})
	}
	return repos, labels, nil
}

// legacyAliases names bench-encoding's entry for a label's charset, so its
// vendor equivalences hold here too (GBK read as GB18030, ISO-8859-1 as
// Windows-1252, KOI8-R as KOI8-U, ISO-8859-9 as Windows-1254...).
var legacyAliases = map[string]string{
	"gbk": "GB2312", "gb18030": "GB2312", "big5": "Big5", "shift_jis": "SHIFT_JIS",
	"euc-jp": "EUC-JP", "iso-2022-jp": "iso-2022-jp", "euc-kr": "EUC-KR",
	"windows-1252": "windows-1252", "iso-8859-1": "iso-8859-1",
	"iso-8859-2": "iso-8859-2", "windows-1250": "windows-1250",
	"windows-1251": "windows-1251", "koi8-r": "KOI8-R", "ibm866": "IBM866", "iso-8859-5": "iso-8859-5",
	"iso-8859-7": "iso-8859-7", "iso-8859-9": "iso-8859-9", "windows-1254": "windows-1254",
	"windows-1255": "windows-1255", "windows-1256": "windows-1256", "windows-874": "TIS-620",
	"utf-16le": "UTF-16LE", "utf-16be": "UTF-16BE",
}

// legacyIconv names the charsets neither table has, for iconv.
var legacyIconv = map[string]string{"ibm737": "CP737"}

// legacyLabelOf maps a label's charset to the decodings that count as its
// truth: bench-encoding's entry where it has one, else the WHATWG decoder of
// that name, else iconv.
func legacyLabelOf(charset string) (corpusLabel, bool) {
	if k, ok := legacyAliases[charset]; ok {
		l, ok := corpusLabels[k]
		return l, ok
	}
	if name, ok := legacyIconv[charset]; ok {
		return corpusLabel{iconv: name}, true
	}
	if e, err := htmlindex.Get(charset); err == nil {
		return corpusLabel{decoders: []encoding.Encoding{e}}, true
	}
	return corpusLabel{}, false
}

// Families of the score table, by the label's charset.
const (
	legacyZH      = "Chinese (GBK, Big5)"
	legacyJA      = "Japanese (Shift_JIS, EUC-JP)"
	legacyKO      = "Korean (EUC-KR)"
	legacyCyr     = "Cyrillic (windows-1251, CP866, KOI8)"
	legacyWestern = "Western (windows-1252, Latin-1/9)"
	legacyCentral = "Central European (windows-1250, Latin-2)"
	legacyOther   = "Greek, Turkish, Baltic, Hebrew, Arabic, Thai"
)

func legacyFamily(charset string) string {
	switch charset {
	case "gbk", "gb18030", "big5":
		return legacyZH
	case "shift_jis", "euc-jp", "iso-2022-jp":
		return legacyJA
	case "euc-kr":
		return legacyKO
	case "windows-1251", "ibm866", "koi8-r", "koi8-u", "iso-8859-5", "x-mac-cyrillic":
		return legacyCyr
	case "windows-1252", "iso-8859-1", "iso-8859-15":
		return legacyWestern
	case "windows-1250", "iso-8859-2":
		return legacyCentral
	case "utf-16le", "utf-16be":
		return famWide
	case legacyUnsettled:
		return "unsettled (mixed encodings, raw test bytes)"
	}
	return legacyOther
}

// legacyRefusals are the reasons normalize gives a text it will not stage.
var legacyRefusals = []string{"undecodable", "mojibake", "invalid-utf8"}

// legacyDiff returns up to 60 bytes of a and of b from a little before the
// first place they differ, cut at rune boundaries; nothing when they are
// equal.
func legacyDiff(a, b string) (string, string) {
	if a == b {
		return "", ""
	}
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	start := max(0, i-20)
	for start > 0 && !utf8.RuneStart(a[start]) {
		start--
	}
	cut := func(s string) string {
		if start >= len(s) {
			return ""
		}
		s = s[start:]
		if len(s) <= 60 {
			return s
		}
		end := 60
		for end > 0 && !utf8.RuneStart(s[end]) {
			end--
		}
		return s[:end]
	}
	return cut(a), cut(b)
}

// uchardetAnswers runs uchardet on root's files, in batches, and returns
// its answer for each; nil when uchardet is not installed.
func uchardetAnswers(tb testing.TB, root string, paths []string) map[string]string {
	tb.Helper()
	bin, err := exec.LookPath("uchardet")
	if err != nil {
		return nil
	}
	out := map[string]string{}
	for len(paths) > 0 {
		batch := paths[:min(len(paths), 200)]
		paths = paths[len(batch):]
		args := make([]string, len(batch))
		for i, p := range batch {
			args[i] = filepath.Join(root, filepath.FromSlash(p))
		}
		got, err := exec.Command(bin, args...).Output()
		if err != nil {
			tb.Fatalf("uchardet: %v", err)
		}
		lines := strings.Split(strings.TrimSuffix(string(got), "\n"), "\n")
		if len(lines) != len(batch) {
			tb.Fatalf("uchardet: %d answers for %d files", len(lines), len(batch))
		}
		for i, line := range lines {
			if len(batch) > 1 { // one file: the answer alone; more: "path: answer"
				line = line[strings.LastIndex(line, ": ")+2:]
			}
			out[batch[i]] = strings.TrimSpace(line)
		}
	}
	return out
}

// uchardetIconv is the iconv name a user decodes uchardet's answer with:
// the Windows tables people mean by these names (glibc's SHIFT_JIS reads
// "\" as "¥"; WHATWG reads ISO-8859-1 as windows-1252).
var uchardetIconv = map[string]string{"SHIFT_JIS": "CP932", "EUC-KR": "CP949", "ISO-8859-1": "WINDOWS-1252"}

// peerVerdict scores uchardet's answer for data against the truths.
func peerVerdict(answer string, data []byte, truths []string) string {
	if answer == "" || answer == "unknown" {
		return "refused"
	}
	if name, ok := uchardetIconv[answer]; ok {
		answer = name
	}
	got := truthOf(corpusLabel{iconv: answer}, data)
	switch {
	case len(got) == 0:
		return "refused" // iconv could not decode it with that charset
	case slices.Contains(truths, got[0]):
		return "right"
	}
	return "garbled"
}

// scoreLegacyRepo runs the pipeline over one repository into out and scores
// its labelled files and its valid UTF-8 files.
func scoreLegacyRepo(tb testing.TB, repo legacyRepo, root, out string, labels []legacyLabel) ([]legacyResult, legacyUTF8) {
	tb.Helper()
	ctx := context.Background()
	if _, err := Run(ctx, Options{Root: root, OutDir: out, Secrets: SecretsReport, Version: "bench"}); err != nil {
		tb.Fatalf("%s: %v", repo.name, err)
	}
	m, err := snapshot.ReadManifest(out)
	if err != nil {
		tb.Fatal(err)
	}
	entries := make(map[string]*snapshot.Entry, len(m.Files))
	for i := range m.Files {
		entries[m.Files[i].Path] = &m.Files[i]
	}
	read := func(dir, p string) []byte {
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
		if err != nil {
			tb.Fatal(err)
		}
		return data
	}
	staged := func(e *snapshot.Entry) string {
		p := e.Path
		if e.DuplicateOf != "" {
			p = e.DuplicateOf
		}
		return string(read(filepath.Join(out, snapshot.TreeDir), p))
	}

	// Which step left each unstaged file out: normalize's refusals say so
	// in files.json; binary may be triage's verdict or the decoder's, and
	// explain tells them apart.
	labelled := map[string]bool{}
	var ask []string
	for _, l := range labels {
		labelled[l.path] = true
		if e := entries[l.path]; e != nil && !e.Staged && e.DuplicateOf == "" && !slices.Contains(legacyRefusals, e.Reason) {
			ask = append(ask, l.path)
		}
	}
	var u legacyUTF8
	var utf8Paths []string // files.json's order: sorted by path
	for _, e := range m.Files {
		if labelled[e.Path] || e.Size == 0 || e.LinkTarget != "" || e.Category == "document" {
			continue // a document's staged text is extracted, not decoded
		}
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(e.Path)))
		if err != nil || bytes.IndexByte(data, 0) >= 0 || !utf8.Valid(data) {
			continue // unreadable (a symlink, a special file), binary, or not UTF-8
		}
		u.files++
		utf8Paths = append(utf8Paths, e.Path)
		if e.Reason == "binary" {
			ask = append(ask, e.Path)
		}
	}
	why := map[string]Explanation{}
	if len(ask) > 0 {
		xs, err := Explain(ctx, ExplainOptions{Root: root}, ask)
		if err != nil {
			tb.Fatalf("%s: explain: %v", repo.name, err)
		}
		for _, x := range xs {
			why[x.Path] = x
		}
	}
	refusedBy := func(e *snapshot.Entry) bool {
		return slices.Contains(legacyRefusals, e.Reason) ||
			e.Reason == "binary" && strings.HasPrefix(why[e.Path].Rule, "decode")
	}

	paths := make([]string, 0, len(labels))
	for _, l := range labels {
		if l.charset != legacyUnsettled {
			paths = append(paths, l.path)
		}
	}
	peer := uchardetAnswers(tb, root, paths)
	var res []legacyResult
	for _, l := range labels {
		r := legacyResult{outcome: outcome{path: l.path, label: l.charset, family: legacyFamily(l.charset)}, repo: repo.name, split: repo.split}
		if l.charset == legacyUnsettled {
			r.verdict, r.detail = "unsettled", l.evidence
			res = append(res, r)
			continue
		}
		lab, _ := legacyLabelOf(l.charset)
		data := read(root, l.path)
		truths := truthOf(lab, data)
		if peer != nil {
			r.peer = peerVerdict(peer[l.path], data, truths)
		}
		e := entries[l.path]
		switch {
		case e == nil:
			r.verdict, r.detail = "dropped", "not in files.json"
			for _, p := range m.Pruned {
				if p.Path == "." || strings.HasPrefix(l.path, p.Path+"/") {
					r.detail = fmt.Sprintf("in pruned %s (%s)", p.Path, p.Reason)
				}
			}
		case e.Staged || e.DuplicateOf != "":
			got := staged(e)
			r.verdict, r.detail = "garbled", e.Encoding
			if slices.Contains(truths, got) {
				r.verdict = "right"
			} else if len(truths) > 0 {
				r.ours, r.truth = legacyDiff(got, truths[0])
			}
		case refusedBy(e):
			r.verdict, r.detail = "refused", e.Reason
		case why[l.path].Rule == "junk name" || e.Category == "data" && e.Reason == "backup":
			// A backup or temporary file (foo.c.orig, menu.BAK, room.c.old)
			// is left out by its name, whatever its encoding: not an encoding
			// verdict, so not scored (counted with the unsettled).
			r.verdict, r.detail = "by-name", e.Category+"/"+e.Reason
		default:
			r.verdict, r.detail = "dropped", e.Category+"/"+e.Reason
			if x, ok := why[l.path]; ok && x.Rule != "" {
				r.detail += " (" + x.Rule
				if x.Detail != "" {
					r.detail += ": " + x.Detail
				}
				r.detail += ")"
			}
			if e.Err != "" {
				r.detail += " " + e.Err
			}
		}
		res = append(res, r)
	}

	sort.Strings(utf8Paths)
	for _, p := range utf8Paths {
		e := entries[p]
		switch {
		case e.Staged || e.DuplicateOf != "":
			data := read(root, p)
			wants := truthOf(corpusLabel{}, data)
			if bytes.Contains(data, []byte("\x1b$")) {
				// 7-bit ISO-2022-JP mail is valid UTF-8 too: decoding it
				// is what a reader needs, not a change.
				wants = append(wants, truthOf(corpusLabels["iso-2022-jp"], data)...)
			}
			if got := staged(e); !slices.Contains(wants, got) {
				u.changed++
				ours, truth := legacyDiff(got, wants[0])
				u.notes = append(u.notes, fmt.Sprintf("changed %s/%s (%s%s): %q, as written %q", repo.name, p, e.Encoding, mojibakeNote(e), ours, truth))
			}
		case refusedBy(e):
			u.refused++
			u.notes = append(u.notes, fmt.Sprintf("refused %s/%s: %s", repo.name, p, e.Reason))
		}
	}
	return res, u
}

func mojibakeNote(e *snapshot.Entry) string {
	if e.Mojibake {
		return ", flagged mojibake"
	}
	return ""
}

// legacyCounts is one row of the score table.
type legacyCounts struct {
	files, right, garbled, refused, dropped, unsettled int
	peerRight, peerGarbled, peerRefused                int
	utf8                                               legacyUTF8
}

func (c *legacyCounts) add(r legacyResult) {
	c.files++
	switch r.verdict {
	case "right":
		c.right++
	case "garbled":
		c.garbled++
	case "refused":
		c.refused++
	case "dropped":
		c.dropped++
	default:
		c.unsettled++
	}
	switch r.peer {
	case "right":
		c.peerRight++
	case "garbled":
		c.peerGarbled++
	case "refused":
		c.peerRefused++
	}
}

// scored is the number of files with a charset: all but the unsettled.
func (c *legacyCounts) scored() int { return c.files - c.unsettled }

func pct(n, d int) string {
	if d == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(n)/float64(d))
}

// legacyTable renders the scores per family and per repository, development
// and held-out repositories apart, then every garbled and dropped file. The
// held-out repositories' files are named only when showHeldout: whoever
// tunes the decoder sees their counts, never the files.
func legacyTable(repos []legacyRepo, res []legacyResult, valid map[string]legacyUTF8, peer, showHeldout bool) string {
	var b strings.Builder
	peerHead, peerRule := "", ""
	if peer {
		peerHead, peerRule = " uchardet right / garbled / refused |", "---:|"
	}
	row := func(name string, c *legacyCounts, withUTF8 bool) {
		fmt.Fprintf(&b, "| %s | %d | %d (%s) | %d | %d | %d |", name, c.scored(), c.right, pct(c.right, c.scored()), c.garbled, c.refused, c.dropped)
		if withUTF8 {
			fmt.Fprintf(&b, " %d | %d of %d / %d |", c.unsettled, c.utf8.refused, c.utf8.files, c.utf8.changed)
		}
		if peer {
			fmt.Fprintf(&b, " %d / %d / %d |", c.peerRight, c.peerGarbled, c.peerRefused)
		}
		b.WriteString("\n")
	}
	for _, split := range []string{"dev", "heldout", "all"} {
		in := func(s string) bool { return split == "all" || s == split }
		fams, byRepo, total := map[string]*legacyCounts{}, map[string]*legacyCounts{}, &legacyCounts{}
		for _, r := range res {
			if !in(r.split) {
				continue
			}
			for _, c := range []*legacyCounts{total, legacyCount(fams, r.family), legacyCount(byRepo, r.repo)} {
				c.add(r)
			}
		}
		var names []string
		for _, r := range repos {
			if in(r.split) {
				names = append(names, r.name)
				u := valid[r.name]
				c := legacyCount(byRepo, r.name)
				c.utf8 = u
				total.utf8.files += u.files
				total.utf8.refused += u.refused
				total.utf8.changed += u.changed
			}
		}
		fmt.Fprintf(&b, "\n%s: %d repositories, %d labelled files (%d unsettled, not scored)\n", split, len(names), total.files, total.unsettled)
		fmt.Fprintf(&b, "\n| family | files | right | garbled | refused | dropped |%s\n|---|---:|---:|---:|---:|---:|%s\n", peerHead, peerRule)
		keys := make([]string, 0, len(fams))
		for k := range fams {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if c := fams[k]; c.scored() > 0 {
				row(k, c, false)
			}
		}
		row("**total**", total, false)
		fmt.Fprintf(&b, "\n| repository | files | right | garbled | refused | dropped | unsettled | UTF-8 refused / changed |%s\n|---|---:|---:|---:|---:|---:|---:|---:|%s\n", peerHead, peerRule)
		for _, n := range names {
			row(n, legacyCount(byRepo, n), true)
		}
		row("**total**", total, true)
	}
	b.WriteString("\n")
	dropped := map[string]int{}
	hidden := 0
	for _, r := range res {
		if r.split == "heldout" && !showHeldout && (r.verdict == "garbled" || r.verdict == "dropped") {
			hidden++
			continue
		}
		switch r.verdict {
		case "garbled":
			fmt.Fprintf(&b, "garbled %s/%s: %s read as %s: %q, truth %q\n", r.repo, r.path, r.label, r.detail, r.ours, r.truth)
		case "dropped":
			fmt.Fprintf(&b, "dropped %s/%s (%s): %s\n", r.repo, r.path, r.label, r.detail)
			reason, _, _ := strings.Cut(r.detail, " (")
			dropped[reason]++
		}
	}
	refused := map[string]int{}
	for _, r := range res {
		if r.verdict == "refused" {
			refused[r.repo+": "+r.detail+", "+r.family]++
		}
	}
	for _, m := range []struct {
		what string
		n    map[string]int
	}{{"dropped, by reason", dropped}, {"refused, by repository, reason and family", refused}} {
		keys := make([]string, 0, len(m.n))
		for k := range m.n {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		fmt.Fprintf(&b, "\n%s:\n", m.what)
		for _, k := range keys {
			fmt.Fprintf(&b, "  %4d %s\n", m.n[k], k)
		}
	}
	for _, r := range repos {
		if r.split == "heldout" && !showHeldout {
			hidden += len(valid[r.name].notes)
			continue
		}
		for _, n := range valid[r.name].notes {
			fmt.Fprintf(&b, "UTF-8 %s\n", n)
		}
	}
	if hidden > 0 {
		fmt.Fprintf(&b, "\n%d held-out files garbled, dropped, refused or changed are not named (REPOPREP_LEGACY_HELDOUT=show names them)\n", hidden)
	}
	return b.String()
}

// legacyCount returns m[k], made on first use.
func legacyCount(m map[string]*legacyCounts, k string) *legacyCounts {
	c := m[k]
	if c == nil {
		c = &legacyCounts{}
		m[k] = c
	}
	return c
}

// legacyRoot finds $REPOPREP_LEGACY, or skips.
func legacyRoot(tb testing.TB) string {
	tb.Helper()
	dir := os.Getenv("REPOPREP_LEGACY")
	if dir == "" {
		tb.Skip("legacy corpus: set REPOPREP_LEGACY to the directory holding repos.tsv, labels.tsv and repos/")
	}
	if _, err := os.Stat(filepath.Join(dir, "labels.tsv")); err != nil {
		tb.Skipf("legacy corpus: %v: skipped", err)
	}
	return dir
}

// BenchmarkLegacyCorpus is `make bench-legacy`: one pipeline run per
// repository of $REPOPREP_LEGACY, then the score table.
func BenchmarkLegacyCorpus(b *testing.B) {
	dir := legacyRoot(b)
	repos, labels, err := readLegacyCorpus(dir)
	if err != nil {
		b.Fatal(err)
	}
	byRepo := map[string][]legacyLabel{}
	for _, l := range labels {
		byRepo[l.repo] = append(byRepo[l.repo], l)
	}
	for name := range byRepo {
		if !slices.ContainsFunc(repos, func(r legacyRepo) bool { return r.name == name }) {
			b.Fatalf("labels.tsv: repository %q is not in repos.tsv", name)
		}
	}
	for _, r := range repos {
		root := filepath.Join(dir, "repos", r.name)
		if got, err := exec.Command("git", "-C", root, "rev-parse", "HEAD").Output(); err == nil && strings.TrimSpace(string(got)) != r.commit {
			b.Fatalf("repos/%s is at %s; repos.tsv (and its labels) say %s", r.name, strings.TrimSpace(string(got)), r.commit)
		}
	}
	var res []legacyResult
	valid := map[string]legacyUTF8{}
	i := 0
	for b.Loop() {
		res = res[:0]
		for _, r := range repos {
			out := filepath.Join(b.TempDir(), fmt.Sprint("out", i))
			i++
			got, u := scoreLegacyRepo(b, r, filepath.Join(dir, "repos", r.name), out, byRepo[r.name])
			res = append(res, got...)
			valid[r.name] = u
		}
	}
	total := &legacyCounts{}
	bad := 0
	for _, r := range res {
		total.add(r)
	}
	for _, u := range valid {
		bad += u.refused + u.changed
	}
	_, noPeer := exec.LookPath("uchardet")
	b.ReportMetric(100*float64(total.right)/float64(max(1, total.scored())), "%right")
	b.ReportMetric(float64(total.garbled), "garbled")
	b.ReportMetric(float64(bad), "utf8-refused-or-changed")
	b.Logf("legacy corpus %s: %d repositories, %d labelled files; right %d/%d (%s), garbled %d, refused %d, dropped %d; valid UTF-8 refused or changed %d\n%s",
		filepath.Clean(dir), len(repos), len(labels), total.right, total.scored(), pct(total.right, total.scored()),
		total.garbled, total.refused, total.dropped, bad, legacyTable(repos, res, valid, noPeer == nil, os.Getenv("REPOPREP_LEGACY_HELDOUT") == "show"))
	if total.garbled > 0 {
		b.Errorf("%d legacy files staged garbled", total.garbled)
	}
	if bad > 0 {
		b.Errorf("%d valid UTF-8 files refused or changed", bad)
	}
	if total.right*100 < total.scored()*97 {
		b.Errorf("right rate %d/%d is under 97%%", total.right, total.scored())
	}
}

// TestReadLegacyTSV checks the corpus tables' parser on the shapes a
// hand-edited file takes.
func TestReadLegacyTSV(t *testing.T) {
	cols := []string{"repo", "path", "charset", "evidence"}
	for _, tc := range []struct {
		name, in string
		rows     int
		err      string
	}{
		{"rows", "repo\tpath\tcharset\tevidence\nvim\tsrc/po/de.po\tiso-8859-1\tdeclared\n", 1, ""},
		{"comments, blank lines and CRLF", "# made by label.py\r\nrepo\tpath\tcharset\tevidence\r\n\r\nx\ta b\t?\tread: mixed\r\n", 1, ""},
		{"header only", "repo\tpath\tcharset\tevidence\n", 0, ""},
		{"wrong header", "repo\tpath\tcharset\n", 0, "header"},
		{"short row", "repo\tpath\tcharset\tevidence\nvim\tx\tgbk\n", 0, "3 fields, want 4"},
		{"tab in a field", "repo\tpath\tcharset\tevidence\nvim\tx\tgbk\tread\tmore\n", 0, "5 fields"},
		{"empty", "", 0, "no header"},
		{"line too long", "repo\tpath\tcharset\tevidence\n" + strings.Repeat("x", 2<<20) + "\n", 0, "too long"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rows, err := readLegacyTSV(strings.NewReader(tc.in), cols...)
			switch {
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Fatalf("err %v, want one saying %q", err, tc.err)
			case tc.err == "" && err != nil:
				t.Fatal(err)
			case len(rows) != tc.rows:
				t.Fatalf("%d rows, want %d", len(rows), tc.rows)
			}
		})
	}
}

// TestLegacyLabelOf checks that every charset the corpus uses has decoders,
// and that the equivalences bench-encoding accepts hold here.
func TestLegacyLabelOf(t *testing.T) {
	for _, tc := range []struct {
		charset string
		in      []byte
		want    []string // each must be among the truths
	}{
		{"gbk", []byte{0xd6, 0xd0, 0xce, 0xc4}, []string{"中文"}},
		{"big5", []byte{0xa4, 0xa4, 0xa4, 0xe5}, []string{"中文"}},
		{"shift_jis", []byte{0x93, 0xfa, 0x96, 0x7b, '\\'}, []string{"日本\\"}},
		{"euc-kr", []byte{0xb1, 0xbc, 0xb8, 0xb2}, []string{"굴림"}},
		{"iso-8859-1", []byte("caf\xe9 \x93q\x94"), []string{"café \u201cq\u201d"}},
		{"windows-1251", []byte("\xcf\xf0\xe8\xe2\xe5\xf2\r\n"), []string{"Привет\n"}},
		{"ibm866", []byte{0x8f, 0xe0, 0xa8, 0xa2, 0xa5, 0xe2, 0xc4}, []string{"Привет─"}},
		{"koi8-u", []byte{0xa6}, []string{"і"}},
		{"windows-1257", []byte{0xf0}, []string{"š"}},
		{"iso-8859-15", []byte{0xbd}, []string{"œ"}},
		{"utf-16le", []byte{0xff, 0xfe, 'h', 0, 'i', 0}, []string{"hi"}},
	} {
		t.Run(tc.charset, func(t *testing.T) {
			l, ok := legacyLabelOf(tc.charset)
			if !ok {
				t.Fatalf("no decoders for %q", tc.charset)
			}
			truths := truthOf(l, tc.in)
			for _, w := range tc.want {
				if !slices.Contains(truths, w) {
					t.Errorf("truths %q, want %q among them", truths, w)
				}
			}
		})
	}
	if _, ok := legacyLabelOf("no-such-charset"); ok {
		t.Error("an unknown charset has decoders")
	}
}

// TestLegacyDiff checks the excerpts of a garbled file: from a little before
// the first difference, at most 60 bytes, whole runes.
func TestLegacyDiff(t *testing.T) {
	for _, tc := range []struct{ a, b, wantA, wantB string }{
		{"same", "same", "", ""},
		{"abc", "abd", "abc", "abd"},
		{strings.Repeat("x", 30) + "Breitenbčucher", strings.Repeat("x", 30) + "Breitenbücher", "xxxxxxxxxxxxBreitenbčucher", "xxxxxxxxxxxxBreitenbücher"},
		{"字字字字字字字字字字字字字字字字字字字字字字字字A", "字字字字字字字字字字字字字字字字字字字字字字字字B", "字字字字字字字A", "字字字字字字字B"},
	} {
		a, b := legacyDiff(tc.a, tc.b)
		if a != tc.wantA || b != tc.wantB || len(a) > 60 || !utf8.ValidString(a) || !utf8.ValidString(b) {
			t.Errorf("legacyDiff(%q, %q) = %q, %q; want %q, %q", tc.a, tc.b, a, b, tc.wantA, tc.wantB)
		}
	}
}

// FuzzReadLegacyTSV: whatever the file holds, the parser returns rows of
// exactly the header's width, with no tab or line break inside a field, or an
// error; never a panic.
func FuzzReadLegacyTSV(f *testing.F) {
	for _, s := range []string{
		"repo\tpath\tcharset\tevidence\nvim\tsrc/po/de.po\tiso-8859-1\tdeclared\n",
		"repo\tpath\tcharset\tevidence\r\n# x\r\n\r\na\tb\tc\td",
		"repo\tpath\tcharset\tevidence\na\tb\n",
		"\t\t\t\n\t\t\t\n",
		"repo\tpath\tcharset\tevidence\na\r\tb\tc\td\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		rows, err := readLegacyTSV(strings.NewReader(in), "repo", "path", "charset", "evidence")
		if err != nil {
			return
		}
		for _, r := range rows {
			if len(r) != 4 {
				t.Fatalf("row %q has %d fields", r, len(r))
			}
			for _, field := range r {
				if strings.ContainsAny(field, "\t\n") {
					t.Fatalf("field %q holds a tab or a line break", field)
				}
			}
		}
	})
}
