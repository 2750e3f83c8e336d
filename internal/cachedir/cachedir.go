// Package cachedir names the directories repoprep keeps between processes
// (the tokenizer's tables, PDFium's compiled code): each under the user's
// cache directory unless an environment variable moves or disables it.
package cachedir

import (
	"cmp"
	"os"
	"path/filepath"
	"slices"
)

// Dir is where the cache called name lives: the directory the environment
// variable env names, or $XDG_CACHE_HOME/repoprep/<name> (the platform's
// user cache directory). It is "" when env says "off" or the machine has
// no user cache directory: the caller then keeps nothing.
func Dir(env, name string) string {
	dir := os.Getenv(env)
	if dir == "off" {
		return ""
	}
	if dir == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			return ""
		}
		dir = filepath.Join(base, "repoprep", name)
	}
	return dir
}

// KeepNewest removes from dir all but the keep newest regular files whose
// names match: a cache keyed by executables keeps a few builds (two used
// in turn must not evict each other), not every build ever run.
func KeepNewest(dir string, keep int, match func(name string) bool) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	type file struct {
		path string
		mod  int64
	}
	var files []file
	for _, e := range ents {
		if !match(e.Name()) || !e.Type().IsRegular() {
			continue
		}
		if info, err := e.Info(); err == nil {
			files = append(files, file{filepath.Join(dir, e.Name()), info.ModTime().UnixNano()})
		}
	}
	slices.SortFunc(files, func(a, b file) int { return cmp.Compare(b.mod, a.mod) }) // newest first
	for _, f := range files[min(len(files), keep):] {
		os.Remove(f.path)
	}
}
