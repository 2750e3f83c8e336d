// Package tokens counts o200k_base tokens offline: the encoding's merge table
// is compiled into the binary by github.com/tiktoken-go/tokenizer, so nothing
// is fetched at run time.
package tokens

import (
	"sync"

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

// Count returns the number of o200k_base tokens in s. It is safe for
// concurrent use. Invalid UTF-8 is counted as the tokenizer sees it.
func Count(s string) int {
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
