package tokens

import (
	"testing"
)

// FuzzPackShort: two pieces share a key only when they are equal, and a
// key never sets the count's bits.
func FuzzPackShort(f *testing.F) {
	f.Add("abc", "abcd")
	f.Add("\x00", "\x00\x00")
	f.Add(" return", " retur")
	f.Fuzz(func(t *testing.T, a, b string) {
		if len(a) == 0 || len(a) > maxShortPieceBytes || len(b) == 0 || len(b) > maxShortPieceBytes {
			return
		}
		ka, kb := packShort(a), packShort(b)
		if ka>>countShift != 0 {
			t.Fatalf("packShort(%q) sets count bits: %#x", a, ka)
		}
		if (ka == kb) != (a == b) {
			t.Fatalf("%q and %q: keys %#x and %#x", a, b, ka, kb)
		}
	})
}

// TestPieceCache: what is put is got back, short and long, and a slot
// overwritten by a third piece in the same bucket loses only a memo.
func TestPieceCache(t *testing.T) {
	c := newPieceCache(1, 1) // one bucket of each kind: every piece collides
	pieces := map[string]int{" if": 1, " return": 1, "abcdefg": 3, " interface": 1, "0123456789abcdef": 9}
	for p, n := range pieces {
		if _, ok := c.get(p); ok {
			t.Errorf("get(%q) hit in an empty cache", p)
		}
		c.put(p, n)
		if got, ok := c.get(p); !ok || got != n {
			t.Errorf("get(%q) right after put = %d, %v; want %d, true", p, got, ok, n)
		}
	}
	for p, n := range pieces {
		if got, ok := c.get(p); ok && got != n {
			t.Errorf("get(%q) = %d, want %d", p, got, n)
		}
	}
}
