package serve

import (
	"sync"

	"github.com/repoprep/repoprep/internal/lineindex"
	"github.com/repoprep/repoprep/internal/tokens"
)

// A numbered line "  10 | text\n" costs the tokens of its number part,
// "  10 |", plus those of " text\n", exactly: the number part's last
// piece is " |" (punctuation stops at the space after it), so the next
// piece starts at that space whatever the text is. linetokens.index
// records the second count for every staged line (lineindex.LineCounter);
// prefixTokens gives the first without counting. Numbered lines and
// trailers meet at cuts (a newline, then a space, a digit or "["), where
// counts add up (tokens.Cut), so an answer's count is the sum of its
// lines' and its trailers' counts.

// prefixTables holds the token counts the number parts are made of:
// padding spaces before a digit, digit groups (the pre-tokenizer splits
// a number into groups of at most three digits, from the left) and " |".
type prefixTables struct {
	once  sync.Once
	pad   [24]int   // pad[p]: p spaces followed by a digit
	group [3][]int8 // group[len-1][value]: a group of len digits
	bar   int       // " |"
}

var prefix prefixTables

func (pt *prefixTables) init() {
	pt.once.Do(func() {
		one := tokens.Count("1")
		for p := range pt.pad {
			pt.pad[p] = tokens.Count(spaces(p)+"1") - one
		}
		for l := 1; l <= 3; l++ {
			n := 1
			for range l {
				n *= 10
			}
			pt.group[l-1] = make([]int8, n)
			buf := make([]byte, l)
			for v := range n {
				for i, x := l-1, v; i >= 0; i, x = i-1, x/10 {
					buf[i] = byte('0' + x%10)
				}
				pt.group[l-1][v] = int8(tokens.Count(string(buf)))
			}
		}
		pt.bar = tokens.Count(" |")
	})
}

func spaces(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = ' '
	}
	return string(b)
}

// prefixTokens is tokens.Count of line num's number part at width, as
// appendNumbered writes it: the padding, the digits and " |".
func prefixTokens(width, num int) int {
	prefix.init()
	var digits [20]byte
	i := len(digits)
	for n := num; ; n /= 10 {
		i--
		digits[i] = byte('0' + n%10)
		if n < 10 {
			break
		}
	}
	d := digits[i:]
	pad := max(width-len(d), 0)
	if pad >= len(prefix.pad) {
		return tokens.Count(spaces(pad) + string(d) + " |") // wider than any line number
	}
	n := prefix.pad[pad] + prefix.bar
	for len(d) > 0 {
		g := d[:min(3, len(d))]
		v := 0
		for _, c := range g {
			v = v*10 + int(c-'0')
		}
		n += int(prefix.group[len(g)-1][v])
		d = d[len(g):]
	}
	return n
}

// lineCosts walks one file's recorded line lengths and counts, forward.
type lineCosts struct {
	counts lineindex.Counts
	line   int // lines decoded so far
}

// at returns line num's recorded length and count (-1: not counted);
// ok is false past the end or on damage. num never decreases.
func (lc *lineCosts) at(num int) (length int64, count int, ok bool) {
	for lc.line < num-1 {
		if _, _, ok := lc.counts.Next(); !ok {
			return 0, 0, false
		}
		lc.line++
	}
	if lc.line != num-1 {
		return 0, 0, false
	}
	length, count, ok = lc.counts.Next()
	if ok {
		lc.line++
	}
	return length, count, ok
}

// countBufs holds the buffers one file's counts are read into.
var countBufs = sync.Pool{New: func() any { return new([]byte) }}

// fitCosts is fitLines by lookup: how many whole lines, costing costs[i]
// each, fit in room tokens, and what they cost.
func fitCosts(costs []int, room int) (k, cost int) {
	for _, c := range costs {
		if cost+c > room {
			break
		}
		cost += c
		k++
	}
	return k, cost
}
