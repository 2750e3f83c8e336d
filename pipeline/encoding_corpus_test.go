package pipeline

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/korean"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/traditionalchinese"
	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/encoding/unicode/utf32"

	"github.com/repoprep/repoprep/snapshot"
)

// The encoding corpus benchmark (make bench-encoding) runs the whole
// pipeline over a labeled corpus that nobody here wrote, chardet's test
// files ($REPOPREP_CORPORA/chardet-tests, never committed), and scores
// every file against the truth: its bytes decoded with the charset its
// folder names. A file is exact when the staged text is that truth (after
// CRLF/CR → LF and BOM removal) or the truth in another vendor's table of
// the same charset (ISO-8859-1 as Windows-1252, TIS-620 as Windows-874,
// GB2312 as GB18030); garbled when it is staged any other way; refused
// when normalize did not stage it. A garbled file fails the benchmark.

// corpusLabel is a folder label: the decoders whose output counts as the
// truth (the label's own table first), or the iconv name when x/text has
// no decoder for it (Johab, EUC-TW, ISO-2022-KR: refusing is right, and a
// staged file must match iconv), and the family the issue reports it under.
type corpusLabel struct {
	decoders []encoding.Encoding
	iconv    string
	family   string
}

const (
	famUTF8    = "UTF-8 and ASCII"
	famWide    = "UTF-16/32 (BOM and BOM-less)"
	famCJK     = "CJK (GB, Big5, Japanese, Korean)"
	famWestern = "Western Latin (ISO-8859-1, Windows-1252, MacRoman)"
	famCentral = "Central European and Turkish (ISO-8859-2/9, Windows-1250/1254)"
	famRTL     = "Hebrew and Arabic (Windows-1255/1256, ISO-8859-6)"
	famCyrDOS  = "Cyrillic DOS/Mac (IBM855, IBM866, MacCyrillic)"
	famCyr     = "Cyrillic (Windows-1251, KOI8-R, ISO-8859-5)"
	famThai    = "Thai (TIS-620)"
	famGreek   = "Greek (ISO-8859-7)"
	famNoDec   = "no x/text decoder (Johab, EUC-TW, ISO-2022-KR)"
)

var corpusLabels = map[string]corpusLabel{
	"ascii":     {nil, "", famUTF8},
	"utf-8":     {nil, "", famUTF8},
	"utf-8-sig": {nil, "", famUTF8},
	"UTF-16":    {[]encoding.Encoding{unicode.UTF16(unicode.BigEndian, unicode.ExpectBOM)}, "", famWide},
	"UTF-16BE":  {[]encoding.Encoding{unicode.UTF16(unicode.BigEndian, unicode.IgnoreBOM)}, "", famWide},
	"UTF-16LE":  {[]encoding.Encoding{unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM)}, "", famWide},
	"UTF-32":    {[]encoding.Encoding{utf32.UTF32(utf32.BigEndian, utf32.ExpectBOM)}, "", famWide},
	"UTF-32BE":  {[]encoding.Encoding{utf32.UTF32(utf32.BigEndian, utf32.IgnoreBOM)}, "", famWide},
	"UTF-32LE":  {[]encoding.Encoding{utf32.UTF32(utf32.LittleEndian, utf32.IgnoreBOM)}, "", famWide},

	"Big5":        {[]encoding.Encoding{traditionalchinese.Big5}, "", famCJK},
	"CP932":       {[]encoding.Encoding{japanese.ShiftJIS}, "", famCJK},
	"SHIFT_JIS":   {[]encoding.Encoding{japanese.ShiftJIS}, "", famCJK},
	"EUC-JP":      {[]encoding.Encoding{japanese.EUCJP}, "", famCJK},
	"iso-2022-jp": {[]encoding.Encoding{japanese.ISO2022JP}, "", famCJK},
	"CP949":       {[]encoding.Encoding{korean.EUCKR}, "", famCJK},
	"EUC-KR":      {[]encoding.Encoding{korean.EUCKR}, "", famCJK},
	"GB2312":      {[]encoding.Encoding{simplifiedchinese.GB18030}, "", famCJK},
	"EUC-TW":      {nil, "EUC-TW", famNoDec},
	"Johab":       {nil, "JOHAB", famNoDec},
	"iso-2022-kr": {nil, "ISO-2022-KR", famNoDec},

	"iso-8859-1":   {[]encoding.Encoding{charmap.ISO8859_1, charmap.Windows1252}, "", famWestern},
	"windows-1252": {[]encoding.Encoding{charmap.Windows1252}, "", famWestern},
	"MacRoman":     {[]encoding.Encoding{charmap.Macintosh}, "", famWestern},
	"iso-8859-2":   {[]encoding.Encoding{charmap.ISO8859_2}, "", famCentral},
	"windows-1250": {[]encoding.Encoding{charmap.Windows1250}, "", famCentral},
	"iso-8859-9":   {[]encoding.Encoding{charmap.ISO8859_9, charmap.Windows1254}, "", famCentral},
	"windows-1254": {[]encoding.Encoding{charmap.Windows1254}, "", famCentral},
	"windows-1255": {[]encoding.Encoding{charmap.Windows1255}, "", famRTL},
	"windows-1256": {[]encoding.Encoding{charmap.Windows1256}, "", famRTL},
	"iso-8859-6":   {[]encoding.Encoding{charmap.ISO8859_6}, "", famRTL},
	"IBM855":       {[]encoding.Encoding{charmap.CodePage855}, "", famCyrDOS},
	"IBM866":       {[]encoding.Encoding{charmap.CodePage866}, "", famCyrDOS},
	"MacCyrillic":  {[]encoding.Encoding{charmap.MacintoshCyrillic}, "", famCyrDOS},
	"windows-1251": {[]encoding.Encoding{charmap.Windows1251}, "", famCyr},
	"KOI8-R":       {[]encoding.Encoding{charmap.KOI8R, charmap.KOI8U}, "", famCyr},
	"iso-8859-5":   {[]encoding.Encoding{charmap.ISO8859_5}, "", famCyr},
	"TIS-620":      {[]encoding.Encoding{charmap.Windows874}, "", famThai},
	"iso-8859-7":   {[]encoding.Encoding{charmap.ISO8859_7, charmap.Windows1253}, "", famGreek},
}

// labelOf maps a folder name to its label: "windows-1250-hungarian" and
// "iso-8859-2-polish" drop the language.
func labelOf(dir string) (string, bool) {
	for name := dir; ; {
		if _, ok := corpusLabels[name]; ok {
			return name, true
		}
		i := strings.LastIndexByte(name, '-')
		if i < 0 {
			return "", false
		}
		name = name[:i]
	}
}

// corpusRoot finds $REPOPREP_CORPORA/NAME, or skips.
func corpusRoot(tb testing.TB, name string) string {
	tb.Helper()
	base := os.Getenv("REPOPREP_CORPORA")
	if base == "" {
		tb.Skipf("corpus %s: set REPOPREP_CORPORA to the directory holding it", name)
	}
	dir := filepath.Join(base, name)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		tb.Skipf("corpus %s not found (set REPOPREP_CORPORA): skipped", dir)
	}
	return dir
}

// outcome is one file's score.
type outcome struct {
	path, label, family string
	verdict             string // "exact", "garbled", "refused", "skipped" (not text by triage)
	detail              string
}

// truthOf returns the acceptable decodings of data under label l, each
// normalized as the stage does (BOM dropped, CRLF and CR → LF).
func truthOf(l corpusLabel, data []byte) []string {
	var out []string
	add := func(s string) {
		s = strings.TrimPrefix(s, "\ufeff")
		s = strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
		out = append(out, s)
	}
	switch {
	case l.decoders == nil && l.iconv == "":
		add(string(data))
	case l.iconv != "":
		cmd := exec.Command("iconv", "-f", l.iconv, "-t", "UTF-8")
		cmd.Stdin = bytes.NewReader(data)
		if got, err := cmd.Output(); err == nil {
			add(string(got))
		}
	}
	for _, d := range l.decoders {
		if got, err := d.NewDecoder().Bytes(data); err == nil {
			add(string(got))
		}
	}
	return out
}

// scoreCorpus runs the pipeline once over root into out and scores each file.
func scoreCorpus(tb testing.TB, root, out string) []outcome {
	tb.Helper()
	if _, err := Run(context.Background(), Options{Root: root, OutDir: out, Secrets: SecretsReport, Version: "bench"}); err != nil {
		tb.Fatal(err)
	}
	m, err := snapshot.ReadManifest(out)
	if err != nil {
		tb.Fatal(err)
	}
	var res []outcome
	for _, e := range m.Files {
		dir, _, ok := strings.Cut(e.Path, "/")
		if !ok {
			continue // README.txt
		}
		label, ok := labelOf(dir)
		if !ok {
			tb.Errorf("%s: unknown label %q", e.Path, dir)
			continue
		}
		l := corpusLabels[label]
		o := outcome{path: e.Path, label: label, family: l.family}
		staged := e.Path
		if e.DuplicateOf != "" {
			staged = e.DuplicateOf
		}
		switch {
		case e.Staged || e.DuplicateOf != "":
			got, err := os.ReadFile(filepath.Join(out, "tree", filepath.FromSlash(staged)))
			if err != nil {
				tb.Fatal(err)
			}
			data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(e.Path)))
			if err != nil {
				tb.Fatal(err)
			}
			o.verdict, o.detail = "garbled", e.Encoding
			if slices.Contains(truthOf(l, data), string(got)) {
				o.verdict = "exact"
			}
		case e.Category != "source" && e.Category != "text" && e.Reason != "binary":
			o.verdict, o.detail = "skipped", e.Category+"/"+e.Reason
		default:
			o.verdict, o.detail = "refused", e.Reason
		}
		res = append(res, o)
	}
	return res
}

// corpusTable renders the per-family and per-label counts.
func corpusTable(res []outcome) string {
	type counts struct{ files, exact, garbled, refused, skipped int }
	byFam, byLabel := map[string]*counts{}, map[string]*counts{}
	for _, o := range res {
		for m, k := range map[*map[string]*counts]string{&byFam: o.family, &byLabel: o.label} {
			c := (*m)[k]
			if c == nil {
				c = &counts{}
				(*m)[k] = c
			}
			c.files++
			switch o.verdict {
			case "exact":
				c.exact++
			case "garbled":
				c.garbled++
			case "refused":
				c.refused++
			default:
				c.skipped++
			}
		}
	}
	var b strings.Builder
	write := func(title string, m map[string]*counts) {
		fmt.Fprintf(&b, "\n| %s | files | exact | garbled | refused | not text |\n|---|---:|---:|---:|---:|---:|\n", title)
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			c := m[k]
			fmt.Fprintf(&b, "| %s | %d | %d | %d | %d | %d |\n", k, c.files, c.exact, c.garbled, c.refused, c.skipped)
		}
	}
	write("family", byFam)
	write("label", byLabel)
	for _, o := range res {
		if o.verdict != "exact" {
			fmt.Fprintf(&b, "%s %s (%s)\n", o.verdict, o.path, o.detail)
		}
	}
	return b.String()
}

// legacyRate is the share of files of legacy (not UTF-*) labels staged exactly.
func legacyRate(res []outcome) (exact, total int) {
	for _, o := range res {
		if o.family == famUTF8 || o.family == famWide {
			continue
		}
		total++
		if o.verdict == "exact" {
			exact++
		}
	}
	return exact, total
}

// BenchmarkEncodingCorpus is `make bench-encoding`: one pipeline run over
// chardet's test files per iteration, then the score table. It fails on any
// garbled file and on a legacy exact rate under 95%.
func BenchmarkEncodingCorpus(b *testing.B) {
	root := corpusRoot(b, "chardet-tests")
	var res []outcome
	i := 0
	for b.Loop() {
		out := filepath.Join(b.TempDir(), fmt.Sprint("out", i))
		i++
		res = scoreCorpus(b, root, out)
	}
	exact, total := legacyRate(res)
	garbled := 0
	for _, o := range res {
		if o.verdict == "garbled" {
			garbled++
		}
	}
	b.ReportMetric(100*float64(exact)/float64(total), "%legacy-exact")
	b.ReportMetric(float64(garbled), "garbled")
	b.Logf("%d files; legacy charsets %d/%d exact (%.1f%%); %d garbled\n%s",
		len(res), exact, total, 100*float64(exact)/float64(total), garbled, corpusTable(res))
	if garbled > 0 {
		b.Errorf("%d files staged garbled", garbled)
	}
	if exact*100 < total*95 {
		b.Errorf("legacy exact rate %d/%d is under 95%%", exact, total)
	}
}
