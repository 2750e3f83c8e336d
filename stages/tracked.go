package stages

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/repoprep/repoprep/internal/dirfd"
	"github.com/repoprep/repoprep/internal/gitindex"
)

// maxGitFileBytes bounds the read of a .git file ("gitdir: PATH"), which
// git writes for worktrees and submodules: one line.
const maxGitFileBytes = 4 << 10

// tracked is what the scan knows of the files git tracks in SRC, so that
// a tracked file a .gitignore pattern matches is kept, as git keeps it.
// The index is read on first use, when an ignore pattern first excludes
// something, and once: a tree nothing ignores never reads it. Safe for
// concurrent use.
type tracked struct {
	root     *dirfd.Tree
	rootPath string
	warn     func(string)

	once  sync.Once
	paths *gitindex.Paths // nil: not a work tree, or an index that could not be read
	err   error           // a resource failure while reading it
}

// has reports whether git tracks the file at the OS path comps; it errs
// only when reading the index failed for lack of a resource.
func (t *tracked) has(comps []string) (bool, error) {
	p, err := t.load()
	return p != nil && p.Has(strings.Join(comps, "/")), err
}

// hasUnder reports whether git tracks a file below the directory comps.
func (t *tracked) hasUnder(comps []string) (bool, error) {
	p, err := t.load()
	return p != nil && p.HasUnder(strings.Join(comps, "/")), err
}

// load reads the index once. Trouble with the index is said once (warn)
// and treated as nothing tracked, today's behaviour; a failure of the
// machine (out of descriptors) is the scan's and returned to every caller.
func (t *tracked) load() (*gitindex.Paths, error) {
	t.once.Do(func() {
		p, err := readIndex(t.root, t.rootPath)
		switch {
		case err != nil && dirfd.IsResource(err):
			t.err = err
		case err != nil && t.warn != nil:
			t.warn(fmt.Sprintf("git index of %s not read (%v): tracked files a .gitignore pattern matches are left out as ignored", orDot(t.rootPath), err))
		}
		t.paths = p
	})
	return t.paths, t.err
}

// errNoIndex: SRC is not a git work tree, or one with nothing added yet.
var errNoIndex = errors.New("no git index")

// readIndex reads the index of the work tree at root: .git/index when
// .git is a directory, or PATH/index when .git is a file saying "gitdir:
// PATH" (a worktree's or submodule's), relative to rootPath. Nothing is
// run and nothing but the index is read; a symlink is never followed to
// the index, which must be a regular file under gitindex.MaxBytes.
// Neither a missing .git nor a missing index is an error.
func readIndex(root *dirfd.Tree, rootPath string) (*gitindex.Paths, error) {
	st, err := root.Root().Lstat(".git")
	if err != nil {
		return nil, nil
	}
	var f *os.File
	switch {
	case st.IsDir():
		f, err = root.OpenPath(".git/index")
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
	case st.IsRegular():
		f, err = openLinkedIndex(root, rootPath)
		if errors.Is(err, errNoIndex) {
			return nil, nil
		}
	default:
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("index: not a regular file")
	}
	return gitindex.Read(f, info.Size())
}

// openLinkedIndex follows SRC/.git's "gitdir: PATH" line to PATH/index.
func openLinkedIndex(root *dirfd.Tree, rootPath string) (*os.File, error) {
	g, err := root.OpenPath(".git")
	if err != nil {
		return nil, err
	}
	data, err := io.ReadAll(io.LimitReader(g, maxGitFileBytes+1))
	g.Close()
	if err != nil {
		return nil, err
	}
	dir, ok := parseGitFile(data)
	if !ok {
		return nil, fmt.Errorf(".git: not a \"gitdir:\" file")
	}
	if !filepath.IsAbs(dir) {
		if rootPath == "" {
			return nil, fmt.Errorf(".git: a relative gitdir and no path for SRC")
		}
		dir = filepath.Join(rootPath, dir)
	}
	name := filepath.Join(dir, "index")
	before, err := os.Lstat(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, errNoIndex
	}
	if err != nil {
		return nil, err
	}
	if !before.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", name)
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	after, err := f.Stat()
	if err != nil || !os.SameFile(before, after) {
		f.Close()
		return nil, fmt.Errorf("%s: replaced while opened", name)
	}
	return f, nil
}

// parseGitFile reads a .git file: "gitdir: PATH" on its first line.
func parseGitFile(data []byte) (string, bool) {
	if len(data) > maxGitFileBytes {
		return "", false
	}
	line, _, _ := bytes.Cut(data, []byte("\n"))
	rest, ok := bytes.CutPrefix(line, []byte("gitdir:"))
	dir := strings.TrimSpace(string(bytes.TrimSuffix(rest, []byte("\r"))))
	if !ok || dir == "" || strings.ContainsRune(dir, 0) {
		return "", false
	}
	return dir, true
}
