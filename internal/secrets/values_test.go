package secrets

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/repoprep/repoprep/internal/secrets/secrettest"
)

// A password caught where a rule sees it (a .properties file) is masked wherever else it
// occurs, though it reads like a word (welcome1) and nothing around it there says
// password: a README's docker command line.
func TestValuesAnyShape(t *testing.T) {
	s := defaultScanner(t)
	for range 5 {
		pw := secrettest.Rand("abcdefghijklmnopqrstuvwxyz", 7) + secrettest.Rand("0123456789", 1)
		sc, err := s.ScanBytes(context.Background(), []byte("db.url=jdbc:postgresql://db/app\nadmin.password="+pw+"\n"), "conf/app.properties")
		if err != nil {
			t.Fatal(err)
		}
		if len(sc.Findings) != 1 {
			t.Fatalf("app.properties: %d findings, want the password", len(sc.Findings))
		}
		vals := NewValues()
		sc.AddValues(vals, 0)
		readme := "## Run\n\n    docker run -e ADMIN_PASSWORD=" + pw + " -p 8080:8080 app\n\nThen log in as admin.\n" +
			"The " + pw + "x and x" + pw + " words are not it.\n"
		got := findAll(t, s.Matcher(vals), readme, valueBlockBytes)
		want := fmt.Sprint([][2]int64{{int64(strings.Index(readme, pw)), int64(strings.Index(readme, pw) + len(pw))}})
		if got != want {
			t.Errorf("README: found %s, want %s", got, want)
		}
	}
}

// A word of the stop list is never looked for, whatever its case, nor a plain
// lower-case word (a rule's false finding would mask it all over the tree); a value
// under 8 bytes never is; one of 8 is.
func TestValuesLeftOut(t *testing.T) {
	s := defaultScanner(t)
	vals := NewValues()
	lower := "abcdefghijklmnopqrstuvwxyz"
	for _, w := range []string{"changeme", "Password", "LOCALHOST", "undefined", "placeholder", "your_password",
		secrettest.Rand(lower, 10), secrettest.Rand(lower, 6) + "-" + secrettest.Rand(lower, 5), "flags." + secrettest.Rand(lower, 6),
		"AWS_" + strings.ToUpper(secrettest.Rand(lower, 6)) + "_KEY"} {
		vals.Add("password-assignment", []byte(w))
	}
	seven := secrettest.Rand("abcdefghijklmnopqrstuvwxyz0123456789", 7)
	vals.Add("password-assignment", []byte(seven))
	if vals.Len() != 0 {
		t.Fatalf("the set holds %d values, want none", vals.Len())
	}
	eight := secrettest.Rand("abcdefghijklmnopqrstuvwxyz0123456789", 7) + secrettest.Rand("0123456789", 1)
	vals.Add("password-assignment", []byte(eight))
	m := s.Matcher(vals)
	if m.Len() != 1 {
		t.Fatalf("the matcher looks for %d values, want 1", m.Len())
	}
	content := "password changeme LOCALHOST " + seven + " (" + eight + ")\n"
	if got, want := findAll(t, m, content, 64), fmt.Sprint([][2]int64{{int64(strings.Index(content, eight)), int64(strings.Index(content, eight) + 8)}}); got != want {
		t.Errorf("found %s, want %s (the 8-byte value alone)", got, want)
	}
}

// findAll is m.find over content, as [start end) pairs.
func findAll(t *testing.T, m *Matcher, content string, block int) string {
	t.Helper()
	spans, err := m.find(strings.NewReader(content), block)
	if err != nil {
		t.Fatal(err)
	}
	var out [][2]int64
	for _, sp := range spans {
		out = append(out, [2]int64{sp.start, sp.end})
	}
	return fmt.Sprint(out)
}

// The index finds what a plain search finds (every occurrence of every value it
// indexes, short ones standing alone, overlaps merged under the first and longest), at
// any block size, comparing bytes or hashes, for values made to crowd it: a two-letter
// alphabet, runs of one character, a shared long head (JWTs); and it checks at most
// maxAnchorChain values per byte.
func TestValueIndexMatchesPlainSearch(t *testing.T) {
	rounds := 300
	if testing.Short() {
		rounds = 40
	}
	rng := rand.New(rand.NewPCG(rand.Uint64(), 11))
	s, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	shapes := []func() string{
		func() string { return randString(rng, "ab", 8+rng.IntN(30)) },
		func() string { return strings.Repeat("A", 8+rng.IntN(60)) },
		func() string {
			return "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9." + randString(rng, "xyz019", 1+rng.IntN(12))
		},
		func() string { return randString(rng, "abcXYZ019+/=-", 8+rng.IntN(40)) },
		func() string { return randString(rng, "ab-", 8+rng.IntN(12)) },
	}
	for round := range rounds {
		vals := NewValues()
		var values []string
		for range 1 + rng.IntN(40) {
			v := shapes[rng.IntN(len(shapes))]()
			values = append(values, v)
			vals.Add("r", []byte(v))
		}
		var content strings.Builder
		for content.Len() < 4000 {
			switch rng.IntN(5) {
			case 0, 1:
				content.WriteString(values[rng.IntN(len(values))])
			case 2:
				content.WriteString(strings.Repeat("A", rng.IntN(200)))
			default:
				content.WriteString(randString(rng, "abAxyz-. \n", 1+rng.IntN(30)))
			}
		}
		m := s.Matcher(vals)
		want := plainSearch(m, content.String())
		for _, budget := range []int{4, 0} {
			valueCompareBudget = budget
			block := 64 + rng.IntN(900)
			spans, err := m.find(strings.NewReader(content.String()), block)
			valueCompareBudget = 4
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, sp := range spans {
				got = append(got, fmt.Sprintf("%d-%d:%s", sp.start, sp.end, m.values[sp.v]))
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("round %d, block %d, budget %d:\nfound %v\nplain %v", round, block, budget, got, want)
			}
		}
		// With spans masked anyway, what is found and they cover what a plain search and
		// they cover, and nothing found lies wholly inside one of them.
		var masked []Finding
		for range rng.IntN(4) {
			start := rng.IntN(content.Len())
			masked = append(masked, Finding{Start: int64(start), End: int64(min(content.Len(), start+1+rng.IntN(600)))})
		}
		spans, err := m.findContext(context.Background(), strings.NewReader(content.String()), 64+rng.IntN(900), masked)
		if err != nil {
			t.Fatal(err)
		}
		covered := func(spans [][2]int64) string {
			c := make([]byte, content.Len())
			for _, f := range masked {
				for i := f.Start; i < f.End; i++ {
					c[i] = 1
				}
			}
			for _, sp := range spans {
				for i := sp[0]; i < sp[1]; i++ {
					c[i] = 1
				}
			}
			return string(c)
		}
		var got, plain [][2]int64
		for _, sp := range spans {
			got = append(got, [2]int64{sp.start, sp.end})
			for _, f := range masked {
				if f.Start <= sp.start && sp.end <= f.End {
					t.Fatalf("round %d: found [%d,%d) inside the masked [%d,%d)", round, sp.start, sp.end, f.Start, f.End)
				}
			}
		}
		for _, w := range want {
			var a, b int64
			fmt.Sscanf(w, "%d-%d:", &a, &b)
			plain = append(plain, [2]int64{a, b})
		}
		if covered(got) != covered(plain) {
			t.Fatalf("round %d: with %v masked, found %v, plain %v", round, masked, got, plain)
		}

		checks := 0
		m.index.walk([]byte(content.String()), 0, content.Len(), func(int, *anchorEntry) { checks++ })
		if checks > maxAnchorChain*content.Len() {
			t.Fatalf("round %d: %d checks for %d bytes", round, checks, content.Len())
		}
	}
}

// plainSearch is what m.find must find in content: every occurrence of each value m
// indexes (a short one only standing alone), sorted by start, longest first, merged
// where they overlap under the first.
func plainSearch(m *Matcher, content string) []string {
	type occ struct {
		start, end int
		v          string
	}
	var occs []occ
	for _, e := range m.index.entries {
		v := m.values[e.value]
		for i := 0; ; {
			j := strings.Index(content[i:], v)
			if j < 0 {
				break
			}
			start := i + j
			if len(v) >= shortValueBytes || standsAlone([]byte(content), start, start+len(v)) {
				occs = append(occs, occ{start, start + len(v), v})
			}
			i = start + 1
		}
	}
	slices.SortFunc(occs, func(a, b occ) int { return cmp.Or(cmp.Compare(a.start, b.start), cmp.Compare(b.end, a.end)) })
	var merged []occ
	for _, o := range occs {
		if n := len(merged); n > 0 && o.start < merged[n-1].end {
			merged[n-1].end = max(merged[n-1].end, o.end)
			continue
		}
		merged = append(merged, o)
	}
	var out []string
	for _, o := range merged {
		out = append(out, fmt.Sprintf("%d-%d:%s", o.start, o.end, o.v))
	}
	return out
}

// A value all of whose windows crowd one anchor is left out, the same ones every run;
// the values looked for are still all found.
func TestValueIndexCrowded(t *testing.T) {
	s, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	vals := NewValues()
	for n := 8; n < 40; n++ {
		vals.Add("r", []byte(strings.Repeat("7", n)))
	}
	first := s.Matcher(vals)
	if first.Len() != maxAnchorChain {
		t.Fatalf("looks for %d runs of 7, want %d", first.Len(), maxAnchorChain)
	}
	for range 5 {
		again := s.Matcher(vals)
		if fmt.Sprint(lookedFor(again)) != fmt.Sprint(lookedFor(first)) {
			t.Fatalf("looked for %v, then %v", lookedFor(first), lookedFor(again))
		}
	}
}

func lookedFor(m *Matcher) []string {
	var vs []string
	for _, e := range m.index.entries {
		vs = append(vs, m.values[e.value])
	}
	slices.Sort(vs)
	return vs
}

// The fingerprints of the value pass are those of the rules' pass.
func TestFingerprinterAgrees(t *testing.T) {
	s := defaultScanner(t)
	fp := s.newFingerprinter()
	for range 20 {
		v := []byte(secrettest.Rand(b64Alphabet, 8+int(secrettest.Rand("0123456789", 1)[0]-'0')*20))
		for _, id := range []string{"private-key", "generic-api-key"} {
			if got, want := fp.of(id, string(v)), s.fingerprint(id, v); got != want {
				t.Fatalf("fingerprinter gives %s, Scanner.fingerprint %s", got, want)
			}
		}
	}
}

// keyBlockBytes is the size of the key block the memory test builds: 4 MB, 400 KB under
// -short.
func keyBlockBytes() int {
	if testing.Short() {
		return 400_000
	}
	return 4_000_000
}

// A 4 MB key block: every line of it is found in another file that holds them in
// another order and shape (a JSON string with \n escapes), and putting its values in
// the set, indexing them, and finding and locating them there allocates under 64 MB in
// all (the trie this index replaced took 1.0 GB for 400 KB).
func TestKeyBlockValues(t *testing.T) {
	s := defaultScanner(t)
	block := keyBlock(rand.New(rand.NewPCG(rand.Uint64(), 5)), "pem", keyBlockBytes())
	sc, err := s.ScanBytes(context.Background(), block, "deploy/key.pem")
	if err != nil {
		t.Fatal(err)
	}
	if len(sc.Findings) != 1 || sc.Findings[0].Rule != "private-key" {
		t.Fatalf("%d findings, want the block", len(sc.Findings))
	}
	var lines []string
	for l := range strings.Lines(string(block)) {
		if l = strings.TrimSpace(l); !strings.HasPrefix(l, "-----") {
			lines = append(lines, l)
		}
	}
	// The copy: the lines last first, in a JSON string, after some text.
	var copyText strings.Builder
	copyText.WriteString("{\"note\": \"the deploy key\", \"key\": \"")
	at := make([]int, len(lines))
	for i := len(lines) - 1; i >= 0; i-- {
		at[i] = copyText.Len()
		copyText.WriteString(lines[i] + `\n`)
	}
	copyText.WriteString("\"}\n")
	name := filepath.Join(t.TempDir(), "secret.json")
	if err := os.WriteFile(name, []byte(copyText.String()), 0o600); err != nil {
		t.Fatal(err)
	}

	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	vals := NewValues()
	sc.AddValues(vals, 0)
	m, err := s.MatcherContext(context.Background(), vals)
	if err != nil {
		t.Fatal(err)
	}
	found, err := m.ScanFileContext(context.Background(), name, nil)
	if err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	allocated := after.TotalAlloc - before.TotalAlloc
	t.Logf("%d lines: %.1f MB allocated to add, index, find and locate them", len(lines), float64(allocated)/1e6)
	if allocated > 64<<20 {
		t.Errorf("the value pass allocated %.1f MB for a %d-byte key block, want under 64 MB", float64(allocated)/1e6, len(block))
	}
	if m.Len() != len(lines) {
		t.Errorf("the matcher looks for %d values, want the block's %d lines", m.Len(), len(lines))
	}
	// Every line is found where it is, and nothing else.
	if len(found) != len(lines) {
		t.Fatalf("found %d spans, want %d lines", len(found), len(lines))
	}
	slices.Sort(at)
	for i, f := range found {
		if f.Start != int64(at[i]) || f.End != int64(at[i]+len(lines[len(lines)-1-i])) || f.Rule != "private-key" {
			t.Fatalf("span %d = [%d,%d) %s, want the line at %d", i, f.Start, f.End, f.Rule, at[i])
		}
	}

	// In the block's own file, told the rules' pass masks the block, the walk finds
	// only the copy of a line after it.
	own := filepath.Join(t.TempDir(), "key.pem")
	tail := "\nbackup: " + lines[7] + "\n"
	if err := os.WriteFile(own, append(slices.Clip(block), tail...), 0o600); err != nil {
		t.Fatal(err)
	}
	found, err = m.ScanFileContext(context.Background(), own, sc.Findings)
	if err != nil {
		t.Fatal(err)
	}
	if at := int64(len(block) + strings.Index(tail, lines[7])); len(found) != 1 || found[0].Start != at {
		t.Errorf("in its own file: %+v, want the copy at %d alone", found, at)
	}
}

// The index and the walk stop once their context is done.
func TestValuePassCancel(t *testing.T) {
	s := defaultScanner(t)
	vals := NewValues()
	rng := rand.New(rand.NewPCG(rand.Uint64(), 6))
	for range 10000 {
		vals.Add("generic-api-key", []byte(randString(rng, b64Alphabet, 40)))
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.MatcherContext(ctx, vals); !errors.Is(err, context.Canceled) {
		t.Errorf("MatcherContext on a done context: %v, want context.Canceled", err)
	}
	m := s.Matcher(vals)
	name := filepath.Join(t.TempDir(), "big.txt")
	if err := os.WriteFile(name, bytes.Repeat([]byte("filler text 0123456789\n"), 200_000), 0o600); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if _, err := m.ScanFileContext(ctx, name, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("ScanFileContext on a done context: %v, want context.Canceled", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("ScanFileContext took %v to stop", d)
	}
}

// appendValues cuts a block at newlines and \n or \r escapes, keeps lines of
// minLineValueBytes and more, and covers a long line to its last byte.
func TestAppendValues(t *testing.T) {
	line := func(n int) string { return secrettest.Rand(b64Alphabet, n) }
	a, b, short := line(64), line(40), line(20)
	long := line(2*maxValueBytes + 100)
	for name, tc := range map[string]struct {
		in   string
		want []string
	}{
		"one value":   {a, []string{a}},
		"too short":   {"abc1234", nil},
		"lines":       {a + "\n" + short + "\r\n" + b + "\n", []string{a, b}},
		"escapes":     {`"` + a + `\n` + b + `\r\n` + short + `"`, []string{a, b}},
		"long line":   {long, []string{long[:maxValueBytes], long[maxValueBytes : 2*maxValueBytes], long[len(long)-maxValueBytes:]}},
		"long inside": {a + "\n" + long, []string{a, long[:maxValueBytes], long[maxValueBytes : 2*maxValueBytes], long[len(long)-maxValueBytes:]}},
	} {
		var got []string
		for _, v := range appendValues(nil, []byte(tc.in)) {
			got = append(got, string(v))
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: got %d values %q, want %d", name, len(got), got, len(tc.want))
		}
	}
}

// FuzzValueIndex: for any values (split at NUL) and content, at any block size,
// comparing bytes or hashes, the walk finds what a plain search finds.
func FuzzValueIndex(f *testing.F) {
	f.Add([]byte("AAAAAAAAAA\x00AAAAAAAAAAAA\x00abababababab"), []byte("xAAAAAAAAAAAAAAAAAA abababababababab y"), uint16(70), false)
	f.Add([]byte("10.0.0.1\x0010.0.0.12"), []byte("10.0.0.12 x10.0.0.1 (10.0.0.1)"), uint16(64), true)
	s, err := New(nil)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, values, content []byte, block uint16, hashes bool) {
		vals := NewValues()
		for _, v := range bytes.Split(values, []byte{0}) {
			vals.Add("r", v)
		}
		m := s.Matcher(vals)
		if hashes {
			valueCompareBudget = 0
			defer func() { valueCompareBudget = 4 }()
		}
		spans, err := m.find(bytes.NewReader(content), int(block)%2048+1)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, sp := range spans {
			got = append(got, fmt.Sprintf("%d-%d:%s", sp.start, sp.end, m.values[sp.v]))
		}
		if want := plainSearch(m, string(content)); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("found %q\nplain %q", got, want)
		}
	})
}
