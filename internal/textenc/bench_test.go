package textenc

import (
	"bytes"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/encoding/simplifiedchinese"

	"github.com/repoprep/repoprep/internal/testkit"
	"github.com/repoprep/repoprep/internal/tokens"
)

// benchText is ~4 MB of Go-like source with Chinese comments: what a GBK
// repository holds.
func benchText() string {
	const block = "// 读取配置文件，返回默认用户名和错误信息。\n" +
		"func loadConfig(path string) (*Config, error) {\n" +
		"\tdata, err := os.ReadFile(path) // 文件不存在时返回错误\n" +
		"\tif err != nil {\n\t\treturn nil, fmt.Errorf(\"读取失败: %w\", err)\n\t}\n" +
		"\treturn parse(data)\n}\n\n"
	return strings.Repeat(block, 4<<20/len(block))
}

func benchNormalize(b *testing.B, data []byte, wantEncoding string) {
	benchNormalizeCounting(b, data, wantEncoding, true)
}

func benchNormalizeCounting(b *testing.B, data []byte, wantEncoding string, countTokens bool) {
	var out bytes.Buffer
	out.Grow(2 * len(data))
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		out.Reset()
		res, err := normalizeCounting(bytes.NewReader(data), &out, countTokens)
		if err != nil || res.Encoding != wantEncoding {
			b.Fatalf("Normalize: %v, encoding %q", err, res.Encoding)
		}
	}
}

func BenchmarkNormalizeUTF8(b *testing.B) {
	benchNormalize(b, []byte(benchText()), "utf-8")
}

func BenchmarkNormalizeGBK(b *testing.B) {
	data, err := simplifiedchinese.GBK.NewEncoder().Bytes([]byte(benchText()))
	if err != nil {
		b.Fatal(err)
	}
	benchNormalize(b, data, "gbk")
}

// BenchmarkDecodeOnly is Normalize without the token count: the decoder's,
// checks' and line-ending conversion's own cost.
func BenchmarkDecodeOnly(b *testing.B) {
	gbk, err := simplifiedchinese.GBK.NewEncoder().Bytes([]byte(benchText()))
	if err != nil {
		b.Fatal(err)
	}
	b.Run("utf8", func(b *testing.B) { benchNormalizeCounting(b, []byte(benchText()), "utf-8", false) })
	b.Run("gbk", func(b *testing.B) { benchNormalizeCounting(b, gbk, "gbk", false) })
}

// BenchmarkCopy is the baseline: a plain io.Copy of the same bytes into the
// same kind of destination.
func BenchmarkCopy(b *testing.B) {
	gbk, err := simplifiedchinese.GBK.NewEncoder().Bytes([]byte(benchText()))
	if err != nil {
		b.Fatal(err)
	}
	for name, data := range map[string][]byte{"utf8": []byte(benchText()), "gbk": gbk} {
		b.Run(name, func(b *testing.B) {
			var out bytes.Buffer
			out.Grow(2 * len(data))
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				out.Reset()
				if _, err := io.Copy(&out, bytes.NewReader(data)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkTokenCount isolates the o200k count Normalize does on the same
// text (in the same 64 KiB line batches), to show where the time goes.
func BenchmarkTokenCount(b *testing.B) {
	text := benchText()
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		for rest := text; rest != ""; {
			n := min(len(rest), tokenBatchBytes)
			if i := strings.LastIndexByte(rest[:n], '\n'); i >= 0 && n < len(rest) {
				n = i + 1
			}
			tokens.Count(rest[:n])
			rest = rest[n:]
		}
	}
}

// gorootFiles loads GOROOT/src's files under 1 MiB once: real source, docs
// and testdata that nobody here wrote, a few of them in legacy charsets.
var gorootFiles = sync.OnceValues(func() ([][]byte, error) {
	var files [][]byte
	goroot, err := testkit.GoRoot()
	if err != nil {
		return nil, err
	}
	root := filepath.Join(goroot, "src")
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		if info, err := d.Info(); err != nil || info.Size() > 1<<20 {
			return err
		}
		data, err := os.ReadFile(p)
		files = append(files, data)
		return err
	})
	return files, err
})

// BenchmarkGOROOT shows what the charset decision costs on a real tree:
// Normalize on every file of GOROOT/src ("normalize"; without the token
// count, "normalize-uncounted"), against the decision
// alone on every sample that reaches it, the ones with a non-ASCII byte and
// no NUL: the UTF-8 mojibake check on valid UTF-8, the scoring of the rest
// ("decide"), and a plain copy of the same bytes ("copy"). All three report
// MB/s over the whole tree, so their ratios are shares of normalize's time.
func BenchmarkGOROOT(b *testing.B) {
	files, err := gorootFiles()
	if err != nil || len(files) == 0 {
		b.Skipf("GOROOT/src not readable: %v", err)
	}
	total, legacy := 0, 0
	var heads [][]byte
	for _, f := range files {
		total += len(f)
		head := f[:min(len(f), sampleBytes)]
		if bytes.IndexByte(head, 0) < 0 && firstNonASCII(head) >= 0 {
			heads = append(heads, head)
			if !utf8.Valid(head) {
				legacy++
			}
		}
	}
	b.Logf("%d files, %d MB; %d reach the decision, %d of them not UTF-8", len(files), total>>20, len(heads), legacy)
	b.Run("normalize", func(b *testing.B) {
		b.SetBytes(int64(total))
		for b.Loop() {
			for _, f := range files {
				normalizeCounting(bytes.NewReader(f), io.Discard, true)
			}
		}
	})
	b.Run("normalize-uncounted", func(b *testing.B) {
		b.SetBytes(int64(total))
		for b.Loop() {
			for _, f := range files {
				normalizeCounting(bytes.NewReader(f), io.Discard, false)
			}
		}
	})
	b.Run("decide", func(b *testing.B) {
		b.SetBytes(int64(total))
		for b.Loop() {
			for _, h := range heads {
				decide(h, len(h) < sampleBytes, true)
			}
		}
	})
	b.Run("copy", func(b *testing.B) {
		b.SetBytes(int64(total))
		var out bytes.Buffer
		for b.Loop() {
			for _, f := range files {
				out.Reset()
				io.Copy(&out, bytes.NewReader(f))
			}
		}
	})
}

// BenchmarkDecideLegacy is the charset decision alone on the generated
// corpus's legacy-charset files (short lines and paragraphs in GBK, Big5,
// Shift-JIS, EUC-*, KOI8-R, Windows-125x, ISO-8859-7), in files/s.
func BenchmarkDecideLegacy(b *testing.B) {
	var heads [][]byte
	for _, f := range buildCorpus(b) {
		if !strings.HasPrefix(f.enc, "utf-16") {
			heads = append(heads, f.data)
		}
	}
	for b.Loop() {
		for _, h := range heads {
			decide(h, true, true)
		}
	}
	b.ReportMetric(float64(b.N*len(heads))/b.Elapsed().Seconds(), "files/s")
}

// BenchmarkWideTextBinary is what classify pays per unknown binary file
// (mimetype's octet-stream) to ask whether it is BOM-less UTF-16/32: a
// 32 KiB head of noise with NULs, beside hashing-free copying it.
func BenchmarkWideTextBinary(b *testing.B) {
	head := make([]byte, 32<<10)
	rng := uint32(7)
	for i := range head {
		rng = rng*1664525 + 1013904223
		head[i] = byte(rng >> 24)
		if i%5 == 0 {
			head[i] = 0
		}
	}
	b.SetBytes(int64(len(head)))
	for b.Loop() {
		if _, ok := WideText(head, false); ok {
			b.Fatal("noise taken for text")
		}
	}
}
