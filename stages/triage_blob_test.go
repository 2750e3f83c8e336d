package stages

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// encodedBlobByRuns is isEncodedBlob as it was, scanning the whole head:
// the reference for the early stop.
func encodedBlobByRuns(head []byte) bool {
	if len(head) < blobMinBytes {
		return false
	}
	inRuns, run := 0, 0
	var upper, lower, digit bool
	flush := func() {
		if run >= blobRunBytes && upper && lower && digit {
			inRuns += run
		}
		run, upper, lower, digit = 0, false, false, false
	}
	for _, c := range head {
		switch {
		case c >= 'A' && c <= 'Z':
			upper = true
		case c >= 'a' && c <= 'z':
			lower = true
		case c >= '0' && c <= '9':
			digit = true
		case c == '+' || c == '/' || c == '-' || c == '_' || c == '=':
		default:
			flush()
			continue
		}
		run++
	}
	flush()
	return inRuns*4 >= len(head)*3
}

// TestEncodedBlobStopsEarly: the early stop gives the whole scan's answer
// at the three-quarter line (runs covering exactly 3/4, one byte short,
// one over), with runs one byte short of counting, a run that lacks a
// digit, a run still open at the head's end, and on random heads of
// base64 and text.
func TestEncodedBlobStopsEarly(t *testing.T) {
	b64 := func(n int) string { return string(bytes.Repeat([]byte("QUJDabc0+/="), n/11+1))[:n] }
	text := func(n int) string { return string(bytes.Repeat([]byte("a b;\n"), n/5+1))[:n] }
	for _, tc := range []struct {
		name string
		head string
		want bool
	}{
		{"exactly three quarters", b64(3072) + " " + text(1023), true},
		{"one byte short", b64(3071) + " " + text(1024), false},
		{"one byte over", b64(3073) + " " + text(1022), true},
		{"text first", text(1023) + " " + b64(3072), true},
		{"runs of 255", string(bytes.Repeat([]byte(b64(255)+"\n"), 20)), false},
		{"runs of 256", string(bytes.Repeat([]byte(b64(256)+"\n"), 20)), true},
		{"no digit", string(bytes.Repeat([]byte("QUJDabc+/="), 500)), false},
		{"source", text(8192), false},
		{"short", b64(100), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ref := isEncodedBlob([]byte(tc.head)), encodedBlobByRuns([]byte(tc.head))
			if got != ref || got != tc.want {
				t.Errorf("isEncodedBlob = %v, the whole scan %v, want %v", got, ref, tc.want)
			}
		})
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for range 2000 {
		var head []byte
		for len(head) < blobMinBytes+rng.IntN(4096) {
			if rng.IntN(4) == 0 {
				head = append(head, text(rng.IntN(300))...)
			} else {
				head = append(head, b64(rng.IntN(1200))...)
			}
		}
		if got, ref := isEncodedBlob(head), encodedBlobByRuns(head); got != ref {
			t.Fatalf("isEncodedBlob(%d bytes) = %v, the whole scan %v", len(head), got, ref)
		}
	}
}

// FuzzEncodedBlob: the early stop never changes the answer.
func FuzzEncodedBlob(f *testing.F) {
	f.Add([]byte("QUJDabc0+/="), uint16(400))
	f.Add([]byte("a b;\n"), uint16(1000))
	f.Fuzz(func(t *testing.T, unit []byte, times uint16) {
		if len(unit)*int(times) > 64<<10 {
			return // a head is at most sniffBytes
		}
		head := bytes.Repeat(unit, int(times))
		if got, ref := isEncodedBlob(head), encodedBlobByRuns(head); got != ref {
			t.Fatalf("isEncodedBlob = %v, the whole scan %v", got, ref)
		}
	})
}
