package serve

import (
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/repoprep/repoprep/internal/testkit"
	"github.com/repoprep/repoprep/internal/tokens"
)

func TestReadFileGolden(t *testing.T) {
	srv, _ := newTestServer(t, nil, Options{})
	text, _, err := read(t, srv, ReadFileArgs{Files: []FileRequest{
		{Path: "src/app/main.go"},
		{Path: "big.txt", Ranges: [][]int{{800, 900}, {10, 12}, {13, 14}}},
		{Path: "vendor/copy.go"},
		{Path: "nonl.txt"},
		{Path: "empty.txt"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	testkit.Golden(t, filepath.Join("testdata", "golden", "read_file.txt"), []byte(text))
}

func TestReadFile(t *testing.T) {
	srv, _ := newTestServer(t, nil, Options{})
	tests := []struct {
		name    string
		args    ReadFileArgs
		want    []string // substrings of the text
		notWant []string
		check   func(t *testing.T, res ReadFileResult)
		wantErr error
	}{
		{
			name: "numbered lines and trailer",
			args: ReadFileArgs{Files: []FileRequest{{Path: "src/app/main.go"}}},
			want: []string{"   1 | package main\n", "   4 | \tprintln(\"hi\")\n", "[file: src/app/main.go | total: 5 lines | shown: 1-5]\n"},
			check: func(t *testing.T, res ReadFileResult) {
				if res.Files[0].Next != 0 || res.Cut {
					t.Errorf("read to the end has next %d, cut %v", res.Files[0].Next, res.Cut)
				}
			},
		},
		{
			name:    "unranged read stops at max lines",
			args:    ReadFileArgs{Files: []FileRequest{{Path: "big.txt"}}},
			want:    []string{" 500 | line 500 of big\n", "[file: big.txt | total: 812 lines | shown: 1-500 | next: start 501]"},
			notWant: []string{"line 501 of big"},
		},
		{
			name:    "ranges are 1-based inclusive and merged",
			args:    ReadFileArgs{Files: []FileRequest{{Path: "big.txt", Ranges: [][]int{{20, 22}, {10, 15}, {14, 19}, {30, 30}}}}},
			want:    []string{"  10 | line 10 of big\n", "  22 | line 22 of big\n", "  30 | line 30 of big\n", "shown: 10-22, 30 | next: start 31"},
			notWant: []string{"line 9 of", "line 23 of", "line 31 of"},
			check: func(t *testing.T, res ReadFileResult) {
				if want := [][]int{{10, 22}, {30, 30}}; !reflect.DeepEqual(res.Files[0].Shown, want) {
					t.Errorf("shown = %v, want %v", res.Files[0].Shown, want)
				}
			},
		},
		{
			name: "range past the end is clamped",
			args: ReadFileArgs{Files: []FileRequest{{Path: "big.txt", Ranges: [][]int{{810, 900}}}}},
			want: []string{" 812 | line 812 of big\n", "shown: 810-812]"},
		},
		{
			name: "range starting past the end says so",
			args: ReadFileArgs{Files: []FileRequest{{Path: "big.txt", Ranges: [][]int{{900, 950}}}}},
			want: []string{"shown: none | past the end: 900-950]"},
		},
		{
			name:    "long lines are cut with a marker",
			args:    ReadFileArgs{Files: []FileRequest{{Path: "long.txt"}}},
			want:    []string{strings.Repeat("x", 2000) + " […line cut: 500 more characters]\n", "   2 | short\n"},
			notWant: []string{strings.Repeat("x", 2001)},
		},
		{
			name: "last line without newline",
			args: ReadFileArgs{Files: []FileRequest{{Path: "nonl.txt"}}},
			want: []string{"   2 | two\n[file: nonl.txt | total: 2 lines | shown: 1-2]"},
		},
		{
			name: "empty file",
			args: ReadFileArgs{Files: []FileRequest{{Path: "empty.txt"}}},
			want: []string{"[file: empty.txt | total: 0 lines | shown: none]"},
		},
		{
			name: "duplicate serves its canonical copy and says so",
			args: ReadFileArgs{Files: []FileRequest{{Path: "vendor/copy.go"}}},
			want: []string{"   4 | func helper() int { return 42 }\n", "[file: vendor/copy.go | duplicate of: src/app/util.go (same content, served from there) | total: 4 lines"},
			check: func(t *testing.T, res ReadFileResult) {
				if res.Files[0].DuplicateOf != "src/app/util.go" {
					t.Errorf("duplicate_of = %q", res.Files[0].DuplicateOf)
				}
			},
		},
		{
			name:    "oversize without ranges is refused",
			args:    ReadFileArgs{Files: []FileRequest{{Path: "dump.sql"}}},
			wantErr: ErrBadRequest,
		},
		{
			name: "oversize by range",
			args: ReadFileArgs{Files: []FileRequest{{Path: "dump.sql", Ranges: [][]int{{2999, 3000}}}}},
			want: []string{"2999 | line 2999 of dump\n3000 | line 3000 of dump\n[file: dump.sql | total: 3000 lines | shown: 2999-3000]"},
		},
		{
			name: "budget cut at a whole line, with where to continue",
			args: ReadFileArgs{Files: []FileRequest{{Path: "big.txt"}}, BudgetTokens: 300},
			want: []string{"| cut: token budget]"},
			check: func(t *testing.T, res ReadFileResult) {
				f := res.Files[0]
				if f.Cut != "token budget" || !res.Cut || len(f.Shown) != 1 || f.Next != f.Shown[0][1]+1 {
					t.Errorf("cut read = %+v", f)
				}
			},
		},
		{
			name: "a first line bigger than the budget says so",
			args: ReadFileArgs{Files: []FileRequest{{Path: "cjk.md"}}, BudgetTokens: 300},
			want: []string{"shown: none | next: start 1 | cut: token budget (line 1 alone needs"},
		},
		{
			name: "files after the budget is spent are not read",
			args: ReadFileArgs{Files: []FileRequest{{Path: "big.txt"}, {Path: "nonl.txt"}}, BudgetTokens: 400},
			want: []string{"[file: nonl.txt | not read: token budget spent; read it in another call]"},
			check: func(t *testing.T, res ReadFileResult) {
				if !res.Files[1].NotRead {
					t.Error("second file not marked not_read")
				}
			},
		},
		{name: "too many files", args: ReadFileArgs{Files: make([]FileRequest, 6)}, wantErr: ErrBadRequest},
		{name: "no files", args: ReadFileArgs{}, wantErr: ErrBadRequest},
		{name: "budget over the ceiling", args: ReadFileArgs{Files: []FileRequest{{Path: "nonl.txt"}}, BudgetTokens: 1 << 20}, wantErr: ErrBadRequest},
		{name: "budget under the floor", args: ReadFileArgs{Files: []FileRequest{{Path: "nonl.txt"}}, BudgetTokens: 5}, wantErr: ErrBadRequest},
		{name: "zero line", args: ReadFileArgs{Files: []FileRequest{{Path: "big.txt", Ranges: [][]int{{0, 5}}}}}, wantErr: ErrBadRequest},
		{name: "backwards range", args: ReadFileArgs{Files: []FileRequest{{Path: "big.txt", Ranges: [][]int{{9, 5}}}}}, wantErr: ErrBadRequest},
		{name: "range of one number", args: ReadFileArgs{Files: []FileRequest{{Path: "big.txt", Ranges: [][]int{{9}}}}}, wantErr: ErrBadRequest},
		{name: "directory", args: ReadFileArgs{Files: []FileRequest{{Path: "src/app"}}}, wantErr: ErrRefused},
		{name: "not staged", args: ReadFileArgs{Files: []FileRequest{{Path: "link-out"}}}, wantErr: ErrNotFound},
		{name: "every path bad fails the call", args: ReadFileArgs{Files: []FileRequest{{Path: "nope.txt"}, {Path: "../x"}}}, wantErr: ErrNotFound},
		{
			name: "path with spaces",
			args: ReadFileArgs{Files: []FileRequest{{Path: "a b/spaced name.txt"}}},
			want: []string{"   1 | spaces are fine\n"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text, res, err := read(t, srv, tt.args)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err = %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.want {
				if !strings.Contains(text, w) {
					t.Errorf("answer lacks %q:\n%s", w, text)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(text, w) {
					t.Errorf("answer has %q", w)
				}
			}
			if tt.check != nil {
				tt.check(t, res)
			}
			if n := tokens.Count(text); n > res.BudgetTokens {
				t.Errorf("answer is %d tokens, budget %d", n, res.BudgetTokens)
			}
		})
	}
}

func TestReadFileNotFoundSuggests(t *testing.T) {
	srv, _ := newTestServer(t, nil, Options{})
	tests := map[string]string{
		"src/app/mian.go":  "src/app/main.go", // edit distance
		"main.go":          "src/app/main.go", // same base name elsewhere
		"lib/util.go":      "src/app/util.go", // same base name
		"docs/guide.mdx":   "docs/guide.md",   // extension typo
		"src/app/copy.go":  "vendor/copy.go",  // duplicates are readable too
		"zzzzzzzzzzzzzzz":  "no similar path", // nothing close
		"big.tx":           "big.txt",         // near miss
		"src/app/Main.go":  "src/app/main.go", // case
		"src/ap/main.go":   "src/app/main.go", // directory typo
		"src/app/main.g":   "src/app/main.go", // truncated
		"src/app/mains.go": "src/app/main.go", // extra letter
	}
	for name, want := range tests {
		_, _, err := read(t, srv, ReadFileArgs{Files: []FileRequest{{Path: name}}})
		if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), want) {
			t.Errorf("read %q: err = %v, want not found mentioning %q", name, err, want)
		}
		if err != nil && strings.Count(err.Error(), ",") > 2 {
			t.Errorf("read %q: more than three suggestions: %v", name, err)
		}
	}
}

// No answer may exceed its budget, counted with the same tokenizer, for any
// mix of files and budgets, and every shown line is a whole line of the file.
func TestReadFileBudgetNeverExceeded(t *testing.T) {
	s := baseSnap()
	var mixed strings.Builder
	for i := range 700 {
		fmt.Fprintf(&mixed, "%d\t混合 text %s  \"quoted\" {x: %d}\n", i, strings.Repeat("ab ", i%13), i*i)
	}
	s.files["mixed.txt"] = mixed.String()
	srv, _ := newTestServer(t, &s, Options{})
	sets := [][]FileRequest{
		{{Path: "big.txt"}},
		{{Path: "mixed.txt"}},
		{{Path: "cjk.md"}},
		{{Path: "long.txt"}, {Path: "mixed.txt"}},
		{{Path: "mixed.txt", Ranges: [][]int{{1, 100}, {300, 700}}}, {Path: "big.txt"}, {Path: "vendor/copy.go"}, {Path: "nonl.txt"}, {Path: "dump.sql", Ranges: [][]int{{1, 3000}}}},
	}
	for _, files := range sets {
		for _, budget := range []int{100, 101, 137, 250, 333, 512, 1000, 1999, 4096, 8000, 20000, 32000} {
			text, res, err := read(t, srv, ReadFileArgs{Files: files, BudgetTokens: budget})
			if errors.Is(err, ErrBadRequest) && budget < 60*len(files) {
				continue // too small for the trailers: refused, never exceeded
			}
			if err != nil {
				t.Fatalf("%d files, budget %d: %v", len(files), budget, err)
			}
			if n := tokens.Count(text); n > budget {
				t.Errorf("%d files, budget %d: answer is %d tokens", len(files), budget, n)
			}
			if res.Tokens > budget {
				t.Errorf("budget %d: charged %d tokens", budget, res.Tokens)
			}
			for _, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
				if !strings.HasPrefix(line, "[file: ") && !strings.Contains(line, " | ") {
					t.Errorf("budget %d: broken line %q", budget, line)
				}
			}
		}
	}
}

// TestReadFileNextSkipsGaps: when the budget cuts a ranged read, the next
// start is a line that was asked for, never one in the gap between ranges.
func TestReadFileNextSkipsGaps(t *testing.T) {
	srv, _ := newTestServer(t, nil, Options{})
	sawGapEdge := false
	for budget := minBudgetTokens; budget <= 600; budget++ {
		_, res, err := read(t, srv, ReadFileArgs{Files: []FileRequest{{Path: "big.txt", Ranges: [][]int{{1, 40}, {200, 300}}}}, BudgetTokens: budget})
		if errors.Is(err, ErrBadRequest) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		f := res.Files[0]
		if f.Next > 40 && f.Next < 200 {
			t.Fatalf("budget %d: shown %v, next %d lies in the gap between the ranges", budget, f.Shown, f.Next)
		}
		if reflect.DeepEqual(f.Shown, [][]int{{1, 40}}) && f.Next == 200 {
			sawGapEdge = true
		}
	}
	if !sawGapEdge {
		t.Error("no budget cut the read right after the first range; the test proves nothing")
	}
}

func TestMergeRanges(t *testing.T) {
	tests := []struct {
		in   [][]int
		want [][2]int
	}{
		{nil, nil},
		{[][]int{{5, 9}}, [][2]int{{5, 9}}},
		{[][]int{{5, 9}, {10, 12}}, [][2]int{{5, 12}}},                    // adjacent
		{[][]int{{5, 9}, {7, 8}}, [][2]int{{5, 9}}},                       // contained
		{[][]int{{20, 30}, {1, 2}, {25, 40}}, [][2]int{{1, 2}, {20, 40}}}, // unsorted, overlapping
		{[][]int{{1, 1}, {3, 3}}, [][2]int{{1, 1}, {3, 3}}},               // gap of one line stays
	}
	for _, tt := range tests {
		got, err := mergeRanges(tt.in)
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("mergeRanges(%v) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
}

// TestReadTrailerSaysMasked: a file whose staged text has masked spans says
// so in its trailer, where the agent reads it; a duplicate served from it
// too. A file with none says nothing of the kind.
func TestReadTrailerSaysMasked(t *testing.T) {
	s := baseSnap()
	s.files["config/app.env"] = "API_TOKEN=[REDACTED:github-token]\nDB=[REDACTED:password-assignment]\n"
	s.dups["config/copy.env"] = "config/app.env"
	s.masked = map[string]int{"config/app.env": 2}
	srv, _ := newTestServer(t, &s, Options{})
	text, _, err := read(t, srv, ReadFileArgs{Files: []FileRequest{{Path: "config/app.env"}, {Path: "config/copy.env"}, {Path: "nonl.txt"}}})
	if err != nil {
		t.Fatal(err)
	}
	want := "[file: config/app.env | total: 2 lines | masked: 2 secrets as [REDACTED:<rule>] | shown: 1-2]"
	if !strings.Contains(text, want) {
		t.Errorf("no %q in\n%s", want, text)
	}
	if n := strings.Count(text, "| masked: 2 secrets"); n != 2 {
		t.Errorf("%d trailers say masked, want 2 (the file and its duplicate):\n%s", n, text)
	}
}

// TestReadTrailerNamesEncoding: a file decoded from another encoding says
// which in its trailer (and in encoding), so an agent that edits it knows
// the original is not UTF-8; a duplicate served from it says so too, and a
// UTF-8 file says nothing.
func TestReadTrailerNamesEncoding(t *testing.T) {
	s := baseSnap()
	s.files["legacy/latin.py"] = "NAME = \"café\"\nGREETING = \"ça va\"\n" // staged as UTF-8, decoded from windows-1252
	s.dups["legacy/copy.py"] = "legacy/latin.py"
	srv, _ := newTestServer(t, &s, Options{})
	srv.cur.byPath["legacy/latin.py"].Encoding = "windows-1252" // as files.json says of a decoded file
	text, res, err := read(t, srv, ReadFileArgs{Files: []FileRequest{{Path: "legacy/latin.py"}, {Path: "legacy/copy.py"}, {Path: "nonl.txt"}}})
	if err != nil {
		t.Fatal(err)
	}
	want := "[file: legacy/latin.py | total: 2 lines | encoding: windows-1252, shown as UTF-8 | shown: 1-2]"
	if !strings.Contains(text, want) {
		t.Errorf("no %q in\n%s", want, text)
	}
	if n := strings.Count(text, "encoding: windows-1252"); n != 2 {
		t.Errorf("%d trailers name the encoding, want 2 (the file and its duplicate):\n%s", n, text)
	}
	if got := []string{res.Files[0].Encoding, res.Files[1].Encoding, res.Files[2].Encoding}; !reflect.DeepEqual(got, []string{"windows-1252", "windows-1252", ""}) {
		t.Errorf("encoding fields = %q", got)
	}
}
