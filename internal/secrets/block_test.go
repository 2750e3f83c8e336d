package secrets

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/repoprep/repoprep/internal/secrets/secrettest"
)

// pgpBlock makes an armoured PGP private key block of about size bytes, random every run.
func pgpBlock(size int) string {
	var b strings.Builder
	b.WriteString("-----BEGIN PGP PRIVATE KEY" + " BLOCK-----\n\n")
	for b.Len() < size {
		b.WriteString(secrettest.Rand(b64Alphabet, 64) + "\n")
	}
	b.WriteString("=" + secrettest.Rand(b64Alphabet, 4) + "\n-----END PGP PRIVATE KEY" + " BLOCK-----")
	return b.String()
}

const b64Alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

// TestLongBlock: a 200 KiB PGP block (over the 64 KiB a multiline regex reads) is one
// finding, the same in memory and streamed across many chunks, and redaction leaves no
// line of its body.
func TestLongBlock(t *testing.T) {
	s := defaultScanner(t)
	block := pgpBlock(200 << 10)
	filler := strings.Repeat("\tif err := run(ctx); err != nil { return err } // ok\n", 3000)
	content := []byte(filler + "key := `" + block + "`\n" + filler + "ip := \"10.1.2.3\"\n")
	start := int64(strings.Index(string(content), "-----BEGIN"))
	whole := s.Scan(content)
	if len(whole) != 2 || whole[0].Rule != "private-key" || whole[0].Start != start || whole[0].End != start+int64(len(block)) {
		t.Fatalf("in memory: %+v, want the whole block [%d,%d) and the address", whole, start, start+int64(len(block)))
	}
	for _, chunk := range []int{4 << 10, 64 << 10, 150 << 10, chunkBytes} {
		t.Run(fmt.Sprint(chunk), func(t *testing.T) {
			hits, err := s.scanReader(context.Background(), bytes.NewReader(content), nil, "block.go", chunk)
			if err != nil {
				t.Fatal(err)
			}
			got := stripHits(hits)
			if len(got) != len(whole) {
				t.Fatalf("%d findings %+v, want %+v", len(got), got, whole)
			}
			for i := range got {
				if got[i] != whole[i] {
					t.Errorf("finding %d = %+v, in memory %+v", i, got[i], whole[i])
				}
			}
			if n := len(hits[0].values); n < 3000 {
				t.Errorf("the block gave %d body lines to the cross-file pass, want every one", n)
			}
		})
	}
	name := filepath.Join(t.TempDir(), "k.go")
	if err := os.WriteFile(name, content, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ScanFile(name, true); err != nil {
		t.Fatal(err)
	}
	red, _ := os.ReadFile(name)
	// No line of the block (over 8 bytes) is anywhere in red. A line holds no newline, so
	// it could only be inside one of red's lines: every piece of those as long as a line
	// of the block is looked up among them. (bytes.Contains of each 64-byte line over the
	// whole file, the same question, ran Rabin-Karp in instrumented code: 0.7 s under
	// -race.)
	lines, lens := map[string]bool{}, map[int]bool{}
	for _, line := range strings.Split(block, "\n") {
		if len(line) > 8 {
			lines[line], lens[len(line)] = true, true
		}
	}
	for _, l := range bytes.Split(red, []byte("\n")) {
		for n := range lens {
			for i := 0; i+n <= len(l); i++ {
				if lines[string(l[i:i+n])] {
					t.Fatalf("line %q of the block survived redaction", l[i:i+n])
				}
			}
		}
	}
}

// TestBlockEdges: an opening marker with no closing one is nothing, in memory and
// streamed; an opening marker in a string, then a real key, gives the key alone.
func TestBlockEdges(t *testing.T) {
	s := defaultScanner(t)
	filler := strings.Repeat("x := compute(1, \"value\")\n", 4000)
	begin := "-----BEGIN RSA PRIVATE KEY" + "-----"
	key := pgpBlock(300)
	for name, tc := range map[string]struct {
		content string
		want    string // the one block that must be found, "" for none
	}{
		"unterminated":       {filler + begin + "\n" + strings.Repeat(secrettest.Rand(b64Alphabet, 64)+"\n", 50) + filler, ""},
		"marker then key":    {filler + "const m = \"" + begin + "\"\n" + filler + key + "\n" + filler, key},
		"key then marker":    {filler + key + "\n" + filler + "const m = \"" + begin + "\"\n" + filler, key},
		"two keys far apart": {filler + key + "\n" + filler + filler + filler + key + "\n", key},
	} {
		t.Run(name, func(t *testing.T) {
			whole := s.Scan([]byte(tc.content))
			for _, chunk := range []int{2 << 10, 80 << 10, chunkBytes} {
				hits, err := s.scanReader(context.Background(), strings.NewReader(tc.content), nil, "block.go", chunk)
				if err != nil {
					t.Fatal(err)
				}
				got := stripHits(hits)
				if fmt.Sprint(got) != fmt.Sprint(whole) {
					t.Errorf("chunk %d: %+v, in memory %+v", chunk, got, whole)
				}
			}
			for _, f := range whole {
				if got := tc.content[f.Start:f.End]; got != tc.want {
					t.Errorf("found %d bytes at %d, want %d", len(got), f.Start, len(tc.want))
				}
			}
			if tc.want == "" && len(whole) != 0 {
				t.Errorf("found %+v, want nothing", whole)
			}
		})
	}
}
