package trigram

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// TestUpdateWithEditsInPlace: when every kept file keeps its id (edits in
// place, the last files deleted, files added after the last), UpdateWith
// decodes only the lists an id joins or leaves, an edited file compared
// with what prev indexed under its id, and still writes the index a
// build writes: over random trees whose edits keep most of a file's
// trigrams, drop some, add some, empty a file or fill an empty one, with
// several edited files sharing trigrams.
func TestUpdateWithEditsInPlace(t *testing.T) {
	defer func(n int) { maxPairs = n }(maxPairs)
	maxPairs = 1 << 14
	rng := rand.New(rand.NewPCG(5, 6))
	words := []string{"func", "main", "return", "x", "y := 1", "\n", "// note", "αβγ", "\x00\x01", "if err != nil {", "zebra", "quux"}
	text := func(n int) string {
		var b bytes.Buffer
		for range n {
			b.WriteString(words[rng.IntN(len(words))])
		}
		return b.String()
	}
	edit := func(s string) string {
		switch rng.IntN(5) {
		case 0:
			return ""
		case 1:
			return s + text(2) // grows: only joins
		case 2:
			if len(s) > 4 {
				return s[:len(s)/2] // shrinks: only leaves
			}
			return text(3)
		default:
			return text(1) + s[min(len(s), 3):] + text(1) // both
		}
	}
	for round := range 50 {
		prev := map[string]string{}
		n := 2 + rng.IntN(25)
		for i := range n {
			prev[fmt.Sprintf("f%03d.txt", i)] = text(rng.IntN(30))
		}
		next := map[string]string{}
		deleted := rng.IntN(3) // the last files
		for i := range n - deleted {
			p := fmt.Sprintf("f%03d.txt", i)
			next[p] = prev[p]
			if rng.IntN(3) == 0 {
				next[p] = edit(prev[p])
			}
		}
		for i := range rng.IntN(3) {
			next[fmt.Sprintf("g%03d.txt", i)] = text(rng.IntN(20)) // after the last
		}
		u := newUpdateCase(t, prev, next)
		got := filepath.Join(u.dir, fmt.Sprintf("with-%d", round))
		if err := UpdateWith(context.Background(), u.pix, u.next, u.from, u.oldOf, got); err != nil {
			t.Fatal(err)
		}
		if data, _ := os.ReadFile(got); !bytes.Equal(data, u.built) {
			t.Fatalf("round %d: UpdateWith (%d of %d files read, %d deleted) differs from a build", round, u.read, len(u.next), deleted)
		}
	}
}

func TestDiffSets(t *testing.T) {
	for _, tc := range []struct {
		name        string
		now, before []uint32
		added       []uint32
		left        []uint64
	}{
		{"same", []uint32{3, 1, 2}, []uint32{2, 3, 1}, []uint32{}, nil},
		{"joins", []uint32{5, 1}, []uint32{1}, []uint32{5}, nil},
		{"leaves", []uint32{1}, []uint32{9, 1}, []uint32{}, []uint64{9<<32 | 7}},
		{"both", []uint32{4, 2, 8}, []uint32{8, 1, 3}, []uint32{2, 4}, []uint64{1<<32 | 7, 3<<32 | 7}},
		{"emptied", nil, []uint32{1, 2}, nil, []uint64{1<<32 | 7, 2<<32 | 7}},
		{"filled", []uint32{2, 1}, nil, []uint32{1, 2}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			added, left := diffSets(tc.now, tc.before, nil, 7)
			if fmt.Sprint(added) != fmt.Sprint(tc.added) || fmt.Sprint(left) != fmt.Sprint(tc.left) {
				t.Errorf("diffSets = %v, %v; want %v, %v", added, left, tc.added, tc.left)
			}
		})
	}
}
