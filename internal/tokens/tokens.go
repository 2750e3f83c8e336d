// Package tokens counts o200k_base tokens offline and exactly: the
// encoding's ranks are compiled into the binary by
// github.com/tiktoken-go/tokenizer, so nothing is fetched at run time, and
// every count equals tiktoken-go's. It splits text with a hand-written copy
// of the codec's pre-tokenizer (split.go), encodes each piece with a
// linear-time BPE (bpe.go, over tables built from the codec's ranks in
// vocab.go), memoizes short pieces (cache.go), and adjusts a count after a
// redaction without counting the whole text again (recount.go).
package tokens

import (
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/tiktoken-go/tokenizer"
)

var codec = sync.OnceValue(func() tokenizer.Codec {
	c, err := tokenizer.Get(tokenizer.O200kBase)
	if err != nil {
		// The encoding is embedded; failing here means a broken build.
		panic("tokens: o200k_base unavailable: " + err.Error())
	}
	return c
})

// maxCachedPieceBytes bounds the pieces worth memoizing: identifiers,
// keywords and indentation are short, while long pieces (a CJK clause, a
// base64 line) rarely repeat and would only evict the ones that do.
const maxCachedPieceBytes = 32

// cache is process-wide because Count is a plain function called from many
// pipeline and server goroutines. 2^17 packed slots (1 MiB) and 2^15 entry
// slots (256 KiB, plus at most 32,768 entries of up to 32 bytes) hold the
// recurring pieces of a large tree.
var cache = newPieceCache(17, 15)

// Warm builds the tables Count needs (0.4-0.5 s of one core, or 15 ms to
// read them back, see UseCache), which the first Count otherwise does
// while its callers wait: call it in a goroutine at startup to overlap
// that with other work. Safe for concurrent use.
func Warm() {
	bmpClasses()
	theVocab()
}

// ready is set once the tables Count needs are built.
var ready atomic.Bool

// Ready reports whether the tables Count needs are built, so that Count
// does not wait for them. A caller with other work can do it first.
func Ready() bool { return ready.Load() }

// Count returns the number of o200k_base tokens in s. It is safe for
// concurrent use. Invalid UTF-8 is counted as the tokenizer sees it.
//
// Count is exact: it returns what tiktoken-go's Count returns for s, without
// running the codec's backtracking regex or its map-based merges.
func Count(s string) int {
	if s == "" {
		return 0
	}
	if !utf8.ValidString(s) {
		// The codec's regex engine matches over []rune(s), in which each
		// invalid byte is U+FFFD, and hands those runes on as the piece; so
		// does this.
		s = string([]rune(s))
	}
	tab, v := bmpClasses(), theVocab()
	e := encoders.Get().(*encoder)
	n := 0
	for start, end := nextPiece(tab, s, 0); start < end; start, end = nextPiece(tab, s, end) {
		n += countPiece(v, e, s[start:end])
	}
	encoders.Put(e)
	return n
}

// countPiece returns the BPE token count of one pre-tokenized piece: its
// share of the whole string's count, as the codec run on a lone piece splits
// it into just that piece.
func countPiece(v *vocab, e *encoder, piece string) int {
	if len(piece) == 1 {
		return 1 // every byte is a token of its own
	}
	if len(piece) == 2 || len(piece) > maxCachedPieceBytes {
		// Two bytes, a quarter of Go source's pieces, are one load in the
		// two-byte token table, which text keeps in a few cache lines:
		// cheaper than the cache's hashed slot (0.94 of the counting time
		// over GOROOT/src's staged text), and it leaves those slots to
		// longer pieces.
		return v.countBPE(piece, e)
	}
	if n, ok := cache.get(piece); ok {
		return n
	}
	n := v.countBPE(piece, e)
	cache.put(piece, n)
	return n
}

// Reference returns tiktoken-go's own count for s, running the codec's regex
// and merges on the whole string: the oracle Count is tested against, kept
// for the tests and benchmarks.
func Reference(s string) int {
	if s == "" {
		return 0
	}
	n, err := codec().Count(s)
	if err != nil {
		// Count only fails on invalid UTF-8 in strict mode; fall back to a
		// byte-based estimate rather than reporting zero.
		return (len(s) + 2) / 3
	}
	return n
}
