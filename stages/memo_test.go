package stages

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zeebo/blake3"
)

// processOne runs the one-read loop on one file, with x expected of its
// text when not nil.
func processOne(t *testing.T, content string, x *Expectation) *Record {
	t.Helper()
	src, out := t.TempDir(), t.TempDir()
	must(t, os.WriteFile(filepath.Join(src, "a.txt"), []byte(content), 0o644))
	env := &Env{Src: openRoot(t, src), TreeDir: out, Rules: defaultRules(t), MaxTextBytes: 64 << 20}
	rec := NewRecord("a.txt", "a.txt", int64(len(content)))
	rec.Memo.Expect = x
	w := NewWorkerSet(1).Get()
	if err := env.Process(context.Background(), rec, w, &Clock{}); err != nil {
		t.Fatal(err)
	}
	if !rec.Staged {
		t.Fatalf("not staged: %s %s", rec.Reason, rec.Err)
	}
	return rec
}

// TestExpectation: a refresh's file read again takes last time's token
// count only when its normalized text has the digest it had (a planted
// count shows it was taken); otherwise it is counted as without an
// expectation, for a text held in memory and for one streamed past
// readCapBytes. TextSum gives what the next refresh expects.
func TestExpectation(t *testing.T) {
	key := []byte("0123456789abcdef0123456789abcdef")
	for name, text := range map[string]string{
		"held":     "token = value\nline two\n",
		"streamed": strings.Repeat("a line of plain text, word after word 12345\n", readCapBytes/40),
	} {
		t.Run(name, func(t *testing.T) {
			plain := processOne(t, text, nil)
			sum, tokens, ok := plain.TextSum()
			if !ok || tokens != plain.Tokens || tokens == 0 {
				t.Fatalf("TextSum: %v %d, want the count %d", ok, tokens, plain.Tokens)
			}
			if sum != blake3.Sum256([]byte(text)) {
				t.Errorf("sum of the normalized text differs")
			}
			digest := TextDigest(key, sum)
			same := processOne(t, text, &Expectation{Key: key, Digest: digest, Tokens: 7})
			if same.Tokens != 7 {
				t.Errorf("same text: tokens %d, want the expected 7", same.Tokens)
			}
			other := digest
			other[0] ^= 1
			changed := processOne(t, text, &Expectation{Key: key, Digest: other, Tokens: 7})
			if changed.Tokens != plain.Tokens {
				t.Errorf("other digest: tokens %d, want %d counted", changed.Tokens, plain.Tokens)
			}
			if fmt.Sprint(changed.Lines, changed.OutSize) != fmt.Sprint(plain.Lines, plain.OutSize) {
				t.Errorf("lines, size %d %d, want %d %d", changed.Lines, changed.OutSize, plain.Lines, plain.OutSize)
			}
		})
	}
}
