package serve

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/zeebo/blake3"

	"github.com/repoprep/repoprep/internal/lineindex"
	"github.com/repoprep/repoprep/internal/testkit"
	"github.com/repoprep/repoprep/internal/tokens"
	"github.com/repoprep/repoprep/internal/trigram"
	"github.com/repoprep/repoprep/snapshot"
)

// writeTestTokens writes linetokens.index for s as pipeline.writeLineTokens
// does: every staged text's line counts, in path order.
func writeTestTokens(t testing.TB, out string, s snap) {
	t.Helper()
	writeTokensWith(t, out, s, nil)
}

// writeTokensWith is writeTestTokens with each file's counts passed
// through forge before they are written with their sum.
func writeTokensWith(t testing.TB, out string, s snap, forge func(data []byte) []byte) {
	t.Helper()
	staged := slices.Sorted(maps.Keys(s.files))
	d := trigram.NewDigest()
	for _, p := range staged {
		d.Add(p, blake3.Sum256([]byte(s.files[p])))
	}
	var buf bytes.Buffer
	tw := lineindex.NewTokenWriter(&buf, d.Sum())
	for _, p := range staged {
		var lc lineindex.LineCounter
		lc.Write([]byte(s.files[p]))
		data, lines, size := lc.Finish()
		if forge != nil {
			data = forge(data)
		}
		if err := tw.Add(p, blake3.Sum256([]byte(s.files[p])), size, lines, data); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, snapshot.LineTokens), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// trickyLines are lines whose pieces could run into the number part or
// the next line if pre-tokenization were not local: what starts with
// punctuation, digits, spaces or a slash, ends in spaces or a carriage
// return, or is blank.
var trickyLines = []string{
	"", " ", "  ", "\t", "\t\t}", "|", "| x", "||", "|=", "/", "// c", "/*", "123", "1 | 2", "007", "a", "A",
	"'s", "'ll go", "x  ", "x\r", "\r", "\r\r", "end.", "){", "}", "\u00a0nbsp", "中文文本，用于测试。", "  10 | fake",
	"[file: x]", "\ufeffbom", "ǅ title", "émigré", "	\tdeep", "x\u2028y", strings.Repeat("ab ", 50), "\x01\x02", "😀 emoji",
}

// TestPrefixTokens: prefixTokens gives tokens.Count of every number
// part appendNumbered writes.
func TestPrefixTokens(t *testing.T) {
	nums := []int{1, 9, 10, 99, 100, 999, 1000, 1001, 1005, 1050, 9999, 10000, 10005, 100000, 123456, 1000000, 1000005, 12345678901}
	for n := 1; n <= 3000; n++ {
		nums = append(nums, n)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		nums = append(nums, r.IntN(1e9))
	}
	for _, width := range []int{4, 5, 6, 7, 8, 12} {
		for _, n := range nums {
			line := appendNumbered(nil, n, width, nil, 0)
			prefix := string(line[:len(line)-2]) // "  10 |" without " \n"
			if got, want := prefixTokens(width, n), tokens.Count(prefix); got != want {
				t.Fatalf("prefixTokens(%d, %d) = %d, tokens.Count(%q) = %d", width, n, got, prefix, want)
			}
		}
	}
}

// TestNumberedLinesAdd: a numbered line costs its number part plus
// " text\n", and a run of numbered lines and a trailer costs the sum of
// its parts: what linetokens.index's lookups rest on.
//
// The run is counted whole at each trailer, so the cost grows with the
// square of the lines: the three files take seconds of one core, several
// times that under the race detector. -short (make test's race pass)
// reads strings.go alone; the whole pass reads all three.
func TestNumberedLinesAdd(t *testing.T) {
	lines := slices.Clone(trickyLines)
	src := testkit.GoSrc(t)
	names := []string{"net/http/server.go", "strings/strings.go", "unicode/tables.go"}
	if testing.Short() {
		names = []string{"strings/strings.go"}
	}
	for _, name := range names {
		data, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, strings.Split(string(data), "\n")...)
	}
	r := rand.New(rand.NewPCG(3, 4))
	var run []byte
	sum := 0
	for i, line := range lines {
		width := []int{4, 5, 7}[i%3]
		num := 1 + r.IntN(9999)
		if width > 4 {
			num = 1 + r.IntN(999999)
		}
		numbered := appendNumbered(nil, num, width, []byte(line), 0)
		cost := prefixTokens(width, num) + tokens.Count(" "+line+"\n")
		if got := tokens.Count(string(numbered)); got != cost {
			t.Fatalf("line %q numbered %d at width %d: %d tokens, its parts %d", line, num, width, got, cost)
		}
		run = append(run, numbered...)
		sum += cost
		if i%97 == 96 { // end the run with a trailer, as render does
			tr := fmt.Sprintf("[file: a/b%d.go | total: %d lines | shown: 1-%d]\n", i, i, i)
			run = append(run, tr...)
			sum += tokens.Count(tr)
			if got := tokens.Count(string(run)); got != sum {
				t.Fatalf("a run of %d bytes: %d tokens, its lines and trailer %d", len(run), got, sum)
			}
		}
	}
}

// budgetCorpus is a snapshot of real Go files and files of tricky lines:
// a line longer than the shown characters, one longer than
// lineindex.MaxCountedLineBytes, CJK, no final newline, blank runs.
func budgetCorpus(t *testing.T) snap {
	t.Helper()
	s := snap{files: map[string]string{}}
	src := testkit.GoSrc(t)
	dir := filepath.Join(src, "net", "http")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || n >= 40 {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		s.files["http/"+e.Name()] = string(data)
		n++
	}
	var tricky strings.Builder
	for i := range 600 {
		tricky.WriteString(trickyLines[i%len(trickyLines)] + "\n")
	}
	s.files["tricky.txt"] = tricky.String()
	s.files["tricky-nonl.txt"] = strings.Repeat("x := 1\n\n\n", 40) + "last line"
	s.files["long.txt"] = "short\n" + strings.Repeat("word ", 1000) + "\n" + strings.Repeat("y", lineindex.MaxCountedLineBytes+10) + "\nafter\n"
	s.files["cjk.md"] = strings.Repeat("中文文本，用于测试。\n", 400)
	s.files["dump.sql"] = numbered("dump", 3000)
	s.oversize = []string{"dump.sql"}
	return s
}

// budgetCalls are read_file calls over s: each file alone with and
// without ranges, and files together, at budgets from the floor to the
// ceiling.
func budgetCalls(s snap) []ReadFileArgs {
	paths := slices.Sorted(maps.Keys(s.files))
	rangeSets := [][][]int{nil, {{1, 40}}, {{30, 90}, {200, 260}}, {{3, 3}, {5, 6}}, {{1000, 1200}}, {{2990, 3100}}}
	budgets := []int{100, 150, 300, 700, 1500, 4000, 8000, 32000}
	var calls []ReadFileArgs
	for i, p := range paths {
		for j, rs := range rangeSets {
			if p == "dump.sql" && rs == nil {
				continue // oversize: by range only
			}
			budget := budgets[(i+j)%len(budgets)]
			calls = append(calls, ReadFileArgs{Files: []FileRequest{{Path: p, Ranges: rs}}, BudgetTokens: budget})
		}
		if p != "dump.sql" {
			for _, b := range budgets {
				calls = append(calls, ReadFileArgs{Files: []FileRequest{{Path: p}}, BudgetTokens: b})
			}
		}
	}
	for i := 0; i+2 < len(paths); i += 3 {
		var files []FileRequest
		for _, p := range paths[i : i+3] {
			fr := FileRequest{Path: p}
			if p == "dump.sql" {
				fr.Ranges = [][]int{{1, 100}}
			}
			files = append(files, fr)
		}
		for _, b := range []int{300, 2000, 9000, 32000} {
			calls = append(calls, ReadFileArgs{Files: files, BudgetTokens: b})
		}
	}
	return calls
}

// TestReadBudgetByLookup: with linetokens.index, read_file answers every
// call byte for byte as it does when it counts (the answer cut at the
// same line), and no answer exceeds its budget, counted with the real
// tokenizer.
func TestReadBudgetByLookup(t *testing.T) {
	if testing.Short() {
		t.Skip("reads a few thousand answers")
	}
	s := budgetCorpus(t)
	withIndex, _ := newTestServer(t, &s, Options{})
	counting := s
	counting.noTokens = true
	withoutIndex, _ := newTestServer(t, &counting, Options{})
	if withIndex.cur.tokens == nil || withoutIndex.cur.tokens != nil {
		t.Fatalf("token index loaded: %v and %v, want true and false", withIndex.cur.tokens != nil, withoutIndex.cur.tokens != nil)
	}
	cut := 0
	for _, args := range budgetCalls(s) {
		what := fmt.Sprintf("%+v", args)
		text, res, err := read(t, withIndex, args)
		text0, res0, err0 := read(t, withoutIndex, args)
		if fmt.Sprint(err) != fmt.Sprint(err0) {
			t.Fatalf("%s: error %v with the index, %v counting", what, err, err0)
		}
		if err != nil {
			continue
		}
		if text != text0 || !reflect.DeepEqual(res, res0) {
			t.Fatalf("%s: with the index\n%s\n%+v\ncounting\n%s\n%+v", what, tail(text), res, tail(text0), res0)
		}
		if n := tokens.Count(text); n > args.BudgetTokens {
			t.Fatalf("%s: %d tokens, over the budget", what, n)
		}
		cut += btoi(res.Cut)
	}
	if cut < 50 {
		t.Errorf("only %d answers were cut by the budget: the corpus does not test the edge", cut)
	}
}

func tail(s string) string {
	if len(s) > 600 {
		return "…" + s[len(s)-600:]
	}
	return s
}

// TestReadUsesTokenIndex: the server takes its costs from the token index
// when the index is bound to the texts (forged counts, three times the
// true ones with their sums made again, cut the answer sooner: a
// conservative lie stays within budget), and counts when it is not (an
// index of other contents, or damaged).
func TestReadUsesTokenIndex(t *testing.T) {
	s := snap{files: map[string]string{"a.go": numbered("alpha", 400), "b.go": numbered("beta", 10)}}
	args := ReadFileArgs{Files: []FileRequest{{Path: "a.go"}}, BudgetTokens: 1000}
	honest, _ := newTestServer(t, &s, Options{})
	want, wantRes, err := read(t, honest, args)
	if err != nil {
		t.Fatal(err)
	}
	triple := func(data []byte) []byte {
		c := lineindex.NewCounts(data)
		var out []byte
		for {
			length, count, ok := c.Next()
			if !ok {
				return out
			}
			out = binary.AppendUvarint(out, uint64(length))
			out = binary.AppendUvarint(out, uint64(3*count+1))
		}
	}
	tests := []struct {
		name    string
		write   func(t *testing.T, out string)
		sameCut bool
	}{
		{"forged counts", func(t *testing.T, out string) { writeTokensWith(t, out, s, triple) }, false},
		{"counts of other contents", func(t *testing.T, out string) {
			other := snap{files: map[string]string{"a.go": numbered("alpha", 401), "b.go": numbered("beta", 10)}}
			writeTokensWith(t, out, other, triple)
		}, true},
		{"damaged", func(t *testing.T, out string) {
			writeTokensWith(t, out, s, triple)
			name := filepath.Join(out, snapshot.LineTokens)
			data, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			data[20] ^= 0x40
			if err := os.WriteFile(name, data, 0o644); err != nil {
				t.Fatal(err)
			}
		}, true},
		{"missing", func(t *testing.T, out string) { os.Remove(filepath.Join(out, snapshot.LineTokens)) }, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			publish(t, out, s)
			tt.write(t, out)
			srv, err := New(out, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Close()
			got, res, err := read(t, srv, args)
			if err != nil {
				t.Fatal(err)
			}
			if same := got == want && reflect.DeepEqual(res, wantRes); same != tt.sameCut {
				t.Errorf("answer the same as the honest index's: %v, want %v\n%s", same, tt.sameCut, tail(got))
			}
			if n := tokens.Count(got); n > args.BudgetTokens {
				t.Errorf("%d tokens, over the budget", n)
			}
		})
	}
}
