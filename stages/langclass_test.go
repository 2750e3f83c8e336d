package stages

import (
	"go/build"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/go-enry/go-enry/v2"

	"github.com/repoprep/repoprep/internal/testkit"
)

// unknownWords is n lines of made-up words no language's samples hold,
// like the mail text in popfile's TestMails/*.cls: every candidate pays
// the same for every token, so only the priors, often equal, remain.
func unknownWords(seed uint64, n int) []byte {
	r := rand.New(rand.NewPCG(seed, 1))
	var b strings.Builder
	for range n {
		for range 8 {
			for range 6 + r.IntN(6) {
				b.WriteByte(byte('a' + r.IntN(26)))
			}
			b.WriteByte(' ')
		}
		b.WriteByte('\n')
	}
	return []byte(b.String())
}

// TestEnryLanguageIsDeterministic: the same .cls head names the same
// language every time. go-enry's classifier answered "Visual Basic 6.0"
// or "Apex" by map order here (the old enryLanguage: differs within 200
// calls on almost every run).
func TestEnryLanguageIsDeterministic(t *testing.T) {
	for _, tc := range []struct {
		name, base string
		head       []byte
	}{
		{"mail text in .cls", "mail.cls", unknownWords(1, 20)},
		{"one line in .cls", "x.cls", unknownWords(2, 1)},
		{"modeline marker in a word", "mail.cls", append([]byte("qqvimzz\n"), unknownWords(3, 20)...)},
		{"no extension (no candidates: a control)", "MAILTEXT", unknownWords(4, 20)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			calls := 200
			if testing.Short() {
				calls = 50 // the race pass (each call 15 ms there); the whole pass makes 200
			}
			first := enryLanguage(tc.base, tc.head)
			for i := range calls {
				if got := enryLanguage(tc.base, tc.head); got != first {
					t.Fatalf("call %d: %q, call 0: %q", i+1, got, first)
				}
			}
		})
	}
}

func TestClassifyLanguages(t *testing.T) {
	for _, tc := range []struct {
		name       string
		content    string
		candidates []string
		want       []string
	}{
		{"no candidates", "int x;", nil, nil},
		{"unknown words: equal scores, by name", string(unknownWords(1, 5)),
			[]string{"Visual Basic 6.0", "Apex"}, []string{"Apex", "Visual Basic 6.0"}},
		{"tie kept whatever the input order", string(unknownWords(1, 5)),
			[]string{"Apex", "Visual Basic 6.0"}, []string{"Apex", "Visual Basic 6.0"}},
		{"tokens decide", "#include <iostream>\nint main() { std::cout << \"hi\"; }\n",
			[]string{"C", "C++"}, []string{"C++", "C"}},
		{"objective-c", "#import <Foundation/Foundation.h>\n@interface Foo : NSObject\n@property (nonatomic) int x;\n@end\n",
			[]string{"C", "Objective-C"}, []string{"Objective-C", "C"}},
		{"alias names the language", "#include <iostream>\nstd::cout;\n",
			[]string{"c++", "C"}, []string{"C++", "C"}},
		{"untrained candidate left out, duplicate once", "x", []string{"No Such Language", "C", "C"}, []string{"C"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := classifyLanguages("", []byte(tc.content), tc.candidates)
			if !slices.Equal(got, tc.want) {
				t.Errorf("classifyLanguages = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestClassifierTokens(t *testing.T) {
	for _, tc := range []struct {
		name, content string
		want          []string
	}{
		{"empty", "", nil},
		{"punctuation, words, operators", "a = b + c;", []string{";", "a", "b", "c", "+", "="}},
		{"strings, comments and numbers dropped", "x = \"str\" // note\ny = 0x1F + 3.5e+2f /* c */", []string{"x", "y", "+", "=", "="}},
		{"shebang counts twice", "#!/usr/bin/env python\nprint(1)\n",
			[]string{"SHEBANG#!python", "(", ")", "#", "/usr/bin/env", "python", "print", "!"}},
		{"sgml tag and attributes", `<a href="x" b=c>t</a>`, []string{"<a>", "href=", "b=", "</a>", "t"}},
		{"sgml comment kept out", "<!-- hi -->x", []string{"x"}},
		{"one token per character left over", "é?\xff", []string{"é", "?", "\xff"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := classifierTokens([]byte(tc.content)); !slices.Equal(got, tc.want) {
				t.Errorf("classifierTokens(%q) = %q, want %q", tc.content, got, tc.want)
			}
		})
	}
}

// classifierCandidates is what the strategies loop hands the classifier
// for a file, or nil when an earlier strategy already decided.
func classifierCandidates(base string, head []byte) []string {
	if enry.IsBinary(head) {
		return nil
	}
	var langs []string
	for _, strategy := range languageStrategies[:len(languageStrategies)-1] {
		switch c := strategy(base, head, langs); len(c) {
		case 0:
		case 1:
			return nil
		default:
			langs = c
		}
	}
	return langs
}

// TestClassifierAgreesWithGoEnry: on real files that reach the classifier
// (GOROOT/src and the module cache: .s, .cfg, .m, .mod, .x ...), where
// go-enry's answer is the same over 8 calls, classifyLanguages gives it
// at least 98% of the time, and always where its best score is not a tie
// (a tie is where go-enry answers by map order, and we by name).
func TestClassifierAgreesWithGoEnry(t *testing.T) {
	maxFiles, maxPerExt := 1200, 100
	if testing.Short() {
		maxPerExt = 64 // the race pass, where go-enry's 8 calls a file take 25 ms; still over 60 compared
	}
	roots := []string{testkit.GoSrc(t)}
	if mod := filepath.Join(build.Default.GOPATH, "pkg", "mod"); !testing.Short() {
		if _, err := os.Stat(mod); err == nil {
			roots = append(roots, mod)
		}
	}
	var compared, agreed, unstable int
	perExt := map[string]int{}
	for _, root := range roots {
		filesHere := 0
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || filesHere >= maxFiles {
				return fs.SkipAll
			}
			if d.IsDir() {
				if name := d.Name(); name == "cache" || name == "testdata" && root != roots[0] {
					return fs.SkipDir
				}
				return nil
			}
			base := d.Name()
			ext := strings.ToLower(filepath.Ext(base))
			if perExt[ext] >= maxPerExt || !d.Type().IsRegular() || len(enry.GetLanguagesByExtension(base, nil, nil)) < 2 {
				return nil
			}
			head, err := readHeadForTest(p)
			if err != nil {
				return nil
			}
			cands := classifierCandidates(base, head)
			if len(cands) < 2 {
				return nil
			}
			perExt[ext]++
			filesHere++
			want := enry.GetLanguagesByClassifier(base, head, cands)
			for range 7 {
				if again := enry.GetLanguagesByClassifier(base, head, cands); again[0] != want[0] {
					unstable++
					return nil
				}
			}
			compared++
			got := scoreLanguages(head, cands)
			switch {
			case got[0].lang == want[0]:
				agreed++
			case got[0].score == got[1].score:
				t.Logf("%s: tie: ours %q, go-enry %q (of %q)", p, got[0].lang, want[0], cands)
			default:
				t.Errorf("%s: ours %q, go-enry %q (of %q), and no tie", p, got[0].lang, want[0], cands)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if compared < 60 {
		t.Fatalf("only %d files compared: %v", compared, perExt)
	}
	t.Logf("%d of %d stable answers agree (%.2f%%); %d unstable left out; by extension %v",
		agreed, compared, 100*float64(agreed)/float64(compared), unstable, perExt)
	if agreed*100 < compared*98 {
		t.Errorf("%d of %d agree, want at least 98%%", agreed, compared)
	}
}

// readHeadForTest reads what triage would give the classifier.
func readHeadForTest(name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	head := make([]byte, languageBytes)
	n, err := io.ReadFull(f, head)
	if err == io.ErrUnexpectedEOF || err == io.EOF {
		err = nil
	}
	return head[:n], err
}

// FuzzClassifyLanguages: any content gives non-empty tokens, at most a
// few per byte (cost stays linear), and the same order of candidates on
// every call.
func FuzzClassifyLanguages(f *testing.F) {
	for _, s := range []string{"", "#!/bin/sh\necho", "<a href=x>y</a>", "/* x */ \"s\" 'c' 0x1fUL", "\xff\xfe<!-- ", string(unknownWords(1, 2))} {
		f.Add([]byte(s))
	}
	cands := []string{"Visual Basic 6.0", "Apex", "TeX", "C", "C++", "Objective-C"}
	f.Fuzz(func(t *testing.T, content []byte) {
		if len(content) > classifyBytes {
			content = content[:classifyBytes]
		}
		tokens := classifierTokens(content)
		if len(tokens) > 3*len(content) {
			t.Fatalf("%d tokens from %d bytes", len(tokens), len(content))
		}
		for _, tok := range tokens {
			if tok == "" {
				t.Fatal("empty token")
			}
		}
		first := classifyLanguages("", content, cands)
		if len(first) != len(cands) || !slices.Equal(first, classifyLanguages("", content, cands)) {
			t.Fatalf("classifyLanguages = %q, then a different answer", first)
		}
	})
}
