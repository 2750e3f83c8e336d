package extract

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
	"unicode"
)

// TestCorpus extracts every document under $REPOPREP_DOC_CORPUS (a
// directory of real documents nobody here wrote, such as a public
// file-format sample collection) and reports, per format, how many were
// extracted or refused and why, the slowest document, and the word-level
// agreement with another reader of the format (see references): median
// word F1 over the documents both read with text, and for DOCX with
// footnotes, endnotes or comments, the recall against pandoc. It fails if
// an extracted text is not clean UTF-8.
//
// The references are written once into $REPOPREP_DOC_REFS (a directory
// kept between runs: LibreOffice takes seconds a document) as
// <tool>/<file name>.txt; without it they go to a temporary directory.
//
//	REPOPREP_DOC_CORPUS=/path/to/docs REPOPREP_DOC_REFS=/path/to/refs go test ./internal/extract -run Corpus -v
func TestCorpus(t *testing.T) {
	dir := os.Getenv("REPOPREP_DOC_CORPUS")
	if dir == "" {
		t.Skip("set REPOPREP_DOC_CORPUS to a directory of documents")
	}
	refs := os.Getenv("REPOPREP_DOC_REFS")
	if refs == "" {
		refs = t.TempDir()
	}
	var files []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if _, ok := FormatOf(p, ""); ok {
				files = append(files, p)
			}
		}
		return nil
	})
	sort.Strings(files)
	lim := DefaultLimits()
	type stats struct {
		n, ok    int
		reasons  map[string]int
		bytes    int64
		took     time.Duration
		slowest  time.Duration
		slowName string
		ref      string    // the reference tool
		f1       []float64 // per document both read with text
		notes    []float64 // DOCX with notes: recall against pandoc
	}
	byFormat := map[Format]*stats{}
	for _, p := range files {
		f, _ := FormatOf(p, "")
		st := byFormat[f]
		if st == nil {
			st = &stats{reasons: map[string]int{}}
			byFormat[f] = st
		}
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if f == PDF {
			needPDFium(t) // compile PDFium outside the timing
		}
		var out bytes.Buffer
		start := time.Now()
		_, err = Extract(context.Background(), f, bytes.NewReader(data), int64(len(data)), lim, &out)
		took := time.Since(start)
		st.n++
		st.bytes += int64(len(data))
		st.took += took
		if took > st.slowest {
			st.slowest, st.slowName = took, filepath.Base(p)
		}
		if err != nil {
			ref, ok := err.(*Refusal)
			if !ok {
				t.Fatalf("%s: %v", p, err)
			}
			st.reasons[ref.Reason]++
			if testing.Verbose() {
				t.Logf("%s: %s: %v", filepath.Base(p), ref.Reason, ref.Err)
			}
			continue
		}
		st.ok++
		checkClean(t, p, out.Bytes())
		tool, want := reference(t, refs, f, p)
		if strings.TrimSpace(want) == "" {
			continue // the reference cannot read it either, or finds no text
		}
		st.ref = tool
		prec, rec := wordAgreement(want, markerLine.ReplaceAllString(comparable(tool, f, out.String()), ""))
		st.f1 = append(st.f1, f1(prec, rec))
		if f == DOCX && tool == "pandoc" && docxHasNotes(data) {
			st.notes = append(st.notes, rec)
		}
		if testing.Verbose() && f1(prec, rec) < 0.9 {
			t.Logf("%s: F1 %.2f against %s (precision %.2f, recall %.2f)", filepath.Base(p), f1(prec, rec), tool, prec, rec)
		}
	}
	formats := make([]string, 0, len(byFormat))
	for f := range byFormat {
		formats = append(formats, string(f))
	}
	sort.Strings(formats)
	for _, f := range formats {
		st := byFormat[Format(f)]
		line := fmt.Sprintf("%-5s %3d docs, %3d extracted, refused %v; %.1f MB/s; slowest %v (%s)",
			f, st.n, st.ok, st.reasons, float64(st.bytes)/1e6/st.took.Seconds(), st.slowest.Round(time.Millisecond), st.slowName)
		if len(st.f1) > 0 {
			line += fmt.Sprintf("; against %s on %d: median word F1 %.3f", st.ref, len(st.f1), median(st.f1))
		}
		if len(st.notes) > 0 {
			line += fmt.Sprintf("; with notes (%d): median recall %.3f", len(st.notes), median(st.notes))
		}
		t.Log(line)
	}
}

// markerLine matches our section markers, which the references have no
// words for.
var markerLine = regexp.MustCompile(`(?m)^--- [a-z]+ \d+(: .*)? ---$`)

// comparable leaves out of our text the parts a reference never writes,
// so the score compares what both read: pandoc's plain text has no
// headers, footers, comments or embedded objects' captions (it keeps
// notes); a presentation
// LibreOffice prints to PDF shows neither speaker notes nor comments.
func comparable(tool string, f Format, text string) string {
	slides := tool == "lo" && sectionNoun(f) == "slide(s)"
	if tool != "pandoc" && !slides {
		return text
	}
	var b strings.Builder
	skip := false
	for line := range strings.Lines(text) {
		if m := partLabel.FindStringSubmatch(line); m != nil {
			skip = tool == "pandoc" && (m[1] == "header" || m[1] == "footer" || m[1] == "comments")
			continue
		}
		if tool == "pandoc" && strings.HasPrefix(line, "[embedded ") {
			continue
		}
		if slides && (line == "Notes:\n" || strings.HasPrefix(line, "> ") || strings.HasPrefix(line, "[comment ")) {
			continue
		}
		if !skip {
			b.WriteString(line)
		}
	}
	return b.String()
}

var partLabel = regexp.MustCompile(`^--- ([a-z ]+) ---\n?$`)

// reference is another reader's text of the document at p, written once
// under refs: poppler's pdftotext for PDF, pandoc for the formats it reads
// (DOCX, ODT, RTF, EPUB), LibreOffice for the others (spreadsheets as CSV
// of every sheet, presentations through a PDF). "" when the tool is
// missing or fails.
func reference(t *testing.T, refs string, f Format, p string) (tool, text string) {
	switch f {
	case PDF:
		tool = "pdftotext"
	case DOCX, ODT, RTF, EPUB:
		tool = "pandoc"
	case IPYNB:
		return "", ""
	default:
		tool = "lo"
	}
	cached := filepath.Join(refs, tool, filepath.Base(p)+".txt")
	if b, err := os.ReadFile(cached); err == nil {
		return tool, string(b)
	}
	os.MkdirAll(filepath.Dir(cached), 0o755)
	// A reference tool that hangs on a document (pandoc did) is given up.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var cmd *exec.Cmd
	switch tool {
	case "pdftotext":
		cmd = exec.CommandContext(ctx, "pdftotext", "-enc", "UTF-8", p, cached)
	case "pandoc":
		cmd = exec.CommandContext(ctx, "pandoc", "-t", "plain", "--wrap=none", p, "-o", cached)
	default:
		if err := libreOffice(ctx, t, f, p, cached); err != nil {
			t.Logf("%s: LibreOffice: %v", filepath.Base(p), err)
			os.WriteFile(cached, nil, 0o644) // remembered as unreadable
			return tool, ""
		}
	}
	if cmd != nil {
		if _, err := exec.LookPath(cmd.Path); err != nil {
			return tool, ""
		}
		if err := cmd.Run(); err != nil {
			os.WriteFile(cached, nil, 0o644) // remembered as unreadable
		}
	}
	b, _ := os.ReadFile(cached)
	return tool, string(b)
}

// libreOffice converts p with a headless LibreOffice into text at dst.
func libreOffice(ctx context.Context, t *testing.T, f Format, p, dst string) error {
	if _, err := exec.LookPath("soffice"); err != nil {
		return err
	}
	dir := t.TempDir()
	in := filepath.Join(dir, "in"+filepath.Ext(p))
	data, err := os.ReadFile(p)
	if err != nil {
		return err
	}
	os.WriteFile(in, data, 0o644)
	convert := func(filter string) error {
		cmd := exec.CommandContext(ctx, "soffice", "--headless", "-env:UserInstallation=file://"+filepath.Join(dir, "profile"), "--convert-to", filter, "--outdir", dir, in)
		return cmd.Run()
	}
	var text []byte
	switch sectionNoun(f) {
	case "sheet(s)":
		// every sheet (-1), as UTF-8 CSV
		if err := convert("csv:Text - txt - csv (StarCalc):44,34,76,1,,0,false,true,false,false,false,-1"); err != nil {
			return err
		}
		sheets, _ := filepath.Glob(filepath.Join(dir, "in*.csv"))
		sort.Strings(sheets)
		for _, s := range sheets {
			b, _ := os.ReadFile(s)
			text = append(text, b...)
		}
	case "slide(s)":
		if err := convert("pdf"); err != nil {
			return err
		}
		if text, err = exec.CommandContext(ctx, "pdftotext", "-enc", "UTF-8", filepath.Join(dir, "in.pdf"), "-").Output(); err != nil {
			return err
		}
	default:
		if err := convert("txt:Text (encoded):UTF8"); err != nil {
			return err
		}
		text, _ = os.ReadFile(filepath.Join(dir, "in.txt"))
	}
	return os.WriteFile(dst, text, 0o644)
}

// docxHasNotes reports a DOCX with footnotes, endnotes or comments beyond
// the separators every footnotes part holds.
func docxHasNotes(data []byte) bool {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return false
	}
	for _, f := range zr.File {
		switch f.Name {
		case "word/footnotes.xml", "word/endnotes.xml", "word/comments.xml":
			rc, err := f.Open()
			if err != nil {
				continue
			}
			b, _ := io.ReadAll(io.LimitReader(rc, 16<<20))
			rc.Close()
			if bytes.Count(b, []byte("<w:t")) > 0 {
				return true
			}
		}
	}
	return false
}

func f1(precision, recall float64) float64 {
	if precision+recall == 0 {
		return 0
	}
	return 2 * precision * recall / (precision + recall)
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// checkClean asserts what every extracted text must be: valid UTF-8, no
// control characters but tab and newline, a final newline.
func checkClean(t *testing.T, name string, text []byte) {
	t.Helper()
	if len(text) == 0 {
		return
	}
	s := string(text)
	if !strings.HasSuffix(s, "\n") {
		t.Errorf("%s: text does not end with a newline", name)
	}
	for i, r := range s {
		if r == unicode.ReplacementChar && !bytes.HasPrefix(text[i:], []byte("\uFFFD")) {
			t.Errorf("%s: invalid UTF-8 at byte %d", name, i)
			return
		}
		if unicode.IsControl(r) && r != '\n' && r != '\t' {
			t.Errorf("%s: control character %U at byte %d", name, r, i)
			return
		}
	}
}

// wordAgreement compares the bags of words (letters and digits, lower
// case) of a reference text and ours: precision is the share of our words
// the reference has, recall the share of its words we have.
func wordAgreement(ref, got string) (precision, recall float64) {
	rw, gw := wordBag(ref), wordBag(got)
	var inter, nr, ng int
	for w, c := range rw {
		nr += c
		inter += min(c, gw[w])
	}
	for _, c := range gw {
		ng += c
	}
	if nr == 0 || ng == 0 {
		return 0, 0
	}
	return float64(inter) / float64(ng), float64(inter) / float64(nr)
}

func wordBag(s string) map[string]int {
	m := map[string]int{}
	for _, w := range strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) }) {
		m[strings.ToLower(w)]++
	}
	return m
}
