package pipeline

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/repoprep/repoprep/internal/tokens"
)

// TestLiveHeapByStage is a measuring tool, not a check: it runs a full
// run in process on REPOPREP_MEMLIVE_TREE (skipped when unset), with the
// tokenizer's tables from a cache as the command loads them, and samples
// the live heap (after a forced collection) every 100 ms; it logs the
// largest sample of each stage ("index+" is after the index's last
// count: files.json, REPO_MAP.md, the refresh state) and writes a heap
// profile of the largest of all to REPOPREP_MEMLIVE_PROF if set. Run it
// on Go's src/ once and three times over: the difference over the file
// count is what is live per file.
func TestLiveHeapByStage(t *testing.T) {
	root := os.Getenv("REPOPREP_MEMLIVE_TREE")
	if root == "" {
		t.Skip("set REPOPREP_MEMLIVE_TREE to a tree to measure")
	}
	cache := filepath.Join(os.TempDir(), "repoprep-memlive-tokens")
	if d := os.Getenv("REPOPREP_MEMLIVE_CACHE"); d != "" {
		cache = d
	}
	tokens.UseCache(cache)
	out := filepath.Join(t.TempDir(), "out")
	if d := os.Getenv("REPOPREP_MEMLIVE_OUT"); d != "" {
		out = d
		os.RemoveAll(out)
	}
	var (
		mu        sync.Mutex
		stage     = "start"
		byStage   = map[string]uint64{}
		peak      uint64
		lastCount atomic.Int64
		stop      = make(chan struct{})
		sampled   sync.WaitGroup
	)
	countingFile = func(string) {
		lastCount.Store(time.Now().UnixNano())
		mu.Lock()
		stage = "index"
		mu.Unlock()
	}
	defer func() { countingFile = nil }()
	sampled.Add(1)
	go func() {
		defer sampled.Done()
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			var ms runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&ms)
			mu.Lock()
			st := stage
			if st == "index" && time.Since(time.Unix(0, lastCount.Load())) > 300*time.Millisecond {
				st = "index+"
			}
			byStage[st] = max(byStage[st], ms.HeapAlloc)
			if ms.HeapAlloc > peak {
				peak = ms.HeapAlloc
				if p := os.Getenv("REPOPREP_MEMLIVE_PROF"); p != "" {
					if f, err := os.Create(p); err == nil {
						pprof.Lookup("heap").WriteTo(f, 0)
						f.Close()
					}
				}
			}
			mu.Unlock()
		}
	}()
	rep := &stageReporter{set: func(name string, total int) {
		mu.Lock()
		stage = name
		mu.Unlock()
	}}
	runtime.MemProfileRate = 4096
	_, err := Run(context.Background(), Options{Root: root, OutDir: out, Full: true, Workers: 2, Progress: rep,
		MemoryLimit: 120 << 20, GCPercent: 400})
	close(stop)
	sampled.Wait()
	if err != nil {
		t.Logf("run: %v", err) // secrets found is a finished run
	}
	line := fmt.Sprintf("live heap: peak %.1f MB;", float64(peak)/1e6)
	for _, st := range slices.Sorted(func(yield func(string) bool) {
		for k := range byStage {
			if !yield(k) {
				return
			}
		}
	}) {
		line += fmt.Sprintf(" %s %.1f", st, float64(byStage[st])/1e6)
	}
	t.Log(line)
}

type stageReporter struct{ set func(string, int) }

func (r *stageReporter) Stage(name string, total int) { r.set(name, total) }
func (r *stageReporter) Add(int)                      {}
func (r *stageReporter) Done()                        {}
