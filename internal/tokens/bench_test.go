package tokens

import (
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/repoprep/repoprep/internal/testkit"
)

// The corpora are real text nobody here wrote, each paired in one run with
// its baselines: a plain read of the same bytes from a file, and
// tiktoken-go's own Count.
//
//   - go: about 1 MB of GOROOT/src (net/http, go/types, runtime).
//   - zh: the Simplified Chinese Debian Reference (apt-get install
//     debian-reference-zh-cn; 821 KB, Chinese prose with English commands),
//     or else vim's Chinese tutor.
//   - base64: debian/buildinfo's go117.base64 test file from GOROOT (1.56 MB,
//     76-byte lines, long runs of "A"): the worst case for tiktoken-go.
var corpora = []struct {
	name string
	load func(b *testing.B) string
}{
	{"go", goSource},
	{"zh", chineseDocs},
	{"base64", func(b *testing.B) string {
		return readCorpus(b, filepath.Join(testkit.GoSrc(b), "debug/buildinfo/testdata/go117/go117.base64"))
	}},
}

// goSource returns about 1 MB of real Go source from GOROOT.
func goSource(b *testing.B) string {
	b.Helper()
	var sb strings.Builder
	for _, dir := range []string{"net/http", "go/types", "runtime"} {
		matches, _ := filepath.Glob(filepath.Join(testkit.GoSrc(b), dir, "*.go"))
		for _, m := range matches {
			if sb.Len() >= 1<<20 {
				return sb.String()
			}
			sb.WriteString(readCorpus(b, m))
		}
	}
	if sb.Len() == 0 {
		b.Skip("no Go source under GOROOT")
	}
	return sb.String()
}

// chineseDocs returns Debian-shipped Chinese documentation.
func chineseDocs(b *testing.B) string {
	b.Helper()
	if f, err := os.Open("/usr/share/debian-reference/debian-reference.zh-cn.txt.gz"); err == nil {
		defer f.Close()
		zr, err := gzip.NewReader(f)
		if err != nil {
			b.Fatal(err)
		}
		data, err := io.ReadAll(zr)
		if err != nil {
			b.Fatal(err)
		}
		return string(data)
	}
	matches, _ := filepath.Glob("/usr/share/vim/vim*/tutor/tutor.zh_cn.utf-8")
	if len(matches) == 0 {
		b.Skip("no Chinese documentation: apt-get install debian-reference-zh-cn")
	}
	return readCorpus(b, matches[0])
}

func readCorpus(b *testing.B, path string) string {
	b.Helper()
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		b.Skipf("corpus missing: %v", err)
	}
	if err != nil {
		b.Fatal(err)
	}
	return string(data)
}

// loopCPU runs f b.N times, each after an untimed setup (if not nil), and
// reports its throughput per CPU second.
func loopCPU(b *testing.B, n int, setup, f func()) {
	b.SetBytes(int64(n))
	var cpu time.Duration
	for b.Loop() {
		if setup != nil {
			b.StopTimer()
			setup()
			b.StartTimer()
		}
		start := testkit.CPUTime()
		f()
		cpu += testkit.CPUTime() - start
	}
	if cpu > 0 {
		b.ReportMetric(float64(n)*float64(b.N)/cpu.Seconds()/1e6, "cpu-MB/s")
	}
}

// BenchmarkCorpus measures, per corpus: read (os.ReadFile of the same bytes,
// the floor), tiktoken (the codec's Count on the whole text), cold (Count
// with the piece cache emptied before each pass; the BPE tables are built)
// and warm (Count again).
func BenchmarkCorpus(b *testing.B) {
	for _, c := range corpora {
		b.Run(c.name, func(b *testing.B) {
			text := c.load(b)
			Count(text) // build the tables outside the timing
			b.Run("read", func(b *testing.B) {
				path := filepath.Join(b.TempDir(), "corpus")
				if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
					b.Fatal(err)
				}
				loopCPU(b, len(text), nil, func() {
					if _, err := os.ReadFile(path); err != nil {
						b.Fatal(err)
					}
				})
			})
			b.Run("tiktoken", func(b *testing.B) {
				loopCPU(b, len(text), nil, func() { Reference(text) })
			})
			b.Run("cold", func(b *testing.B) {
				// Emptying 160k slots is not part of counting.
				loopCPU(b, len(text), cache.reset, func() { Count(text) })
				// The count, to set beside other counters' (make
				// bench-tokens-peers).
				b.ReportMetric(float64(Count(text)), "tokens")
			})
			b.Run("warm", func(b *testing.B) {
				Count(text)
				loopCPU(b, len(text), nil, func() { Count(text) })
			})
		})
	}
}

// BenchmarkVocabBuild is the one-off cost of the BPE tables on first use.
func BenchmarkVocabBuild(b *testing.B) {
	codec()
	start := testkit.CPUTime()
	for b.Loop() {
		v, err := buildVocab(func(rank int) (string, error) {
			return codec().Decode([]uint{uint(rank)})
		})
		if err != nil {
			b.Fatal(err)
		}
		v.release()
	}
	b.ReportMetric(float64((testkit.CPUTime()-start).Milliseconds())/float64(b.N), "cpu-ms/op")
}

// BenchmarkVocabLoad is what a process pays instead when an earlier
// process of the same executable left the tables in its cache (UseCache):
// reading the file back, checking it and pointing the tables into it.
func BenchmarkVocabLoad(b *testing.B) {
	key := [32]byte{'b', 'e', 'n', 'c', 'h'}
	path := writeTablesFile(b, b.TempDir(), key)
	start := testkit.CPUTime()
	for b.Loop() {
		v, err := loadTables(path, key)
		if err != nil {
			b.Fatal(err)
		}
		v.release()
	}
	b.ReportMetric(float64((testkit.CPUTime()-start).Microseconds())/1000/float64(b.N), "cpu-ms/op")
}

// BenchmarkCountParallel is the pipeline's shape: many goroutines counting
// different files through the one shared cache.
func BenchmarkCountParallel(b *testing.B) {
	text := goSource(b)
	Count(text)
	b.SetBytes(int64(len(text)))
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			Count(text)
		}
	})
}
