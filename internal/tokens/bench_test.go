package tokens

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The code benchmarks reuse BenchmarkCount's text, one line repeated, which
// is the best case for the piece cache; the GoSource ones use real, varied
// code and the Chinese ones prose whose pieces are mostly too long to cache.
var (
	benchCode    = strings.Repeat("func (s *Server) Serve(l net.Listener) error { return s.serve(l) } // 服务\n", 2000)
	benchChinese = strings.Repeat(chineseProse, 20)
)

const chineseProse = `自然语言处理是计算机科学与人工智能领域中的一个重要方向。它研究能实现人与计算机之间用自然语言进行有效通信的各种理论和方法。
自然语言处理是一门融语言学、计算机科学、数学于一体的科学。因此，这一领域的研究将涉及自然语言，即人们日常使用的语言，所以它与语言学的研究有着密切的联系，但又有重要的区别。
分词是中文处理的第一步：汉语的词与词之间没有空格，模型需要先把连续的汉字切分成有意义的单位，再进行词性标注、句法分析和语义理解。
近年来，基于大规模语料训练的语言模型取得了显著进展，在机器翻译、问答系统、文本摘要和代码生成等任务上都表现出色；然而，模型的上下文长度有限，统计令牌数量仍然十分必要。
`

// goSource returns about 1 MB of real Go source from GOROOT.
func goSource(b *testing.B) string {
	b.Helper()
	var sb strings.Builder
	for _, dir := range []string{"net/http", "go/types", "runtime"} {
		matches, _ := filepath.Glob(filepath.Join(goSrc(b), dir, "*.go"))
		for _, m := range matches {
			if sb.Len() >= 1<<20 {
				return sb.String()
			}
			data, err := os.ReadFile(m)
			if err != nil {
				b.Fatal(err)
			}
			sb.Write(data)
		}
	}
	if sb.Len() == 0 {
		b.Skip("no Go source under GOROOT")
	}
	return sb.String()
}

func benchWarm(b *testing.B, text string) {
	Count(text) // fill the cache
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		Count(text)
	}
}

func benchCold(b *testing.B, text string) {
	Count(text) // load the codec and the class table outside the timing
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		b.StopTimer() // emptying 160k slots is not part of counting
		cache.reset()
		b.StartTimer()
		Count(text)
	}
}

func benchReference(b *testing.B, text string) {
	Reference(text)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		Reference(text)
	}
}

func BenchmarkCountCold(b *testing.B)      { benchCold(b, benchCode) }
func BenchmarkCountReference(b *testing.B) { benchReference(b, benchCode) }

func BenchmarkCountGoSource(b *testing.B)          { benchWarm(b, goSource(b)) }
func BenchmarkCountGoSourceCold(b *testing.B)      { benchCold(b, goSource(b)) }
func BenchmarkCountGoSourceReference(b *testing.B) { benchReference(b, goSource(b)) }

func BenchmarkCountChinese(b *testing.B)          { benchWarm(b, benchChinese) }
func BenchmarkCountChineseCold(b *testing.B)      { benchCold(b, benchChinese) }
func BenchmarkCountChineseReference(b *testing.B) { benchReference(b, benchChinese) }

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
