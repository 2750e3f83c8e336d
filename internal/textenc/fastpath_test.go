package textenc

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/repoprep/repoprep/internal/tokens"
)

// TestPlainPrefix: the eight-byte test stops at the first byte that is
// not plainASCII, for every byte value at every place in a word, and on
// random bytes.
func TestPlainPrefix(t *testing.T) {
	want := func(b []byte) int {
		i := 0
		for i < len(b) && plainASCII[b[i]] {
			i++
		}
		return i
	}
	for c := range 256 {
		for at := range 12 {
			b := []byte("abcdefghijkl")
			b[at] = byte(c)
			if got := plainPrefix(b); got != want(b) {
				t.Fatalf("plainPrefix(%q) = %d, want %d", b, got, want(b))
			}
		}
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 20000 {
		b := make([]byte, rng.IntN(40))
		for i := range b {
			b[i] = byte(rng.IntN(256))
			if rng.IntN(3) > 0 {
				b[i] = byte(0x20 + rng.IntN(0x5f)) // mostly printable
			}
		}
		if got := plainPrefix(b); got != want(b) {
			t.Fatalf("plainPrefix(%q) = %d, want %d", b, got, want(b))
		}
	}
}

// batchLog records the batches a sink counts (Options.Batches).
type batchLog struct {
	batches []string
	last    []bool
}

func (l *batchLog) CountBatch(b []byte, last bool) int {
	l.batches, l.last = append(l.batches, string(b)), append(l.last, last)
	return tokens.CountBytes(b)
}

// fastOutcome is all a Normalizer gives for one input: its Result, its
// error, its output and the batches it counted.
type fastOutcome struct {
	res     Result
	err     error
	out     string
	batches string // the batches joined by "|", each with its last flag
}

// normalizeFastOrSlow normalizes in with a Normalizer (counting its
// tokens in batches) through the sink's ASCII runs and whole-flush
// writes, or byte by byte (slow).
func normalizeFastOrSlow(n *Normalizer, in []byte, slow bool) fastOutcome {
	scanByteByByte = slow
	defer func() { scanByteByByte = false }()
	var out bytes.Buffer
	var log batchLog
	res, err := n.Normalize(bytes.NewReader(in), &out, Options{Batches: &log})
	var joined strings.Builder
	for i, b := range log.batches {
		joined.WriteString(b)
		if log.last[i] {
			joined.WriteString("|last")
		}
		joined.WriteString("|")
	}
	return fastOutcome{res, err, out.String(), joined.String()}
}

// TestFastPathMatchesSlow: text that needs nothing done, written from
// the input's own bytes a whole flush at a time (and the rest of a text
// at its end), gives what the byte-by-byte pass gives: the Result, the
// error, every output byte, and the token batches and their counts; on
// texts around the flush size, with a byte that needs work just before,
// at and after a flush's end, and on the staged texts of Go's src/.
func TestFastPathMatchesSlow(t *testing.T) {
	plain := strings.Repeat("func f() {\n\treturn x // y\n}\n\n", 3000) // 93 KB of ASCII
	var inputs [][]byte
	for _, size := range []int{0, 1, 7, 8, 9, flushBytes - 1, flushBytes, flushBytes + 1, 2 * flushBytes, sampleBytes + 3, len(plain)} {
		inputs = append(inputs, []byte(plain[:size]))
		for _, odd := range []string{"\r\n", "\x00", "\x01", "\x7f", "é", "\xff", "\x1b[0m", "\u0080"} {
			for _, at := range []int{size - 1, size, size + 1} {
				if at >= 0 && at <= size {
					inputs = append(inputs, []byte(plain[:at]+odd+plain[at:size]))
				}
			}
		}
	}
	inputs = append(inputs, []byte(strings.Repeat("x", 5*flushBytes)+"\n"), []byte(strings.Repeat("ab\r\n", 3*flushBytes)))
	if files, err := gorootFilesHead(); err == nil {
		inputs = append(inputs, files...)
	}
	var fast, slow Normalizer
	for i, in := range inputs {
		got, want := normalizeFastOrSlow(&fast, in, false), normalizeFastOrSlow(&slow, in, true)
		if got != want {
			t.Fatalf("input %d (%d bytes, %.40q): fast %+v, %v; slow %+v, %v; same output %t, same batches %t",
				i, len(in), in, got.res, got.err, want.res, want.err, got.out == want.out, got.batches == want.batches)
		}
		if got.err == nil && !got.res.Mojibake && got.res.Encoding == "utf-8" && !got.res.CRLF && !bytes.Equal(in, []byte(got.out)) {
			t.Fatalf("input %d: clean UTF-8 changed in normalizing", i)
		}
	}
}

// FuzzFastPath: on any input, repeated to reach past a flush, the fast
// and the byte-by-byte pass agree (see TestFastPathMatchesSlow).
func FuzzFastPath(f *testing.F) {
	for _, s := range []string{"", "a\n", "x\r\ny", "caf\xc3\xa9\n", "\x00", "a\x7fb", "\x1b[0m ok\n"} {
		f.Add(s, uint8(1))
	}
	tokens.Warm()
	f.Fuzz(func(t *testing.T, s string, times uint8) {
		if len(s)*int(times) > 256<<10 {
			return // bounded: a few flushes at most
		}
		in := []byte(strings.Repeat(s, int(times)))
		var fast, slow Normalizer
		got, want := normalizeFastOrSlow(&fast, in, false), normalizeFastOrSlow(&slow, in, true)
		if got != want {
			t.Fatalf("%d bytes: fast %+v, %v; slow %+v, %v; same output %t, same batches %t",
				len(in), got.res, got.err, want.res, want.err, got.out == want.out, got.batches == want.batches)
		}
	})
}
