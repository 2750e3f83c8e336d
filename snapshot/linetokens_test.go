package snapshot

import (
	"bufio"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"github.com/repoprep/repoprep/internal/lineindex"
	"github.com/repoprep/repoprep/internal/trigram"
)

// writeTokens writes linetokens.index for m's staged files as a run does:
// from the staged copies, in path order. forge, when set, rewrites a
// file's counts before they are written with their sum (what a forger
// would do).
func writeTokens(t testing.TB, dir string, m *Manifest, forge func(path string, data []byte) []byte) {
	t.Helper()
	os.Remove(filepath.Join(dir, LineTokens))
	b := newBounds(m)
	d := trigram.NewDigest()
	for _, e := range b.staged {
		sum, err := DecodeHash(e.hash)
		noErr(t, err)
		d.Add(e.path, sum)
	}
	noErr(t, WriteFile(filepath.Join(dir, LineTokens), func(w *bufio.Writer) error {
		tw := lineindex.NewTokenWriter(w, d.Sum())
		for _, e := range b.staged {
			text, err := os.ReadFile(filepath.Join(dir, TreeDir, filepath.FromSlash(e.path)))
			noErr(t, err)
			var lc lineindex.LineCounter
			lc.Write(text)
			data, lines, size := lc.Finish()
			if forge != nil {
				data = forge(e.path, data)
			}
			sum, _ := DecodeHash(e.hash)
			if err := tw.Add(e.path, sum, size, lines, data); err != nil {
				return err
			}
		}
		return tw.Close()
	}))
}

// addToCount adds delta to line 1's count in data.
func addToCount(data []byte, delta int) []byte {
	c := lineindex.NewCounts(data)
	var out []byte
	for i := 0; ; i++ {
		length, count, ok := c.Next()
		if !ok {
			return out
		}
		if i == 0 {
			count += delta
		}
		out = binary.AppendUvarint(out, uint64(length))
		out = binary.AppendUvarint(out, uint64(count+1))
	}
}
