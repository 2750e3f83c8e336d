package stages

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"golang.org/x/text/encoding/simplifiedchinese"
)

// TestFindEncodingPriors: a prior is the charset of nine in ten of at
// least eight strongly decided texts, the repository's or a top-level
// directory's own; weak texts, refused ones and files that are not text
// do not count; the answer does not depend on the records' order.
func TestFindEncodingPriors(t *testing.T) {
	type group struct {
		dir, strong string
		n           int
	}
	cases := []struct {
		name   string
		groups []group
		repo   string
		byTop  map[string]string
	}{
		{"none", nil, "", nil},
		{"seven are too few", []group{{"src", "big5", 7}}, "", nil},
		{"eight", []group{{"src", "big5", 8}}, "big5", map[string]string{"src": "big5"}},
		{"GB18030 counts as GBK", []group{{"a", "gbk", 4}, {"b", "gb18030", 4}}, "gbk", nil},
		{"nine in ten", []group{{"src", "big5", 18}, {"doc", "windows-1252", 2}}, "big5", map[string]string{"src": "big5"}},
		{"under nine in ten", []group{{"src", "euc-kr", 17}, {"lib", "windows-1252", 3}}, "", map[string]string{"src": "euc-kr"}},
		{"mixed repository, one directory of its own", []group{{"runtime", "windows-1252", 10}, {"runtime", "koi8-r", 5}, {"src", "gbk", 9}}, "", map[string]string{"src": "gbk"}},
		{"root files count for the repository only", []group{{"", "shift_jis", 8}}, "shift_jis", nil},
		{"weak texts do not count", []group{{"src", "big5", 5}, {"src", "weak:big5", 20}}, "", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var recs []*Record
			for _, g := range tc.groups {
				for i := range g.n {
					p := fmt.Sprintf("f%d.txt", i)
					if g.dir != "" {
						p = g.dir + "/" + g.strong + "/" + p
					} else {
						p = g.strong + p
					}
					rec := NewRecord(p, p, 10)
					rec.Category = "text"
					if g.strong[:min(5, len(g.strong))] == "weak:" {
						rec.Memo.Enc = EncodingMemo{Weak: true}
					} else {
						rec.Memo.Enc = EncodingMemo{Strong: priorFamily(g.strong)}
					}
					recs = append(recs, rec)
				}
			}
			// Not text, or failed: never counted.
			bin := NewRecord("src/x.bin", "src/x.bin", 10)
			bin.Category, bin.Memo.Enc = "binary", EncodingMemo{Strong: "koi8-r"}
			recs = append(recs, bin)
			for round := range 5 {
				rand.New(rand.NewPCG(uint64(round), 1)).Shuffle(len(recs), func(i, j int) { recs[i], recs[j] = recs[j], recs[i] })
				got := FindEncodingPriors(recs)
				if got.Repo != tc.repo || len(got.ByTop) != len(tc.byTop) {
					t.Fatalf("round %d: %+v; want repo %q, by top %v", round, got, tc.repo, tc.byTop)
				}
				for top, want := range tc.byTop {
					if got.ByTop[top] != want {
						t.Fatalf("round %d: %s: %q, want %q", round, top, got.ByTop[top], want)
					}
				}
			}
		})
	}
}

// TestEncodingPriorsFor: a file takes its top-level directory's prior,
// else the repository's.
func TestEncodingPriorsFor(t *testing.T) {
	p := EncodingPriors{Repo: "big5", ByTop: map[string]string{"web": "windows-1252"}}
	for path, want := range map[string]string{"a.c": "big5", "src/a.c": "big5", "web/index.html": "windows-1252", "web": "big5", "webx/a": "big5"} {
		if got := p.For(path); got != want {
			t.Errorf("For(%q) = %q, want %q", path, got, want)
		}
	}
}

// TestMisdeclaredRedecidedOnce: a misdeclared text decided again under a
// repository prior (Redecide, then the per-file loop) is counted once in
// the run's warning, not once per decoding (it was counted twice).
func TestMisdeclaredRedecidedOnce(t *testing.T) {
	src, out := t.TempDir(), t.TempDir()
	gbk, _ := simplifiedchinese.GBK.NewEncoder().String("<html><head><meta charset=\"iso-8859-1\"></head><body>用户手册，第一章：安装与配置说明。</body></html>\n")
	files := map[string]string{"a.html": gbk, "b.html": gbk}
	writeTree(t, src, files)
	env := &Env{Src: openRoot(t, src), TreeDir: out, Rules: defaultRules(t), MaxTextBytes: 1 << 20}
	for _, name := range []string{"a.html", "b.html"} {
		rec := NewRecord(name, name, int64(len(files[name])))
		if err := process(env, rec); err != nil {
			t.Fatal(err)
		}
		if name == "a.html" {
			env.Redecide(rec, "gbk")
			if err := process(env, rec); err != nil {
				t.Fatal(err)
			}
		}
		if !rec.Staged || rec.Encoding != "gbk" {
			t.Fatalf("%s: staged %v as %q", name, rec.Staged, rec.Encoding)
		}
	}
	ws := env.Warnings()
	if len(ws) != 1 || !strings.Contains(ws[0], "2 files") || !strings.Contains(ws[0], "a.html names iso-8859-1, read as gbk") {
		t.Errorf("warnings: %q", ws)
	}
}
