package secrets

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkScanLeftOut is the scan of a file the tree leaves out
// (ScanLeftOut: credential rules only, and on binary content no judged
// assignment) over the 200 MB corpus of BenchmarkScan, as text and with a
// NUL byte in its head; compare with BenchmarkPlainRead of the same bytes.
func BenchmarkScanLeftOut(b *testing.B) {
	s := defaultScanner(b)
	data, _ := corpus(benchCorpusBytes, 1, 2000)
	for _, c := range []struct {
		name string
		head []byte
	}{{"text", nil}, {"binary", []byte{0, 1, 2, '\n'}}} {
		b.Run(c.name, func(b *testing.B) {
			name := filepath.Join(b.TempDir(), "left-out")
			if err := os.WriteFile(name, append(c.head, data...), 0o644); err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(data) + len(c.head)))
			for b.Loop() {
				f, err := os.Open(name)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := s.ScanLeftOut(context.Background(), f, "dump.sql"); err != nil {
					b.Fatal(err)
				}
				f.Close()
			}
		})
	}
}
