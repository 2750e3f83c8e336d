package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
)

// report prints the figures as plain text; the first write error sticks.
type report struct {
	w               io.Writer
	err             error
	l               *labels
	tools           []*toolScore // repoprep first
	scan            *scanState   // nil without -files
	text            *texts
	droppedRepoprep int
	examples        int
	topMissed       int
}

func (r *report) printf(format string, args ...any) {
	if r.err == nil {
		_, r.err = fmt.Fprintf(r.w, format, args...)
	}
}

func (r *report) print() {
	r.summary()
	r.overall()
	r.categories()
	r.falsePositives()
	r.missed()
}

func (r *report) summary() {
	l := r.l
	r.printf("CredData, line level\n\n")
	r.printf("meta: %s rows in %d repositories\n", num(l.totalRows), l.totalRepos)
	r.printf("kept: %s rows in %s files of %d repositories; %s True rows but UUID (%s multi-line)\n",
		num(l.rows), num(l.files), len(l.repos), num(l.trueRows), num(l.multiT))
	if l.leftRows > 0 {
		r.printf("left out (file absent from -data): %s rows, %s True, in %s files of %d repositories\n",
			num(l.leftRows), num(l.leftTrue), num(len(l.leftFiles)), len(l.leftByRepo))
		repos := make([]string, 0, len(l.leftByRepo))
		for id := range l.leftByRepo {
			repos = append(repos, id)
		}
		slices.Sort(repos)
		for _, id := range repos {
			r.printf("  %s  %s rows, %s True\n", id, num(l.leftByRepo[id]), num(l.leftTrueByRepo[id]))
		}
	}
	r.printf("UUID rows left aside: %s; their %s lines count neither way\n", num(l.asideRows), num(len(l.isAside)))
	multi := 0
	for _, u := range l.units {
		if u.isMultiline {
			multi++
		}
	}
	r.printf("positives: %s (%s True lines, %s multi-line labels); lines inside True labels: %s\n",
		num(len(l.units)), num(len(l.units)-multi), num(multi), num(len(l.isTrue)))
	if r.droppedRepoprep > 0 {
		r.printf("repoprep findings not counted (pii, or in a file name): %s\n", num(r.droppedRepoprep))
	}
	r.printf("\n")
}

func (r *report) overall() {
	tw := tabwriter.NewWriter(r.w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "tool\trecall\tprecision\tsingle-line recall\tmulti-line recall\tfalse lines on F/X labels\ton unlabelled lines\tUUID lines flagged\tfindings\n")
	for _, s := range r.tools {
		found, all := s.recall()
		t, flagged := s.precision()
		var sf, sa, mf, ma int
		for i, u := range r.l.units {
			if u.isMultiline {
				ma++
				if s.found[i] {
					mf++
				}
			} else {
				sa++
				if s.found[i] {
					sf++
				}
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", s.name, ratio(found, all), ratio(t, flagged),
			ratio(sf, sa), ratio(mf, ma), num(s.onFalse), num(len(s.isFalse)-s.onFalse), num(s.aside), num(s.findings))
	}
	r.flush(tw)
	// The same without every positive whose Category names UUID at all
	// (Token:UUID and the like), for readers who leave all of them aside.
	r.printf("\nrecall without positives whose Category names UUID:")
	for _, s := range r.tools {
		var f, a int
		for i, u := range r.l.units {
			if slices.ContainsFunc(u.categories, func(c string) bool { return strings.Contains(c, "UUID") }) {
				continue
			}
			a++
			if s.found[i] {
				f++
			}
		}
		r.printf("  %s %s", s.name, ratio(f, a))
	}
	r.printf("\n")
	if len(r.tools) > 1 {
		onlyOther := 0
		for i := range r.l.units {
			if !r.tools[0].found[i] && r.tools[1].found[i] {
				onlyOther++
			}
		}
		r.printf("positives gitleaks found and repoprep missed: %s\n", num(onlyOther))
	}
	r.printf("\n")
	if len(r.tools) > 1 {
		r.onlyOther()
	}
}

// onlyOther lists, by category, the positives the second tool found and
// repoprep missed, with the second tool's rules: what to learn from it.
func (r *report) onlyOther() {
	me, other := r.tools[0], r.tools[1]
	byCat := map[string][]int{}
	for i, u := range r.l.units {
		if !me.found[i] && other.found[i] {
			for _, c := range u.categories {
				byCat[c] = append(byCat[c], i)
			}
		}
	}
	if len(byCat) == 0 {
		return
	}
	cats := make([]string, 0, len(byCat))
	for c := range byCat {
		cats = append(cats, c)
	}
	slices.SortFunc(cats, func(a, b string) int {
		if d := len(byCat[b]) - len(byCat[a]); d != 0 {
			return d
		}
		return strings.Compare(a, b)
	})
	r.printf("Found by %s, missed by %s, per category (%d at most; 2 examples each, with %s's rules)\n\n",
		other.name, me.name, maxValues, other.name)
	for _, c := range cats[:min(maxValues, len(cats))] {
		r.printf("%s: %s\n", c, num(len(byCat[c])))
		var ex []finding
		for _, i := range byCat[c] {
			u := r.l.units[i]
			ex = append(ex, finding{path: u.path, line: u.start, rule: strings.Join(other.rulesOn(u), ",")})
		}
		for _, f := range spread(ex, 2) {
			r.printf("  %s:%d  [%s]  %s\n", f.path, f.line, f.rule, r.text.quote(f.path, f.line, 0))
		}
	}
	r.printf("\n")
}

func (r *report) categories() {
	r.printf("Recall per CredData Category (a positive with rows of several categories counts under each)\n\n")
	tw := tabwriter.NewWriter(r.w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "category\tpositives")
	for _, s := range r.tools {
		fmt.Fprintf(tw, "\t%s", s.name)
	}
	fmt.Fprintf(tw, "\n")
	for _, cc := range byCategory(r.l, r.tools) {
		fmt.Fprintf(tw, "%s\t%s", cc.category, num(len(cc.units)))
		for t := range r.tools {
			fmt.Fprintf(tw, "\t%s", ratio(cc.found[t], len(cc.units)))
		}
		fmt.Fprintf(tw, "\n")
	}
	r.flush(tw)
	r.printf("\n")
}

func (r *report) falsePositives() {
	for i, s := range r.tools {
		rules := make([]string, 0, len(s.byRule))
		for rule := range s.byRule {
			rules = append(rules, rule)
		}
		slices.SortFunc(rules, func(a, b string) int {
			if d := len(s.byRule[b]) - len(s.byRule[a]); d != 0 {
				return d
			}
			return strings.Compare(a, b)
		})
		r.printf("%s false positives per rule: %s lines (a line flagged by two rules counts under each)\n\n", s.name, num(len(s.isFalse)))
		for _, rule := range rules {
			fs := s.byRule[rule]
			onF := 0
			for _, f := range fs {
				if r.l.isFalse[lineKey{f.path, f.line}] {
					onF++
				}
			}
			tl := s.trueRule[rule]
			r.printf("%s: %s lines (%s on F/X labels); %s true lines, precision %s\n", rule, num(len(fs)), num(onF), num(tl), ratio(tl, tl+len(fs)))
			if i > 0 {
				continue // examples for repoprep only
			}
			for _, f := range spread(fs, r.examples) {
				r.printf("  %s:%d  %s\n", f.path, f.line, r.text.quote(f.path, f.line, f.column))
			}
		}
		r.printf("\n")
		r.copies(s)
	}
}

// maxValues is how many of the values behind most false lines are listed.
const maxValues = 15

// copies lists the secret values behind the most false lines: repoprep
// masks every copy of a value it found once, so one word taken for a
// password shows up on thousands of lines.
func (r *report) copies(s *toolScore) {
	if len(s.byValue) == 0 {
		return
	}
	values := make([]string, 0, len(s.byValue))
	for v := range s.byValue {
		values = append(values, v)
	}
	slices.SortFunc(values, func(a, b string) int {
		if d := len(s.byValue[b]) - len(s.byValue[a]); d != 0 {
			return d
		}
		return strings.Compare(a, b)
	})
	inTop := 0
	for _, v := range values[:min(maxValues, len(values))] {
		inTop += len(s.byValue[v])
	}
	r.printf("%s false lines by value: %s values; the %d most copied make %s of the %s lines\n\n",
		s.name, num(len(values)), min(maxValues, len(values)), num(inTop), num(len(s.isFalse)))
	for _, v := range values[:min(maxValues, len(values))] {
		fs := s.byValue[v]
		repos := map[string]bool{}
		for _, f := range fs {
			repo, _, _ := strings.Cut(f.path, "/")
			repos[repo] = true
		}
		ex := fs[0]
		r.printf("  %s lines in %d repositories: %s %s, e.g. %s:%d  %s\n", num(len(fs)), len(repos), ex.rule, ex.masked,
			ex.path, ex.line, r.text.quote(ex.path, ex.line, ex.column))
	}
	r.printf("\n")
}

func (r *report) missed() {
	s := r.tools[0]
	cats := byCategory(r.l, r.tools)
	slices.SortStableFunc(cats, func(a, b *catCount) int {
		return (len(b.units) - b.found[0]) - (len(a.units) - a.found[0])
	})
	if r.scan != nil {
		why := map[string]int{}
		for i, u := range r.l.units {
			if !s.found[i] {
				w := r.scan.why(u.path)
				if w == "" {
					w = "scanned, no finding on the line"
				}
				why[w]++
			}
		}
		keys := make([]string, 0, len(why))
		for k := range why {
			keys = append(keys, k)
		}
		slices.SortFunc(keys, func(a, b string) int { return why[b] - why[a] })
		r.printf("repoprep's missed positives by what became of their file\n\n")
		for _, k := range keys {
			r.printf("  %s  %s\n", num(why[k]), k)
		}
		r.printf("\n")
	}
	r.printf("repoprep's most missed categories (%d at most; 3 examples each)\n\n", r.topMissed)
	for n, cc := range cats {
		missed := len(cc.units) - cc.found[0]
		if n >= r.topMissed || missed == 0 {
			break
		}
		r.printf("%s: missed %s of %s\n", cc.category, num(missed), num(len(cc.units)))
		var ex []finding
		for _, i := range cc.units {
			if !s.found[i] {
				u := r.l.units[i]
				ex = append(ex, finding{path: u.path, line: u.start})
			}
		}
		for _, f := range spread(ex, 3) {
			note := ""
			if w := r.scan.why(f.path); w != "" {
				note = "  [" + w + "]"
			}
			r.printf("  %s:%d  %s%s\n", f.path, f.line, r.text.quote(f.path, f.line, 0), note)
		}
	}
}

func (r *report) flush(tw *tabwriter.Writer) {
	if err := tw.Flush(); err != nil && r.err == nil {
		r.err = err
	}
}

// spread picks n of fs from different repositories first, so ten examples
// are not ten lines of one fixture.
func spread(fs []finding, n int) []finding {
	var out []finding
	seen := map[string]bool{}
	for pass := 0; pass < 2 && len(out) < n; pass++ {
		for _, f := range fs {
			if len(out) == n {
				break
			}
			repo, _, _ := strings.Cut(f.path, "/")
			if pass == 0 && seen[repo] || pass == 1 && slices.Contains(out, f) {
				continue
			}
			seen[repo] = true
			out = append(out, f)
		}
	}
	return out
}

// texts reads the labelled files' lines for examples, each file once.
type texts struct {
	dir   string
	files map[string][]string
}

func newTexts(dir string) *texts { return &texts{dir: dir, files: map[string][]string{}} }

// maxQuoteRunes keeps an example line short enough to read in a table.
const maxQuoteRunes = 100

// quote is line n of p, trimmed and cut to maxQuoteRunes around column
// col (1-based code points; 0 means from the start).
func (t *texts) quote(p string, n, col int) string {
	if t.dir == "" {
		return ""
	}
	lines, ok := t.files[p]
	if !ok {
		lines = readLines(filepath.Join(t.dir, filepath.FromSlash(p)))
		t.files[p] = lines
	}
	if n < 1 || n > len(lines) {
		return "(no such line)"
	}
	s := strings.ToValidUTF8(lines[n-1], "?")
	runes := []rune(s)
	start := 0
	if col > 0 && len(runes) > maxQuoteRunes {
		start = max(0, min(col-1-maxQuoteRunes/3, len(runes)-maxQuoteRunes))
	}
	end := min(len(runes), start+maxQuoteRunes)
	out := strings.TrimSpace(string(runes[start:end]))
	if start > 0 {
		out = "…" + out
	}
	if end < len(runes) {
		out += "…"
	}
	q := strconv.Quote(out) // tabs and control characters escaped
	return q[1 : len(q)-1]
}

// readLines splits a file into lines as CredData counts them: after
// turning CRLF and lone CR into LF.
func readLines(name string) []string {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil
	}
	s := strings.ReplaceAll(string(data), "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	return strings.Split(s, "\n")
}

// num writes n with thousands separators.
func num(n int) string {
	s := strconv.Itoa(n)
	if n < 0 {
		return "-" + num(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// ratio is "61.2% (6,012 / 9,876)", or "-" when there is nothing to divide.
func ratio(a, b int) string {
	if b == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f%% (%s / %s)", 100*float64(a)/float64(b), num(a), num(b))
}
