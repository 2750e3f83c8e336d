package secrets

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/repoprep/repoprep/internal/testkit"
)

// benchBlockBytes is the size of the key block and of the text it is
// measured against: 4 MB, under one of ScanReader's chunks, so the whole
// block is one in-memory scan as the stage's loop does it.
// REPOPREP_BENCH_BLOCK_BYTES sets another.
func benchBlockBytes(b *testing.B) int {
	if v := os.Getenv("REPOPREP_BENCH_BLOCK_BYTES"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			b.Fatal(err)
		}
		return n
	}
	return 4_000_000
}

// keyBlock makes a private key block of about size bytes (kind "pem" or
// "pgp"), 64 random base64 characters a line, from rng.
func keyBlock(rng *rand.Rand, kind string, size int) []byte {
	label := "RSA PRIVATE KEY"
	if kind == "pgp" {
		label = "PGP PRIVATE KEY BLOCK"
	}
	var b strings.Builder
	b.Grow(size + 128)
	b.WriteString("-----BEGIN " + label + "-----\n")
	if kind == "pgp" {
		b.WriteString("\n")
	}
	line := make([]byte, 64)
	for b.Len() < size-64 {
		for i := range line {
			line[i] = b64Alphabet[rng.IntN(len(b64Alphabet))]
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	b.WriteString("-----END " + label + "-----\n")
	return []byte(b.String())
}

// valueStage is the secret stage on one file: the rules' pass, every
// finding's values into a set, the matcher of that set, and the value
// pass over the file, told what the rules' pass masks there unless walked.
func valueStage(b *testing.B, s *Scanner, name, path string, content []byte, walked bool) int {
	sc, err := s.ScanBytes(context.Background(), content, path)
	if err != nil {
		b.Fatal(err)
	}
	vals := NewValues()
	for i := range sc.Findings {
		sc.AddValues(vals, i)
	}
	m, err := s.MatcherContext(context.Background(), vals)
	if err != nil {
		b.Fatal(err)
	}
	masked := sc.Findings
	if walked {
		masked = nil
	}
	hits, err := m.ScanFileContext(context.Background(), name, masked)
	if err != nil {
		b.Fatal(err)
	}
	return len(sc.Findings) + len(hits)
}

// heapPeak samples the live heap every millisecond until stop, and
// reports the highest value above the heap when it started, in MB.
func heapPeak() (stop func() float64) {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() uint64 { metrics.Read(sample); return sample[0].Value.Uint64() }
	runtime.GC()
	base := read()
	var peak atomic.Uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			if v := read(); v > peak.Load() {
				peak.Store(v)
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	})
	return func() float64 {
		close(done)
		wg.Wait()
		return float64(peak.Load()-min(peak.Load(), base)) / 1e6
	}
}

func benchStage(b *testing.B, path string, content []byte, walked bool) {
	s := defaultScanner(b)
	name := filepath.Join(b.TempDir(), filepath.Base(path))
	if err := os.WriteFile(name, content, 0o600); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(content)))
	b.ReportAllocs()
	stop := heapPeak()
	c0 := testkit.CPUTime()
	b.ResetTimer()
	for b.Loop() {
		if valueStage(b, s, name, path, content, walked) == 0 {
			b.Fatal("found nothing")
		}
	}
	b.StopTimer()
	// CPU time per op beside the wall clock: on a shared machine the wall clock also
	// counts the time spent waiting for a core.
	b.ReportMetric(float64((testkit.CPUTime()-c0).Milliseconds())/float64(b.N), "cpu-ms/op")
	b.ReportMetric(stop(), "peak-heap-MB")
}

// BenchmarkKeyBlock is the secret stage (both passes) on a file that is
// one private key block, PEM and PGP; BenchmarkPlainText is the same on a
// file of source text of the same size. The value pass is told what the
// rules' pass masks in the file (ScanFileContext's masked); the -walked
// cases walk it all, one finding per line of the block.
func BenchmarkKeyBlock(b *testing.B) {
	size := benchBlockBytes(b)
	for _, kind := range []string{"pem", "pgp"} {
		content := keyBlock(rand.New(rand.NewPCG(1, 2)), kind, size)
		b.Run(kind, func(b *testing.B) { benchStage(b, "key."+kind, content, false) })
		b.Run(kind+"-walked", func(b *testing.B) { benchStage(b, "key."+kind, content, true) })
	}
}

// BenchmarkPlainText: see BenchmarkKeyBlock.
func BenchmarkPlainText(b *testing.B) {
	content, _ := corpus(benchBlockBytes(b), 1, 2000)
	benchStage(b, "main.go", content, false)
}

// BenchmarkValuePass is the value pass alone over a 32 MB source file with
// a secret every 2000 lines, looking for the values of a tree: that file's
// own, and as many random ones of 8 to 64 bytes again as a set of a few
// hundred values.
func BenchmarkValuePass(b *testing.B) {
	s := defaultScanner(b)
	content, _ := corpus(32<<20, 1, 2000)
	name := filepath.Join(b.TempDir(), "corpus.txt")
	if err := os.WriteFile(name, content, 0o600); err != nil {
		b.Fatal(err)
	}
	sc, err := s.ScanBytes(context.Background(), content, "corpus.go")
	if err != nil {
		b.Fatal(err)
	}
	vals := NewValues()
	for i := range sc.Findings {
		sc.AddValues(vals, i)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 500 {
		vals.Add("generic-api-key", []byte(randString(rng, b64Alphabet, 8+rng.IntN(57))))
	}
	m := s.Matcher(vals)
	b.SetBytes(int64(len(content)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := m.ScanFile(name); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(m.Len()), "values")
}
