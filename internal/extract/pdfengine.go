package extract

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"github.com/repoprep/repoprep/internal/cachedir"

	"github.com/klippa-app/go-pdfium"
	"github.com/klippa-app/go-pdfium/webassembly"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
)

// The PDF engine: PDFium's WebAssembly module, compiled once per process
// and cached across processes.

// A fresh process has two engines. wazero's compiler turns the module
// into machine code: seconds of CPU (4–17 s measured, more on a loaded
// machine), after which a page costs milliseconds. Its interpreter starts
// in about a second and reads a page some ten times slower. Both run the
// same WebAssembly, so they give the same text (checked: every PDF of
// Tika's test set under 400 KB, byte for byte), and which one reads a
// document never shows in the output.
//
// So the first few small PDFs of a process are read by the interpreter,
// and the compiler starts in the background once a second PDF shows that
// more are coming; from the moment it is ready, it reads every document.
// A large PDF waits for it. A run that meets one small PDF pays about 2 s
// of CPU instead of the whole compilation. Where the compile cache holds
// the machine code already (a mark beside it says so), the compiled
// engine loads from it at once.
const (
	interpMaxBytes = 256 << 10 // larger PDFs wait for the compiler
	interpMaxDocs  = 8         // after these, every PDF waits for it
)

type pdfEngines struct {
	mu          sync.Mutex
	interpDocs  int
	started     bool          // the compiler has been started
	ready       chan struct{} // closed when compiled and compiledErr are set
	compiled    pdfium.Pool
	compiledErr error

	interpOnce sync.Once
	interp     pdfium.Pool
	interpErr  error
}

var engines = pdfEngines{ready: make(chan struct{})}

// pdfiumPool gives the pool that reads a PDF of size bytes. Each document
// gets a fresh instance from it: no state or memory carries over from a
// hostile document to the next.
func pdfiumPool(lim Limits, size int64) (pdfium.Pool, error) {
	return engines.pool(lim, size)
}

func (e *pdfEngines) pool(lim Limits, size int64) (pdfium.Pool, error) {
	e.mu.Lock()
	select {
	case <-e.ready:
		e.mu.Unlock()
		return e.compiled, e.compiledErr
	default:
	}
	if e.useInterpreter(size, compiledBefore) {
		e.interpDocs++
		if e.interpDocs == 2 {
			e.start(lim) // more PDFs are coming: compile beside them
		}
		e.mu.Unlock()
		return e.interpreter(lim)
	}
	e.start(lim)
	e.mu.Unlock()
	<-e.ready
	return e.compiled, e.compiledErr
}

// useInterpreter decides, while the compiled engine is not ready, whether
// the interpreter reads a PDF of size bytes: a small one, among the first
// few, unless the compiler was started first (by a large PDF) or the
// cache holds its result (cached, asked only then).
func (e *pdfEngines) useInterpreter(size int64, cached func() bool) bool {
	if size > interpMaxBytes || e.interpDocs >= interpMaxDocs {
		return false
	}
	return e.interpDocs > 0 || !e.started && !cached()
}

// start compiles the module in the background, once. Called with mu held.
func (e *pdfEngines) start(lim Limits) {
	if e.started {
		return
	}
	e.started = true
	go func() {
		cfg := pdfRuntime(wazero.NewRuntimeConfigCompiler(), lim)
		cache, dir := compileCache()
		if cache != nil {
			cfg = cfg.WithCompilationCache(cache)
		}
		e.compiled, e.compiledErr = newPDFPool(cfg)
		if e.compiledErr == nil && dir != "" {
			markCompiled(dir)
		}
		close(e.ready)
	}()
}

func (e *pdfEngines) interpreter(lim Limits) (pdfium.Pool, error) {
	e.interpOnce.Do(func() {
		e.interp, e.interpErr = newPDFPool(pdfRuntime(wazero.NewRuntimeConfigInterpreter(), lim))
	})
	return e.interp, e.interpErr
}

// pdfRuntime is what both engines share: the features PDFium needs, the
// memory ceiling, and calls that return when the document's context ends.
func pdfRuntime(cfg wazero.RuntimeConfig, lim Limits) wazero.RuntimeConfig {
	return cfg.
		WithCoreFeatures(api.CoreFeaturesV2 | experimental.CoreFeaturesExceptionHandling).
		WithCloseOnContextDone(true).
		WithMemoryLimitPages(uint32(lim.MaxPDFMemory / 65536))
}

func newPDFPool(cfg wazero.RuntimeConfig) (pdfium.Pool, error) {
	pool, err := webassembly.Init(webassembly.Config{
		MinIdle:       0,
		MaxIdle:       0,
		MaxTotal:      256, // callers bound concurrency; the pool must never make a document wait
		RuntimeConfig: cfg,
		FSConfig:      wazero.NewFSConfig(), // no file system at all
		Stdout:        io.Discard,
		Stderr:        io.Discard,
	})
	if err != nil {
		return nil, fmt.Errorf("start PDFium: %w", err)
	}
	return pool, nil
}

// compiledMark names the file that says the compile cache holds this
// build's PDFium: the engine module's version, wazero's and the platform.
// It only decides which engine reads the first documents; wazero itself
// checks every cache entry against the module's hash.
func compiledMark(dir string) string {
	name := fmt.Sprintf("compiled-pdfium-%s-wazero-%s-%s-%s",
		moduleVersion("github.com/klippa-app/go-pdfium"), moduleVersion("github.com/tetratelabs/wazero"), runtime.GOOS, runtime.GOARCH)
	return filepath.Join(dir, name)
}

func compiledBefore() bool {
	dir := compileCacheDir()
	if dir == "" {
		return false
	}
	_, err := os.Stat(compiledMark(dir))
	return err == nil
}

func markCompiled(dir string) {
	os.WriteFile(compiledMark(dir), nil, 0o600) // a lost mark costs one interpreted start
}

// compileCache keeps wazero's compiled PDFium in the user's cache directory
// ($XDG_CACHE_HOME/repoprep/wazero, or REPOPREP_WAZERO_CACHE; "off" turns
// it off), so only the first process on a machine pays the compilation.
// wazero keys the entries by its own version and the module's hash. No
// cache (no home, a read-only one) only costs the compile. CI jobs keep
// the directory between runs (action.yml, ci/gitlab).
func compileCache() (wazero.CompilationCache, string) {
	dir := compileCacheDir()
	if dir == "" {
		return nil, ""
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, ""
	}
	cache, err := wazero.NewCompilationCacheWithDir(dir)
	if err != nil {
		return nil, ""
	}
	return cache, dir
}

// compileCacheDir is where the cache lives, "" when it is off or there is
// no cache directory.
func compileCacheDir() string { return cachedir.Dir("REPOPREP_WAZERO_CACHE", "wazero") }

// preparePDF makes the compiled engine ready, waiting for it: for callers
// (tests, benchmarks) that read many PDFs and want none interpreted.
func preparePDF(lim Limits) error {
	engines.mu.Lock()
	engines.start(lim)
	engines.mu.Unlock()
	<-engines.ready
	return engines.compiledErr
}
