package corpus

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestParseList: PATH or NAME<TAB>PATH, comments and blank lines skipped,
// relative paths from LIST's directory, and a line that would give a bad
// or taken name refused with its number.
func TestParseList(t *testing.T) {
	for _, tc := range []struct {
		name, list string
		want       []Entry
		err        string
	}{
		{"paths", "/src/a\n/src/b/\n", []Entry{{"a", "/src/a"}, {"b", "/src/b/"}}, ""},
		{"names", "x\t/src/a\ny\t/src/a\n", []Entry{{"x", "/src/a"}, {"y", "/src/a"}}, ""},
		{"comments and blanks", "# repos\n\n  # indented\n/src/a\r\n\n", []Entry{{"a", "/src/a"}}, ""},
		{"relative", "a\nsub/b\n", []Entry{{"a", filepath.Join("/lists", "a")}, {"b", filepath.Join("/lists", "sub/b")}}, ""},
		{"spaces trimmed", "  n \t /src/a  \n", []Entry{{"n", "/src/a"}}, ""},
		{"duplicate name", "/x/a\n/y/a\n", nil, "line 2: name \"a\" is taken by line 1"},
		{"duplicate by case", "/x/Foo\n/y/foo\n", nil, "taken by line 1"},
		{"dot name", ".hidden\t/src/a\n", nil, "starts with a dot"},
		{"slash name", "a/b\t/src/a\n", nil, "holds a slash"},
		{"dotdot path", "..\n", nil, "a dot or two dots alone"},
		{"root path", "/\n", nil, "holds a slash"},
		{"no path", "name\t\n", nil, "no PATH after the tab"},
		{"control", "a\x01b\t/src\n", nil, "control character"},
		{"not utf-8", "/src/\xff\n", nil, "not UTF-8"},
		{"empty", "# nothing\n", nil, "names no repository"},
		{"long line", strings.Repeat("a", maxListLine+1), nil, "longer than"},
		{"long name", strings.Repeat("n", maxNameBytes+1) + "\t/x\n", nil, "longer than 200 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseList(strings.NewReader(tc.list), "/lists")
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one saying %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("entry %d: %v, want %v", i, got[i], tc.want[i])
				}
			}
		})
	}
}

// FuzzParseList: whatever LIST holds, ParseList does not panic, and what
// it accepts are plain, unique names (one directory under repos/), with
// paths from LIST's directory; written back out as NAME<TAB>PATH, the
// entries parse to themselves.
func FuzzParseList(f *testing.F) {
	for _, s := range []string{"/src/a\n", "x\t/src/a\n#c\n", "..\n", "a\tb\tc\n", ".\t/x", "A\na\n", "\xff", "a\x00b\n", " \t \n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, list string) {
		if len(list) > 1<<16 {
			return
		}
		got, err := ParseList(strings.NewReader(list), "/lists")
		if err != nil {
			return
		}
		seen := map[string]bool{}
		var out strings.Builder
		for _, e := range got {
			if checkName(e.Name) != nil || !filepath.IsLocal(e.Name) || filepath.Base(e.Name) != e.Name {
				t.Fatalf("name %q accepted", e.Name)
			}
			if seen[strings.ToLower(e.Name)] {
				t.Fatalf("name %q twice", e.Name)
			}
			seen[strings.ToLower(e.Name)] = true
			if !filepath.IsAbs(e.Path) {
				t.Fatalf("path %q not made absolute from /lists", e.Path)
			}
			out.WriteString(e.Name + "\t" + e.Path + "\n")
		}
		again, err := ParseList(strings.NewReader(out.String()), "/elsewhere")
		if err != nil || len(again) != len(got) {
			t.Fatalf("written back %q: %v %v", out.String(), again, err)
		}
		for i := range again {
			if again[i] != got[i] {
				t.Fatalf("written back, entry %d reads %v, was %v", i, again[i], got[i])
			}
		}
	})
}

// TestParseShard: K/N with K from 0 below N.
func TestParseShard(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Shard
		err  string
	}{
		{"0/4", Shard{0, 4}, ""},
		{"3/4", Shard{3, 4}, ""},
		{"0/1", Shard{0, 1}, ""},
		{"4/4", Shard{}, "below N"},
		{"-1/4", Shard{}, "below N"},
		{"1/0", Shard{}, "N must be"},
		{"1", Shard{}, "want K/N"},
		{"a/b", Shard{}, "want K/N"},
		{"0/1000000", Shard{}, "N must be"},
	} {
		got, err := ParseShard(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: error %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%q: %v %v, want %v", tc.in, got, err, tc.want)
		}
	}
	for i, want := range []bool{true, false, false, true, false} {
		if (Shard{0, 3}).owns(i) != want {
			t.Errorf("shard 0/3 owns %d: %v", i, !want)
		}
	}
}
