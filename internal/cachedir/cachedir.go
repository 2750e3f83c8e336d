// Package cachedir names the directories repoprep keeps between processes
// (the tokenizer's tables, PDFium's compiled code): each under the user's
// cache directory unless an environment variable moves or disables it.
package cachedir

import (
	"os"
	"path/filepath"
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
