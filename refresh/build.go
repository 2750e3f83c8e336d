package refresh

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/zeebo/blake3"

	"github.com/repoprep/repoprep/internal/cachedir"
)

// buildDigest names the running program by its bytes: a source build's
// version ("(devel)", or a tag with -dirty) does not tell two builds
// apart, and a snapshot made by other code must not be reused.
var buildDigest = sync.OnceValues(func() (string, error) {
	f, err := os.Open("/proc/self/exe") // the running image, even if the file was replaced since
	if err != nil {
		exe, xerr := os.Executable()
		if xerr != nil {
			return "", fmt.Errorf("cannot read the running program: %w", errors.Join(err, xerr))
		}
		if f, err = os.Open(exe); err != nil {
			return "", fmt.Errorf("cannot read the running program: %w", err)
		}
	}
	defer f.Close()
	buildCache.Lock()
	dir := buildCache.dir
	buildCache.Unlock()
	return digestOf(f, dir)
})

// The build's digest is kept for the next process of the same executable:
// hashing a 77 MB binary was half the CPU of a refresh of a small tree
// (36 of 80 ms). The file is named by, and holds, the executable's
// identity (device, inode, size, modification and change times:
// cachedir.FileIdentity of the open image), which any write, rebuild or
// replacement changes; the directory is the user's own, trusted as the
// tokenizer's tables beside it are.
var buildCache struct {
	sync.Mutex
	dir string
}

// buildMagic begins a build digest file.
const buildMagic = "repoprep build digest v1"

// keepBuilds is how many builds' digests a directory keeps.
const keepBuilds = 8

// UseBuildCache makes this process read the build's digest from dir, and
// keep it there for the next, when an earlier process of the same
// executable wrote it; "" keeps nothing. Call it before WarmBuild.
func UseBuildCache(dir string) {
	buildCache.Lock()
	buildCache.dir = dir
	buildCache.Unlock()
}

// digestOf is the BLAKE3 (hex) of the executable f, read from dir's file
// for f's identity when there is one that checks out, else hashed and
// written there (failures to keep it are ignored: it is hashed again).
func digestOf(f *os.File, dir string) (string, error) {
	id, ok := cachedir.FileIdentity(f)
	var name string
	if ok && dir != "" {
		key := sha256.Sum256([]byte(buildMagic + "\x00" + runtime.GOOS + "/" + runtime.GOARCH + "\x00" + id))
		name = filepath.Join(dir, fmt.Sprintf("build-%x", key[:8]))
		if d, ok := readBuildFile(name, id); ok {
			return d, nil
		}
	}
	h := blake3.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("cannot read the running program: %w", err)
	}
	d := hex.EncodeToString(h.Sum(nil))
	if name != "" {
		writeBuildFile(dir, name, id, d)
	}
	return d, nil
}

// readBuildFile returns the digest the file name keeps for the identity
// id; false when it is missing, not a small regular file, or says
// anything else.
func readBuildFile(name, id string) (string, bool) {
	fi, err := os.Lstat(name)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > 1<<10 {
		return "", false
	}
	b, err := os.ReadFile(name)
	if err != nil {
		return "", false
	}
	lines := strings.Split(string(b), "\n")
	if len(lines) != 4 || lines[0] != buildMagic || lines[1] != id || lines[3] != "" || len(lines[2]) != 64 {
		return "", false
	}
	if _, err := hex.DecodeString(lines[2]); err != nil {
		return "", false
	}
	return lines[2], true
}

// writeBuildFile keeps digest d for identity id at name, written whole
// (a temporary file renamed), and removes all but dir's newest keepBuilds
// digest files.
func writeBuildFile(dir, name, id, d string) {
	if os.MkdirAll(dir, 0o700) != nil {
		return
	}
	tmp, err := os.CreateTemp(dir, ".build-*")
	if err != nil {
		return
	}
	_, err = tmp.WriteString(buildMagic + "\n" + id + "\n" + d + "\n")
	if cerr := tmp.Close(); err == nil && cerr == nil && os.Rename(tmp.Name(), name) == nil {
		pruneBuilds(dir)
		return
	}
	os.Remove(tmp.Name())
}

// pruneBuilds removes the oldest digest files in dir beyond keepBuilds.
func pruneBuilds(dir string) {
	cachedir.KeepNewest(dir, keepBuilds, func(name string) bool { return strings.HasPrefix(name, "build-") })
}
