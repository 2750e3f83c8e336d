package secrets

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"
)

// The value pass finds the same spans with the table automaton as with the
// library's trie, and with its pre-filter as without,
// across block boundaries (small blocks), for values that sit at a block's
// edges, overlap each other or occur nowhere; and the pre-filter skips
// content that holds none.
func TestValueHeadsChangeNothing(t *testing.T) {
	// 200 rounds in make test's whole pass, the first 60 of them under -short
	// (the race pass).
	rounds := 200
	if testing.Short() {
		rounds = 60
	}
	rng := rand.New(rand.NewPCG(9, 10))
	s, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	for round := range rounds {
		vals := NewValues()
		var values []string
		for range 1 + rng.IntN(6) {
			v := randString(rng, "abcXYZ019+/=-", 6+rng.IntN(40))
			values = append(values, v)
			vals.Add("r", []byte(v))
		}
		var content bytes.Buffer
		for content.Len() < 5000 {
			if rng.IntN(4) == 0 {
				content.WriteString(values[rng.IntN(len(values))])
			} else {
				content.WriteString(randString(rng, "abcXYZ019+/=- \n", 1+rng.IntN(30)))
			}
		}
		m := s.Matcher(vals)
		if m.dfa == nil {
			t.Fatal("no table automaton for a few values")
		}
		block := 64 + rng.IntN(500)
		find := func() string {
			spans, err := m.find(bytes.NewReader(content.Bytes()), block)
			if err != nil {
				t.Fatal(err)
			}
			return fmt.Sprint(spans)
		}
		table := find()
		m.dfa, m.heads = nil, newValueHeads(m.values) // the library's trie, as for many values
		if m.heads == nil {
			t.Fatal("no pre-filter for values of 6 bytes and more")
		}
		with := find()
		m.heads = nil
		without := find()
		if with != without || table != without {
			t.Errorf("round %d: with the pre-filter %v, without %v, with the table %v", round, with, without, table)
		}
	}
	h := newValueHeads([][]byte{[]byte("secret-value")})
	if h.mayHold([]byte("nothing here but sec and ret-value")) || !h.mayHold([]byte("xx secr")) {
		t.Error("mayHold must answer by the first four bytes of a value")
	}
	if newValueHeads([][]byte{[]byte("abc")}) != nil {
		t.Error("a value under four bytes must turn the pre-filter off")
	}
}
