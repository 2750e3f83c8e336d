package extract

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"
	"unicode"
)

// TestCorpus extracts every document under $REPOPREP_DOC_CORPUS (a
// directory of real documents nobody here wrote, such as a public
// file-format sample collection) and reports, per format, how many were
// extracted or refused and why, the slowest document against the time
// limit, and for PDFs the word-level agreement with pdftotext (poppler).
// It fails if any document takes longer than the time limit plus a
// second's grace, or if an extracted text is not clean UTF-8.
//
//	REPOPREP_DOC_CORPUS=/path/to/docs go test ./internal/extract -run Corpus -v
func TestCorpus(t *testing.T) {
	dir := os.Getenv("REPOPREP_DOC_CORPUS")
	if dir == "" {
		t.Skip("set REPOPREP_DOC_CORPUS to a directory of documents")
	}
	_, pdftotextErr := exec.LookPath("pdftotext")
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
		n, ok     int
		reasons   map[string]int
		bytes     int64
		took      time.Duration
		slowest   time.Duration
		slowName  string
		compared  int
		precision float64
		recall    float64
		refTook   time.Duration
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
		if took > lim.Timeout+time.Second {
			t.Errorf("%s: %v, over the %v limit", p, took, lim.Timeout)
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
		if f == PDF && pdftotextErr == nil {
			start := time.Now()
			want, err := exec.Command("pdftotext", "-enc", "UTF-8", p, "-").Output()
			st.refTook += time.Since(start)
			if err != nil || len(bytes.TrimSpace(want)) == 0 {
				continue // poppler cannot read it either, or it has no text layer
			}
			prec, rec := wordAgreement(string(want), markerLine.ReplaceAllString(out.String(), ""))
			st.compared++
			st.precision += prec
			st.recall += rec
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
		if st.compared > 0 {
			line += fmt.Sprintf("; vs pdftotext on %d: word precision %.3f, recall %.3f; pdftotext took %.2f× our time",
				st.compared, st.precision/float64(st.compared), st.recall/float64(st.compared), st.refTook.Seconds()/st.took.Seconds())
		}
		t.Log(line)
	}
}

// markerLine matches our section markers, which pdftotext has no words for.
var markerLine = regexp.MustCompile(`(?m)^--- page \d+ ---$`)

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
