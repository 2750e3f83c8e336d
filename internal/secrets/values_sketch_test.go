package secrets

import (
	"bytes"
	"crypto/rand"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// sketchKeys are two random 32-byte keys: the sketch's and the digests'.
func sketchKeys(t testing.TB) (sk, dk []byte) {
	sk, dk = make([]byte, 32), make([]byte, 32)
	rand.Read(sk)
	rand.Read(dk)
	return sk, dk
}

// finderFor is the finder a refresh makes from what a state keeps of vals.
func finderFor(t testing.TB, vals *Values) *SketchFinder {
	t.Helper()
	sk, dk := sketchKeys(t)
	sketch, err := vals.Sketch(sk)
	if err != nil {
		t.Fatal(err)
	}
	digests, err := vals.Digests(dk)
	if err != nil {
		t.Fatal(err)
	}
	f, err := NewSketchFinder(sk, dk, sketch, digests)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// holdsAny is the finder's oracle: does text contain any value of the set?
func holdsAny(vals *Values, text []byte) bool {
	for v := range vals.rules {
		if bytes.Contains(text, []byte(v)) {
			return true
		}
	}
	return false
}

func TestSketchFinder(t *testing.T) {
	token := "tok_" + strings.Repeat("Zq9", 6)                  // 22 bytes
	pass := "Kq7$xw9zPr2!"                                      // 12
	long := strings.Repeat("ab1-", 200) + "end"                 // 803
	filler := strings.Repeat("plain words, line 0123\n", 20000) // 460 KB: blocks of 256 KiB
	vals := NewValues()
	for _, v := range []string{token, pass, long} {
		vals.Add("generic-api-key", []byte(v))
	}
	f := finderFor(t, vals)
	at := func(off int, v string) string { return filler[:off] + v + filler[off:] }
	for _, tc := range []struct {
		name, text string
		want       bool
	}{
		{"empty", "", false},
		{"only the value", token, true},
		{"at the start", token + filler, true},
		{"at the end", filler + pass, true},
		{"in the middle", at(len(filler)/2, pass), true},
		{"across the first block's end", at(sketchBlockBytes-5, token), true},
		{"the long one across a block's end", at(sketchBlockBytes-400, long), true},
		{"ending at the block's end", at(sketchBlockBytes-len(pass), pass), true},
		{"starting at the block's end", at(sketchBlockBytes, pass), true},
		{"one byte changed", at(1000, token[:10]+"X"+token[11:]), false},
		{"a prefix only", filler + token[:len(token)-1], false},
		{"the long one cut short", at(sketchBlockBytes-400, long[:len(long)-1]), false},
		{"none", filler, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if want := holdsAny(vals, []byte(tc.text)); want != tc.want {
				t.Fatalf("the case is wrong: the text holds a value: %v", want)
			}
			got, err := f.Holds(t.Context(), strings.NewReader(tc.text))
			if err != nil || got != tc.want {
				t.Errorf("Holds = %v, %v; want %v", got, err, tc.want)
			}
		})
	}
}

// TestSketchAnotherKey: a finder made with keys other than the state's
// finds nothing (a sketch or digest under one key says nothing under
// another).
func TestSketchAnotherKey(t *testing.T) {
	vals := NewValues()
	vals.Add("generic-api-key", []byte("Kq7$xw9zPr2!"))
	sk, dk := sketchKeys(t)
	sketch, _ := vals.Sketch(sk)
	digests, _ := vals.Digests(dk)
	other, _ := sketchKeys(t)
	for name, keys := range map[string][2][]byte{"same": {sk, dk}, "another digest key": {sk, other}, "another sketch key": {other, dk}} {
		f, err := NewSketchFinder(keys[0], keys[1], sketch, digests)
		if err != nil {
			t.Fatal(err)
		}
		got, err := f.Holds(t.Context(), strings.NewReader("x = Kq7$xw9zPr2!\n"))
		if err != nil || got != (name == "same") {
			t.Errorf("%s: Holds = %v, %v", name, got, err)
		}
	}
}

func TestSketchMalformed(t *testing.T) {
	sk, dk := sketchKeys(t)
	for name, tc := range map[string]struct {
		sketch  []uint64
		digests []string
		key     []byte
	}{
		"a length under the shortest value": {sketch: []uint64{7 << (2 * sketchBits)}},
		"a length over the longest":         {sketch: []uint64{(maxValueBytes + 1) << (2 * sketchBits)}},
		"a short digest":                    {digests: []string{"abcd"}},
		"a long digest":                     {digests: []string{strings.Repeat("ab", 17)}},
		"a digest not hex":                  {digests: []string{strings.Repeat("zz", 16)}},
		"a short key":                       {key: []byte("short")},
	} {
		key := sk
		if tc.key != nil {
			key = tc.key
		}
		if _, err := NewSketchFinder(key, dk, tc.sketch, tc.digests); err == nil {
			t.Errorf("%s: no error", name)
		} else if tc.key == nil && !errors.Is(err, ErrSketch) {
			t.Errorf("%s: %v, want ErrSketch", name, err)
		}
	}
}

// FuzzSketchFinder: Holds says whether the text holds a value of the set,
// as bytes.Contains over the set's values does.
func FuzzSketchFinder(f *testing.F) {
	f.Add("Kq7$xw9zPr2!\nanother-Value-123", "a = Kq7$xw9zPr2!", 0)
	f.Add("Kq7$xw9zPr2!", "Kq7$xw9zPr2", 3)
	f.Add("AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\nBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB9", "xxAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAxx", 2)
	f.Fuzz(func(t *testing.T, values, text string, repeat int) {
		vals := NewValues()
		for v := range strings.SplitSeq(values, "\n") {
			vals.Add("generic-api-key", []byte(v))
		}
		// Repeated, the text spans several blocks.
		body := []byte(strings.Repeat(text, 1+min(max(repeat, 0), 8)*(sketchBlockBytes/(len(text)+1))/8))
		f := finderFor(t, vals)
		got, err := f.Holds(t.Context(), bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		want := holdsAny(vals, body)
		if got != want {
			t.Fatalf("Holds = %v, want %v (%d values, %d bytes)", got, want, vals.Len(), len(body))
		}
		if in := f.HoldsIn(body); in != want {
			t.Fatalf("HoldsIn = %v, want %v", in, want)
		}
	})
}

// TestSketchCrowded: thousands of values sharing their first bytes, and a
// text that repeats those bytes, cost Holds a bounded number of checks a
// byte; past the bound it says yes (the caller then reads everything).
func TestSketchCrowded(t *testing.T) {
	vals := NewValues()
	for i := range 20000 {
		vals.Add("generic-api-key", fmt.Appendf(nil, "AAAAAAAA%08d", i))
	}
	f := finderFor(t, vals)
	text := strings.Repeat("AAAAAAAA", 1<<17) // 1 MiB holding none of them
	// (Every value ends in digits, so none occurs in it.)
	// Checking every value at every byte would be 20,000 checks a byte;
	// the bound stops it and says yes, which only an unbounded walk
	// could have turned into the right no.
	if held, err := f.Holds(t.Context(), strings.NewReader(text)); err != nil || !held {
		t.Fatalf("Holds = %v, %v; want yes, crowded", held, err)
	}
	// Sparse matches stay exact: one value among plain text is found, none is not.
	for _, tc := range []struct {
		text string
		want bool
	}{{"x AAAAAAAA00000042 y", true}, {"x AAAAAAAA0000004 y", false}} {
		if held, err := f.Holds(t.Context(), strings.NewReader(tc.text)); err != nil || held != tc.want {
			t.Errorf("%q: Holds = %v, %v", tc.text, held, err)
		}
	}
}

func BenchmarkSketchFinder(b *testing.B) {
	vals := NewValues()
	for i := range 200 {
		vals.Add("generic-api-key", []byte(strings.Repeat("k", 8+i%30)+"9Zq"))
	}
	f := finderFor(b, vals)
	text := []byte(strings.Repeat("func main() { fmt.Println(\"hello, world\") } // 0123\n", 600)) // 31 KB, like fmt/print.go
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		if ok, err := f.Holds(b.Context(), bytes.NewReader(text)); ok || err != nil {
			b.Fatal(ok, err)
		}
	}
}

// BenchmarkSketchNames: the names a replay publishes unread (paths, link
// targets) checked one by one, as refresh.Prior.NoValueInNames does.
func BenchmarkSketchNames(b *testing.B) {
	vals := NewValues()
	for i := range 200 {
		vals.Add("generic-api-key", []byte(strings.Repeat("k", 8+i%30)+"9Zq"))
	}
	f := finderFor(b, vals)
	name := []byte("src/internal/service/handlers/user_profile_test.go")
	for b.Loop() {
		if f.HoldsIn(name) {
			b.Fatal("held")
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "names/s")
}
