package secrets

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// windowsOneWalk is windows as it was before the walk went by segments and
// appended its reports: one walk over the whole content (one chain), each
// occurrence handed to the window code as it is found. The reference the
// segmented walk must agree with.
func (s *Scanner) windowsOneWalk(content []byte) ([][]window, [][]int) {
	wins, hits := make([][]window, len(s.rules)), make([][]int, len(s.rules))
	for _, ri := range s.always {
		wins[ri] = []window{{start: 0, end: len(content)}}
	}
	if s.kw == nil || len(content) == 0 {
		return wins, hits
	}
	lines := lineCache{content: content, start: -1}
	s.kw.walkFrom(content, 0, func(last, n, pattern int) {
		pos := last - n + 1
		for _, ri := range s.byKw[pattern] {
			r := &s.rules[ri]
			before := len(wins[ri])
			wins[ri] = addWindow(wins[ri], s.window(&lines, pos, r))
			if r.gate.anchored != nil {
				hits[ri] = append(hits[ri], pos)
				w := &wins[ri][len(wins[ri])-1]
				if len(wins[ri]) > before {
					w.h0 = len(hits[ri]) - 1
				}
				w.h1 = len(hits[ri])
			}
		}
	})
	return wins, hits
}

// checkWindows compares windows with windowsOneWalk on content, for
// segments of seg bytes and the split walk from split bytes on.
func checkWindows(t *testing.T, s *Scanner, content []byte, seg, split int) {
	t.Helper()
	defer func(seg, split int) { walkSegmentBytes, minSplitWalk = seg, split }(walkSegmentBytes, minSplitWalk)
	walkSegmentBytes, minSplitWalk = seg, split
	wantWins, wantHits := s.windowsOneWalk(content)
	set := s.windows(content)
	defer s.putWindows(set)
	for ri := range s.rules {
		if len(set.wins[ri])+len(wantWins[ri]) == 0 {
			continue
		}
		if !reflect.DeepEqual(set.wins[ri], wantWins[ri]) || fmt.Sprint(set.hits[ri]) != fmt.Sprint(wantHits[ri]) {
			t.Fatalf("segments of %d, split from %d: rule %s: windows %v hits %v, one walk %v %v",
				seg, split, s.rules[ri].id, set.wins[ri], set.hits[ri], wantWins[ri], wantHits[ri])
		}
	}
}

// The keyword walk by segments, each split in quarters, gives every rule the
// windows and hits one walk over the whole content gives: keywords across
// segment and quarter edges, dense keywords, long lines, the pool's reuse.
func TestWindowsBySegments(t *testing.T) {
	s := defaultScanner(t)
	rng := rand.New(rand.NewPCG(3, 9))
	words := []string{"password", "token", "KEY", "13", "+1", "10.", "192.168.", "-----BEGIN", "eyJ", "api_key", " ", "\n", "=", "x", "é", "://"}
	var b strings.Builder
	for b.Len() < 200<<10 {
		b.WriteString(words[rng.IntN(len(words))])
	}
	content := []byte(b.String())
	for _, c := range []struct{ seg, split int }{{256 << 10, 1 << 10}, {1, 8}, {7, 8}, {64, 8}, {100, 1 << 30}, {4096, 64}, {33 << 10, 1 << 10}} {
		checkWindows(t, s, content, c.seg, c.split)
	}
	for _, f := range goSrcFilesEvery(t, 97, 1<<20) {
		checkWindows(t, s, f, 4<<10, 1<<10)
	}
}

// FuzzWindowsBySegments: the same for any content and segment size.
func FuzzWindowsBySegments(f *testing.F) {
	s := defaultScanner(f)
	f.Add([]byte("password=hunter2 token: 13912345678 KEY=abc"), uint16(5))
	f.Add([]byte(strings.Repeat("api_key1313", 40)), uint16(1))
	f.Fuzz(func(t *testing.T, content []byte, seg uint16) {
		if len(content) > 64<<10 {
			return
		}
		checkWindows(t, s, content, 1+int(seg)%512, 8)
	})
}

// candidatesUngated is candidates with every gate open: the regexes decide
// alone.
func candidatesUngated(s *Scanner, content []byte, path string) []candidate {
	defer func(old bool) { useGates = old }(useGates)
	useGates = false
	c, _ := s.candidates(context.Background(), content, s.pathSkips(path), path)
	return c
}

// The gates (bounded runs among them) drop no candidate: the scan with them
// finds what the scan without them finds, on GOROOT/src's files (every
// 7th) and on any content.
func TestGatesKeepCandidates(t *testing.T) {
	s := defaultScanner(t)
	files := goSrcFilesEvery(t, 7, 1<<20)
	if testing.Short() {
		files = goSrcFilesEvery(t, 61, 64<<10)
	}
	found := 0
	for _, f := range files {
		got, _ := s.candidates(context.Background(), f, nil, "x.go")
		want := candidatesUngated(s, f, "x.go")
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("gated candidates %v, ungated %v", got, want)
		}
		found += len(got)
	}
	t.Logf("%d files, %d candidates", len(files), found)
}

// FuzzGatesKeepCandidates: the same for any content.
func FuzzGatesKeepCandidates(f *testing.F) {
	s := defaultScanner(f)
	f.Add([]byte("tel: 13912345678, id 18446744073709551615\nAKIAIOSFODNN7EXAMPLE\n"), "a.txt")
	f.Add([]byte("password = \"Xk9#mQ2$vL\"\nphone=+8613912345678"), "x.go")
	f.Fuzz(func(t *testing.T, content []byte, path string) {
		if len(content) > 16<<10 {
			return
		}
		got, _ := s.candidates(context.Background(), content, s.pathSkips(path), path)
		if want := candidatesUngated(s, content, path); !reflect.DeepEqual(got, want) {
			t.Fatalf("gated candidates %v, ungated %v", got, want)
		}
	})
}

// windowsFor gives the rules it does not skip the windows windows gives
// them, and the skipped keyword rules none (the scan runs none of them).
func TestWindowsForSkips(t *testing.T) {
	s := defaultScanner(t)
	content := []byte("tel 13912345678 password = \"hunter22hunter\" token: abcdefghijklmnopqrstuv 192.168.1.20\n")
	skip := make([]bool, len(s.rules))
	for i := range s.rules {
		skip[i] = i%3 != 0 || s.rules[i].id == "cn-mobile"
	}
	all := s.windows(content)
	wantWins := make([][]window, len(s.rules))
	for ri := range s.rules {
		wantWins[ri] = append([]window(nil), all.wins[ri]...)
	}
	s.putWindows(all)
	some := s.windowsFor(content, skip)
	defer s.putWindows(some)
	for ri, r := range s.rules {
		switch {
		case skip[ri] && len(some.wins[ri]) > 0 && !slices.Contains(s.always, ri):
			t.Errorf("%s skipped, has %d windows", r.id, len(some.wins[ri]))
		case !skip[ri] && !slices.Equal(some.wins[ri], wantWins[ri]):
			t.Errorf("%s: windows %v, want %v", r.id, some.wins[ri], wantWins[ri])
		}
	}
}
