package stages

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
	"sync"
	"syscall"
	"unicode"
	"unicode/utf8"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
	"golang.org/x/sync/errgroup"

	"github.com/repoprep/repoprep/rules"
)

// Pruned is a directory the scan did not walk, with why.
type Pruned struct {
	Path   string
	Reason string // "excluded-dir", "ignored", "unreadable" or "excluded-by-rule"
	Files  int    // files below it, filled by CountPruned
	Capped bool   // Files stopped at CountPruned's bound
	src    string // OS path relative to the root
}

// ScanOptions configures one Scan.
type ScanOptions struct {
	Root     *os.Root   // the input tree; only read
	Rules    *rules.Set // exclude dirs
	NoIgnore bool       // do not honour .gitignore / .ignore files
	Workers  int        // directories read at once
	// Skip reports whether an OS path relative to the root must be passed
	// over silently: the output directory and its siblings when OUT lies
	// inside the input. nil skips nothing.
	Skip func(rel string) bool
	// Found is called once per record as the walk finds it, from any
	// goroutine; nil ignores. It feeds progress.
	Found func()
}

// Scan walks the tree without following symlinks and returns one record per
// file, sorted by Path, and the directories it pruned. Per-directory trouble
// (a directory it cannot read) is recorded in pruned; only a cancelled
// context fails the scan.
func Scan(ctx context.Context, opts ScanOptions) ([]*Record, []Pruned, error) {
	w := &walker{opts: opts}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(max(opts.Workers, 1))
	w.g = g
	var base []ignorePattern
	if !opts.NoIgnore {
		// git's own per-repository excludes, as git check-ignore reads them.
		base = w.readIgnore(".git/info/exclude", nil)
	}
	g.Go(func() error { return w.dir(gctx, "", "", false, base) })
	if err := g.Wait(); err != nil {
		return nil, nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	slices.SortFunc(w.recs, func(a, b *Record) int { return strings.Compare(a.Path, b.Path) })
	slices.SortFunc(w.pruned, func(a, b Pruned) int { return strings.Compare(a.Path, b.Path) })
	return w.recs, w.pruned, nil
}

type walker struct {
	opts ScanOptions
	g    *errgroup.Group

	mu     sync.Mutex // guards recs and pruned
	recs   []*Record
	pruned []Pruned
}

// dir reads one directory and spawns its subdirectories on the pool, or
// walks them inline when the pool is full (so a deep tree cannot deadlock).
// rel is the OS path ("" for the root), esc its escaped manifest form,
// unsafe whether some component needed escaping.
func (w *walker) dir(ctx context.Context, rel, esc string, unsafe bool, pats []ignorePattern) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	f, err := openDir(w.opts.Root, orDot(rel))
	if err != nil {
		w.prune(rel, esc, "unreadable")
		return nil
	}
	entries, err := f.ReadDir(-1)
	f.Close()
	if err != nil && len(entries) == 0 {
		w.prune(rel, esc, "unreadable")
		return nil
	}
	domain := splitPath(rel)
	if !w.opts.NoIgnore {
		pats = slices.Clip(pats) // appending below must not touch the parent's slice
		for _, name := range []string{".gitignore", ".ignore"} {
			pats = append(pats, w.readIgnore(join(rel, name), domain)...)
		}
	}
	var dirMatcher, fileMatcher gitignore.Matcher
	if len(pats) > 0 {
		dirMatcher, fileMatcher = newMatchers(pats)
	}
	// Generic output dirs (dist, build, target) are build output only beside
	// the manifest of a tool that writes them.
	var manifests []string
	for _, e := range entries {
		if !e.IsDir() && w.opts.Rules.IsManifest(e.Name()) {
			manifests = append(manifests, e.Name())
		}
	}
	for _, e := range entries {
		name := e.Name()
		childRel := join(rel, name)
		if w.opts.Skip != nil && w.opts.Skip(childRel) {
			continue
		}
		nameEsc, nameUnsafe := EscapeName(name)
		childEsc := joinSlash(esc, nameEsc)
		childUnsafe := unsafe || nameUnsafe
		isDir := e.IsDir()
		matcher := fileMatcher
		if isDir {
			matcher = dirMatcher
		}
		ignored := matcher != nil && matcher.Match(append(slices.Clip(domain), name), isDir)
		// A rules file's include takes a path back from every built-in
		// pruning; its exclude is the last word (rules/paths.go).
		_, included := w.opts.Rules.Paths.Include.Match(childEsc, isDir)
		ignored = ignored && !included
		if isDir {
			_, excluded := w.opts.Rules.Paths.Exclude.Match(childEsc, true)
			switch {
			case excluded:
				w.prune(childRel, childEsc, ReasonExcludedByRule)
			case !included && (w.opts.Rules.ExcludeDirs[name] || w.opts.Rules.IsOutputDir(name, manifests)):
				w.prune(childRel, childEsc, "excluded-dir")
			case ignored:
				w.prune(childRel, childEsc, "ignored")
			default:
				walk := func() error { return w.dir(ctx, childRel, childEsc, childUnsafe, pats) }
				if !w.g.TryGo(walk) {
					if err := walk(); err != nil {
						return err
					}
				}
			}
			continue
		}
		w.add(w.record(childRel, childEsc, childUnsafe, ignored, e))
	}
	return nil
}

func (w *walker) record(rel, esc string, unsafe, ignored bool, e fs.DirEntry) *Record {
	rec := &Record{Path: esc, src: rel}
	info, err := w.opts.Root.Lstat(rel)
	if err != nil {
		rec.fail("scan", "unreadable", err)
		return rec
	}
	rec.Size = info.Size()
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		rec.dev, rec.ino = uint64(st.Dev), st.Ino
	}
	mode := info.Mode()
	switch {
	case mode&fs.ModeSymlink != 0:
		rec.Kind, rec.Category, rec.Reason = KindSymlink, "junk", "symlink"
		if target, err := w.opts.Root.Readlink(rel); err == nil {
			rec.LinkTarget, _ = EscapeName(target)
		}
	case !mode.IsRegular():
		rec.Kind, rec.Category, rec.Reason = KindSpecial, "junk", "special-file"
	case unsafe:
		rec.Category, rec.Reason = "junk", "unsafe-name"
	case ignored:
		rec.Category, rec.Reason = "junk", "ignored"
	}
	return rec
}

func (w *walker) add(rec *Record) {
	if w.opts.Found != nil {
		w.opts.Found()
	}
	w.mu.Lock()
	w.recs = append(w.recs, rec)
	w.mu.Unlock()
}

func (w *walker) prune(rel, esc, reason string) {
	if esc == "" {
		esc = "."
	}
	w.mu.Lock()
	w.pruned = append(w.pruned, Pruned{Path: esc, Reason: reason, src: orDot(rel)})
	w.mu.Unlock()
}

// openDir opens a directory for reading without moving its access time.
func openDir(root *os.Root, rel string) (*os.File, error) {
	return openNoATime(root, rel, syscall.O_DIRECTORY)
}

// openNoATime opens rel read-only without blocking on a FIFO and without
// moving its access time where the kernel allows it: O_NOATIME is only for
// the file's owner (or root), so anyone else falls back to a plain open.
func openNoATime(root *os.Root, rel string, flags int) (*os.File, error) {
	flags |= os.O_RDONLY | syscall.O_NONBLOCK | syscall.O_CLOEXEC
	f, err := root.OpenFile(rel, flags|syscall.O_NOATIME, 0)
	if errors.Is(err, syscall.EPERM) {
		f, err = root.OpenFile(rel, flags, 0)
	}
	return f, err
}

// maxIgnoreBytes bounds an ignore file read: a hostile multi-gigabyte
// .gitignore must not exhaust memory.
const maxIgnoreBytes = 1 << 20

// readIgnore parses one ignore file; a missing or unreadable one adds nothing.
func (w *walker) readIgnore(rel string, domain []string) []ignorePattern {
	f, err := openNoATime(w.opts.Root, rel, 0)
	if err != nil {
		return nil
	}
	defer f.Close()
	if info, err := f.Stat(); err != nil || !info.Mode().IsRegular() {
		return nil
	}
	var ps []ignorePattern
	sc := bufio.NewScanner(&limitedReader{f, maxIgnoreBytes})
	sc.Buffer(make([]byte, 0, 4096), maxIgnoreBytes)
	for sc.Scan() {
		line := strings.TrimSuffix(sc.Text(), "\r")
		if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		if !strings.HasSuffix(line, `\ `) {
			line = strings.TrimRight(line, " ")
		}
		ps = append(ps, ignorePattern{gitignore.ParsePattern(line, domain), strings.HasSuffix(line, "/")})
	}
	return ps
}

// ignorePattern is one ignore line, parsed by go-git's gitignore package.
type ignorePattern struct {
	gitignore.Pattern
	dirOnly bool // the line ended in "/"
}

// newMatchers returns one matcher for directories (every pattern) and one
// for files (no directory-only patterns). go-git applies a directory-only
// pattern such as "!dir/**/" to the files below it, which git does not; the
// walk already pruned every ignored parent, so a file only needs the
// patterns that can match a file.
func newMatchers(ps []ignorePattern) (dirs, files gitignore.Matcher) {
	all := make([]gitignore.Pattern, 0, len(ps))
	var plain []gitignore.Pattern
	for _, p := range ps {
		all = append(all, p.Pattern)
		if !p.dirOnly {
			plain = append(plain, p.Pattern)
		}
	}
	return gitignore.NewMatcher(all), gitignore.NewMatcher(plain)
}

type limitedReader struct {
	f interface{ Read([]byte) (int, error) }
	n int64
}

func (l *limitedReader) Read(p []byte) (int, error) {
	if l.n <= 0 {
		return 0, errors.New("ignore file too large")
	}
	if int64(len(p)) > l.n {
		p = p[:l.n]
	}
	n, err := l.f.Read(p)
	l.n -= int64(n)
	return n, err
}

// EscapeName writes a file name so it is safe in JSON, logs and terminals:
// bytes of invalid UTF-8 and of control characters become \xNN and a
// backslash becomes \\. unsafe reports whether anything was escaped, which
// makes the file unstageable (reason unsafe-name).
func EscapeName(name string) (esc string, unsafe bool) {
	clean := utf8.ValidString(name) // a valid U+FFFD in a name is the author's
	for _, r := range name {
		if r == '\\' || unicode.IsControl(r) {
			clean = false
			break
		}
	}
	if clean {
		return name, false
	}
	var b strings.Builder
	for i := 0; i < len(name); {
		r, size := utf8.DecodeRuneInString(name[i:])
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case r == utf8.RuneError && size <= 1, unicode.IsControl(r):
			for _, c := range []byte(name[i : i+size]) {
				fmt.Fprintf(&b, `\x%02X`, c)
			}
		default:
			b.WriteString(name[i : i+size])
		}
		i += size
	}
	return b.String(), true
}

func join(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + string(os.PathSeparator) + name
}

func joinSlash(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}

func orDot(rel string) string {
	if rel == "" {
		return "."
	}
	return rel
}

func splitPath(rel string) []string {
	if rel == "" {
		return nil
	}
	return strings.Split(rel, string(os.PathSeparator))
}
