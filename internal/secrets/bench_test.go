package secrets

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/repoprep/repoprep/internal/secrets/secrettest"
	"github.com/repoprep/repoprep/rules"
)

// corpusLines are ordinary source and config lines, chosen to hit the keyword pre-filter
// the way real code does (token, password, secret, version numbers, years, "+1", "10.").
var corpusLines = []string{
	"func handler%d(w http.ResponseWriter, r *http.Request) {",
	"\tif err := s.store.Get(ctx, key%d); err != nil {",
	"\t\treturn fmt.Errorf(\"load %%s: %%w\", name, err)",
	"\ttoken := r.Header.Get(\"Authorization\") // %d",
	"// Copyright 2019 The Authors. Version 1.15.%d",
	"\tcfg.Timeout = 30 * time.Second",
	"\tconst maxRetries = %d",
	"    password = request.form[\"password\"]",
	"    secret_name = settings.SECRET_NAME_%d",
	"  host: service-%d.example.com",
	"  version: 10.%d.3",
	"\tn := len(items) + 1",
	"\tfor i := 0; i < %d; i++ {",
	"\t}",
	"}",
	"",
	"def compute_%d(values: list[int]) -> int:",
	"    return sum(v * 2 for v in values if v > 13)",
	"<div class=\"row col-%d\">Loading…</div>",
	"    \"dependencies\": {\"lodash\": \"^4.17.21\", \"react\": \"^18.2.%d\"},",
	"SELECT id, name FROM users WHERE created_at > '2019-01-%02d';",
	"# 数据库配置，第 %d 项",
}

// corpus returns about size bytes of generated source text with one planted secret every
// plantEvery lines (none when 0), and how many secrets it planted.
func corpus(size int, seed uint64, plantEvery int) ([]byte, int) {
	rng := rand.New(rand.NewPCG(seed, 7))
	var b bytes.Buffer
	b.Grow(size + 4096)
	samples := secrettest.Samples()
	planted := 0
	for line := 0; b.Len() < size; line++ {
		if plantEvery > 0 && line%plantEvery == plantEvery-1 {
			b.WriteString(samples[planted%len(samples)].Text + "\n")
			planted++
			continue
		}
		fmt.Fprintf(&b, corpusLines[rng.IntN(len(corpusLines))]+"\n", rng.IntN(1000))
	}
	return b.Bytes(), planted
}

// benchCorpusBytes is the size of the corpus the scan is measured on: 200 MB.
const benchCorpusBytes = 200 << 20

func benchFile(b *testing.B) (string, int64) {
	b.Helper()
	data, _ := corpus(benchCorpusBytes, 1, 2000)
	name := filepath.Join(b.TempDir(), "corpus.txt")
	if err := os.WriteFile(name, data, 0o644); err != nil {
		b.Fatal(err)
	}
	return name, int64(len(data))
}

// BenchmarkScan is the secret stage on one core: ScanFile (streaming, no redaction) over a
// generated 200 MB source file.
func BenchmarkScan(b *testing.B) {
	s := defaultScanner(b)
	name, size := benchFile(b)
	b.SetBytes(size)
	b.ResetTimer()
	for b.Loop() {
		if _, err := s.ScanFile(name, false); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkScanMemory is Scan over the same bytes already in memory.
func BenchmarkScanMemory(b *testing.B) {
	s := defaultScanner(b)
	data, _ := corpus(benchCorpusBytes, 1, 2000)
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for b.Loop() {
		s.Scan(data)
	}
}

// BenchmarkPlainRead reads the same file in the same chunk size and does nothing else.
func BenchmarkPlainRead(b *testing.B) {
	name, size := benchFile(b)
	b.SetBytes(size)
	buf := make([]byte, chunkBytes)
	b.ResetTimer()
	for b.Loop() {
		f, err := os.Open(name)
		if err != nil {
			b.Fatal(err)
		}
		for {
			_, err := f.Read(buf)
			if err == io.EOF {
				break
			} else if err != nil {
				b.Fatal(err)
			}
		}
		f.Close()
	}
}

// BenchmarkNew is what every run pays before it reads a file: compiling
// the default rules with their gates, beside the baseline of compiling
// each rule's regex alone.
func BenchmarkNew(b *testing.B) {
	rs, err := rules.DefaultSecretRules()
	if err != nil {
		b.Fatal(err)
	}
	b.Run("scanner", func(b *testing.B) {
		for b.Loop() {
			if _, err := New(rs); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("regexp-only", func(b *testing.B) {
		for b.Loop() {
			for _, r := range rs {
				regexp.MustCompile(r.Regex)
			}
		}
	})
}
