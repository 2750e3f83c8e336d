package extract

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"

	"github.com/klippa-app/go-pdfium"
	"github.com/klippa-app/go-pdfium/webassembly"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
)

// The PDF engine: PDFium's WebAssembly module, compiled once per process
// and cached across processes.

var (
	pdfOnce sync.Once
	pdfPool pdfium.Pool
	pdfErr  error
)

// pdfiumPool compiles the PDFium module once per process (seconds, paid
// only when a run meets its first PDF, and outside any document's time
// limit), or loads the machine code an earlier process compiled from the
// user's cache (see compileCache). Each document then gets a fresh
// instance: no state or memory carries over from a hostile document to the
// next.
func pdfiumPool(lim Limits) (pdfium.Pool, error) {
	pdfOnce.Do(func() {
		pages := uint32(lim.MaxPDFMemory / 65536)
		cfg := wazero.NewRuntimeConfig().
			WithCoreFeatures(api.CoreFeaturesV2 | experimental.CoreFeaturesExceptionHandling).
			WithCloseOnContextDone(true).
			WithMemoryLimitPages(pages)
		if cache := compileCache(); cache != nil {
			cfg = cfg.WithCompilationCache(cache)
		}
		pdfPool, pdfErr = webassembly.Init(webassembly.Config{
			MinIdle:       0,
			MaxIdle:       0,
			MaxTotal:      256, // callers bound concurrency; the pool must never make a document wait
			RuntimeConfig: cfg,
			FSConfig:      wazero.NewFSConfig(), // no file system at all
			Stdout:        io.Discard,
			Stderr:        io.Discard,
		})
		if pdfErr != nil {
			pdfErr = fmt.Errorf("start PDFium: %w", pdfErr)
		}
	})
	return pdfPool, pdfErr
}

// compileCache keeps wazero's compiled PDFium in the user's cache directory
// ($XDG_CACHE_HOME/repoprep/wazero, or REPOPREP_WAZERO_CACHE; "off" turns
// it off), so only the first process on a machine pays the compilation.
// wazero keys the entries by its own version and the module's hash. No
// cache (no home, a read-only one) only costs the compile.
func compileCache() wazero.CompilationCache {
	dir := os.Getenv("REPOPREP_WAZERO_CACHE")
	if dir == "off" {
		return nil
	}
	if dir == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			return nil
		}
		dir = filepath.Join(base, "repoprep", "wazero")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil
	}
	cache, err := wazero.NewCompilationCacheWithDir(dir)
	if err != nil {
		return nil
	}
	return cache
}

// preparePDF starts PDFium before the document's clock starts.
func preparePDF(lim Limits) error {
	_, err := pdfiumPool(lim)
	return err
}
