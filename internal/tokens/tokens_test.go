package tokens

import (
	"strings"
	"testing"
)

func TestCount(t *testing.T) {
	tests := []struct {
		name string
		in   string
		min  int
		max  int
	}{
		{"empty", "", 0, 0},
		{"english", "hello world", 2, 2},
		{"chinese", "你好世界", 1, 4},
		{"code", "func main() { fmt.Println(\"hi\") }", 8, 14},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Count(tt.in); got < tt.min || got > tt.max {
				t.Errorf("Count(%q) = %d, want %d..%d", tt.in, got, tt.min, tt.max)
			}
		})
	}
}

// Counting line by line must add up to roughly the whole count, since the
// pipeline and the server count streamed text in line batches.
func TestCountAdditiveOverLines(t *testing.T) {
	text := strings.Repeat("package main\n\nfunc f(x int) int { return x * 2 }\n// 注释 comment\n", 50)
	whole := Count(text)
	sum := 0
	for _, line := range strings.SplitAfter(text, "\n") {
		sum += Count(line)
	}
	if sum < whole || sum > whole+whole/10 {
		t.Errorf("sum over lines = %d, whole = %d: batches must not undercount", sum, whole)
	}
}

func BenchmarkCount(b *testing.B) {
	text := strings.Repeat("func (s *Server) Serve(l net.Listener) error { return s.serve(l) } // 服务\n", 2000)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		Count(text)
	}
}

// TestWarm checks that Warm leaves Count nothing to build: a Count after it
// runs on the tables Warm built.
func TestWarm(t *testing.T) {
	Warm()
	v := theVocab()
	if v.reachable == 0 || Count("hello world") != 2 {
		t.Fatalf("Warm did not build usable tables")
	}
	if !Ready() {
		t.Fatalf("Ready() is false after Warm")
	}
}
