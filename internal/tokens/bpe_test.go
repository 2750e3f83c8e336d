package tokens

import (
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"
)

// rankOf maps each token's bytes to its rank, from the codec, for the
// textbook merge below.
var rankOf = sync.OnceValue(func() map[string]uint32 {
	m := make(map[string]uint32, numTokens)
	for r := range numTokens {
		s, err := codec().Decode([]uint{uint(r)})
		if err != nil {
			panic(err)
		}
		m[s] = uint32(r)
	}
	return m
})

// mergeBPE is byte-pair encoding as tiktoken states it, with no shortcut:
// from single bytes, merge the adjacent pair that spells the lowest-ranked
// token, leftmost first, until none does. It also returns the last merge.
// O(n^2): a second oracle for inputs the codec can't take whole (any bytes,
// not only one pre-tokenized piece).
func mergeBPE(s string) (toks []uint32, lastLeft, lastRight uint32) {
	ranks := rankOf()
	ends := make([]int, len(s)) // part i is s[start:ends[i]]
	for i := range ends {
		ends[i] = i + 1
	}
	lastLeft, lastRight = noToken, noToken
	for {
		best, at := noToken, -1
		start := 0
		for i := 0; i+1 < len(ends); i++ {
			if r, ok := ranks[s[start:ends[i+1]]]; ok && r < best {
				best, at = r, i
			}
			start = ends[i]
		}
		if at < 0 {
			break
		}
		start = 0
		if at > 0 {
			start = ends[at-1]
		}
		lastLeft, lastRight = ranks[s[start:ends[at]]], ranks[s[ends[at]:ends[at+1]]]
		ends = slices.Delete(ends, at, at+1)
	}
	start := 0
	for _, e := range ends {
		toks = append(toks, ranks[s[start:e]])
		start = e
	}
	return toks, lastLeft, lastRight
}

// TestVocabSplits checks the derived tables against the textbook merge for
// every token: each one encodes to itself, its split is the last merge that
// made it, and nextPrefix is its longest proper prefix token.
func TestVocabSplits(t *testing.T) {
	v := theVocab()
	if v.reachable != numTokens {
		t.Errorf("%d of %d tokens reachable; the encoder handles unreachable ones, but o200k_base had none", v.reachable, numTokens)
	}
	step := 1
	if testing.Short() {
		step = 41 // every token takes about two minutes under -race, which runs -short
	}
	for r := 0; r < numTokens; r += step {
		s, _ := codec().Decode([]uint{uint(r)})
		toks, l, rt := mergeBPE(s)
		if len(toks) != 1 || toks[0] != uint32(r) {
			t.Errorf("rank %d %q: textbook BPE gives %v", r, s, toks)
			continue
		}
		if ti := v.toks[r]; len(s) > 1 && (ti.left != l || ti.right != rt) {
			t.Errorf("rank %d %q: split (%d, %d), last merge (%d, %d)", r, s, ti.left, ti.right, l, rt)
		}
		want := noToken
		for k := len(s) - 1; k > 0; k-- {
			if p, ok := rankOf()[s[:k]]; ok {
				want = p
				break
			}
		}
		if v.toks[r].nextPrefix != want {
			t.Errorf("rank %d %q: nextPrefix %d, want %d", r, s, v.toks[r].nextPrefix, want)
		}
	}
}

// checkEncode fails if the encoder and the textbook merge disagree on s.
func checkEncode(t *testing.T, s string) {
	t.Helper()
	v := theVocab()
	first, _ := v.longest(s, 0)
	got, ok := v.encode(s, first, new(encoder))
	want, _, _ := mergeBPE(s)
	if ok && !slices.Equal(got, want) {
		t.Errorf("encode(%q) = %v, textbook BPE %v", s, got, want)
	}
	if n := v.mergeCount(s, new(encoder)); n != len(want) {
		t.Errorf("mergeCount(%q) = %d, textbook BPE %d tokens", s, n, len(want))
	}
}

// TestEncodeAnyBytes runs the encoder on strings that are not pieces: random
// bytes, and runs of token fragments chosen so that merges compete across
// token boundaries (repeated letters, shared prefixes and suffixes).
func TestEncodeAnyBytes(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	fragments := []string{"a", "aa", "ab", "b", "ba", " ", "  ", "\n", "\t", "the", "th", "e ", "in", "ing",
		"漢", "字", "\xe5", "\xad", "=", "==", "+/", "0", "00", "Q", "QQ", "x", "xy", "z", "é", "\xff"}
	n := 2000
	if testing.Short() {
		n = 200
	}
	for range n {
		var b strings.Builder
		if rng.IntN(3) == 0 {
			for range 1 + rng.IntN(40) {
				b.WriteByte(byte(rng.IntN(256)))
			}
		} else {
			for range 1 + rng.IntN(30) {
				b.WriteString(fragments[rng.IntN(len(fragments))])
			}
		}
		checkEncode(t, b.String())
	}
}

// checkPiece compares the encoder with the codec's own Encode on one
// pre-tokenized piece: the same token ranks, not only the same count.
func checkPiece(t *testing.T, piece string) {
	t.Helper()
	ids, _, err := codec().Encode(piece)
	if err != nil {
		t.Fatal(err)
	}
	want := make([]uint32, len(ids))
	for i, id := range ids {
		want[i] = uint32(id)
	}
	v := theVocab()
	var got []uint32
	if r := v.lookup(piece); r != 0 {
		got = []uint32{(r - 1) &^ unreachableBit}
	} else {
		first, _ := v.longest(piece, 0)
		var ok bool
		if got, ok = v.encode(piece, first, new(encoder)); !ok {
			got = want // too many retries: mergeCount counts it, below
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("piece %q: encoder %v, codec %v", piece, got, want)
	}
	if n := v.countBPE(piece, new(encoder)); n != len(want) {
		t.Errorf("piece %q: countBPE %d, codec %d tokens", piece, n, len(want))
	}
	if n := v.mergeCount(piece, new(encoder)); n != len(want) && len(piece) > 0 {
		t.Errorf("piece %q: mergeCount %d, codec %d tokens", piece, n, len(want))
	}
}

// TestEncodeLongPieces covers the pieces the piece cache never holds and
// tiktoken-go is slowest on: long letter runs as in base64, long CJK
// clauses, long runs of one character.
func TestEncodeLongPieces(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const b64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	cjk := []rune(chineseProse)
	pieces := 200 // the first 100 of them under -short (the race pass)
	if testing.Short() {
		pieces = 100
	}
	for range pieces {
		n := 1 + rng.IntN(600)
		var b strings.Builder
		switch rng.IntN(4) {
		case 0:
			for range n {
				b.WriteByte(b64[rng.IntN(len(b64))])
			}
		case 1:
			for range n {
				if r := cjk[rng.IntN(len(cjk))]; r >= 0x4e00 {
					b.WriteRune(r)
				}
			}
		case 2:
			b.WriteString(strings.Repeat(string(b64[rng.IntN(len(b64))]), n))
		default:
			b.WriteString(strings.Repeat("ab", n))
		}
		for _, piece := range splitFast(b.String()) {
			checkPiece(t, piece)
		}
	}
}

// FuzzEncode checks, on any input, that every piece encodes to the codec's
// own tokens, and that the encoder agrees with the textbook merge on the
// raw bytes, pre-tokenized or not.
func FuzzEncode(f *testing.F) {
	for _, s := range exactCases {
		f.Add(s)
	}
	f.Add(strings.Repeat("aaaa", 50))
	f.Add("QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVphYmNkZWZnaGlqa2xtbm9wcXJzdHV2d3h5eg==")
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 4096 {
			return // the textbook merge is quadratic
		}
		if s != "" {
			checkEncode(t, s)
		}
		if utf8.ValidString(s) {
			for _, piece := range splitFast(s) {
				checkPiece(t, piece)
			}
		}
	})
}

// TestCompatible checks the pair test against its definition: a and b are
// compatible iff BPE on the bytes of a then b gives back exactly a, b. The
// pairs are drawn so the walk's every branch runs: a token with itself (the
// tie between equal ranks), short tokens, and tokens that overlap in bytes.
func TestCompatible(t *testing.T) {
	v := theVocab()
	rng := rand.New(rand.NewPCG(7, 8))
	token := func() uint32 {
		if rng.IntN(2) == 0 {
			return uint32(rng.IntN(2000)) // the short, frequent ones
		}
		return uint32(rng.IntN(numTokens))
	}
	n := 20000
	if testing.Short() {
		n = 2000
	}
	mismatches := 0
	for i := range n {
		a := token()
		b := a
		if i%3 != 0 {
			b = token()
		}
		sa, _ := codec().Decode([]uint{uint(a)})
		sb, _ := codec().Decode([]uint{uint(b)})
		toks, _, _ := mergeBPE(sa + sb)
		want := slices.Equal(toks, []uint32{a, b})
		if got := v.compatible(a, b, noToken); got != want {
			t.Errorf("compatible(%q, %q) = %v; textbook BPE gives %v", sa, sb, got, toks)
			if mismatches++; mismatches > 10 {
				t.FailNow()
			}
		}
	}
}

const chineseProse = `自然语言处理是计算机科学与人工智能领域中的一个重要方向。它研究能实现人与计算机之间用自然语言进行有效通信的各种理论和方法。
自然语言处理是一门融语言学、计算机科学、数学于一体的科学。因此，这一领域的研究将涉及自然语言，即人们日常使用的语言，所以它与语言学的研究有着密切的联系，但又有重要的区别。
分词是中文处理的第一步：汉语的词与词之间没有空格，模型需要先把连续的汉字切分成有意义的单位，再进行词性标注、句法分析和语义理解。
近年来，基于大规模语料训练的语言模型取得了显著进展，在机器翻译、问答系统、文本摘要和代码生成等任务上都表现出色；然而，模型的上下文长度有限，统计令牌数量仍然十分必要。
`

// TestEncodeGivesUp checks the way out of heavy backtracking: on a long run
// of '=' (tokens of 1-16, 32, 48, 64, 72, 75, 76, 78, 80... bytes) encode
// retries about 15 candidates a byte and gives up, and countBPE still
// returns the codec's count, from mergeCount.
func TestEncodeGivesUp(t *testing.T) {
	v := theVocab()
	for _, s := range []string{strings.Repeat("=", 4096), strings.Repeat("-", 5000), strings.Repeat("*", 3000)} {
		first, _ := v.longest(s, 0)
		if _, ok := v.encode(s, first, new(encoder)); ok {
			t.Errorf("encode kept going on %d %q", len(s), s[:1])
		}
		if got, want := v.countBPE(s, new(encoder)), Reference(s); got != want {
			t.Errorf("countBPE(%d %q) = %d, codec %d", len(s), s[:1], got, want)
		}
	}
}
