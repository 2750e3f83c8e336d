package stages

import (
	"bufio"
	"errors"
	"io"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"

	"github.com/repoprep/repoprep/internal/dirfd"
)

// maxIgnoreBytes bounds an ignore file read: a hostile multi-gigabyte
// .gitignore must not exhaust memory.
const maxIgnoreBytes = 1 << 20

// ignorePattern is one ignore line, parsed by go-git's gitignore package.
type ignorePattern struct {
	gitignore.Pattern
	dirOnly bool   // the line ended in "/"
	key     string // what the path's last component must match for the pattern to decide on it
}

// parseIgnore parses one ignore file's lines; domain is the OS path
// components of the directory holding it.
func parseIgnore(r io.Reader, domain []string) ([]ignorePattern, error) {
	var ps []ignorePattern
	sc := bufio.NewScanner(&limitedReader{r, maxIgnoreBytes})
	sc.Buffer(make([]byte, 0, 4096), maxIgnoreBytes)
	for sc.Scan() {
		line := strings.TrimSuffix(sc.Text(), "\r")
		if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		if !strings.HasSuffix(line, `\ `) {
			line = strings.TrimRight(line, " ")
		}
		ps = append(ps, ignorePattern{
			Pattern: gitignore.ParsePattern(line, domain),
			dirOnly: strings.HasSuffix(line, "/"),
			key:     lastElement(line),
		})
	}
	if err := sc.Err(); err != nil && !errors.Is(err, errIgnoreTooLarge) {
		return ps, err
	}
	return ps, nil
}

// lastElement is the last '/'-separated element of a pattern that is not
// empty and not "**": the element go-git's matcher compares with a path's
// last component whenever that component takes part in the match. ""
// means none (a pattern of only "**" and slashes).
func lastElement(line string) string {
	line = strings.TrimPrefix(line, "!")
	elems := strings.Split(line, "/")
	for i := len(elems) - 1; i >= 0; i-- {
		if e := elems[i]; e != "" && e != "**" {
			return e
		}
	}
	return ""
}

// ignoreSet is the ignore patterns in force in one directory: its
// parent's, then those of its own ignore files, with later patterns
// winning as in git. Patterns are numbered across the chain (base), so an
// index names one pattern for the whole walk.
//
// Matching is indexed, not a pass over every pattern per file: a 1 MiB
// .gitignore holds tens of thousands of patterns, and testing each one
// against each file cost 13 ms a file. The walk prunes every ignored
// directory, and a pattern that matches a path through one of its parent
// directories (go-git matches "foo" against every component, and "a/b"
// against every path below a/b) matched that parent as well when the walk
// reached it; so a path's verdict is the later of its parent's verdict
// (inherited) and the latest pattern that matches the path through its
// last component, and such a pattern's last element must match that
// component. Literal last elements are found in a map, "*.ext" ones by
// suffix; only other globs are tried one by one.
type ignoreSet struct {
	parent     *ignoreSet
	base       int
	pats       []ignorePattern
	byName     map[string][]int32 // literal key -> indices into pats
	bySuffix   map[string][]int32 // key "*lit" -> indices, by lit
	suffixLens []int              // distinct len(lit) in bySuffix
	globs      []int32            // every other key
}

// newIgnoreSet adds pats over parent; with no pats it is parent itself.
func newIgnoreSet(parent *ignoreSet, pats []ignorePattern) *ignoreSet {
	if len(pats) == 0 {
		return parent
	}
	s := &ignoreSet{parent: parent, pats: pats, byName: map[string][]int32{}, bySuffix: map[string][]int32{}}
	if parent != nil {
		s.base = parent.base + len(parent.pats)
	}
	for i, p := range pats {
		switch {
		case p.key != "" && !hasMeta(p.key):
			s.byName[p.key] = append(s.byName[p.key], int32(i))
		case len(p.key) > 1 && p.key[0] == '*' && !hasMeta(p.key[1:]):
			lit := p.key[1:]
			if _, ok := s.bySuffix[lit]; !ok && !slices.Contains(s.suffixLens, len(lit)) {
				s.suffixLens = append(s.suffixLens, len(lit))
			}
			s.bySuffix[lit] = append(s.bySuffix[lit], int32(i))
		default:
			s.globs = append(s.globs, int32(i))
		}
	}
	return s
}

func hasMeta(s string) bool { return strings.ContainsAny(s, `*?[\`) }

// verdict is the latest pattern matching a path: its index across the
// chain (-1: none) and whether it excludes.
type verdict struct {
	idx     int
	exclude bool
}

var noVerdict = verdict{idx: -1}

// ignoreVerdicts is what a directory passes to its entries: the latest of
// all patterns matching it (for subdirectories) and of the patterns that
// are not directory-only (for files).
type ignoreVerdicts struct{ all, plain verdict }

// match returns the verdict for the entry name in a directory whose
// verdict is inherit. comps gives the entry's OS path components from the
// root (built only when a candidate must be tested). plain leaves out
// directory-only patterns, as files need: go-git applies "!dir/**/" and
// "dir/" to the files below dir through their parent component, which git
// does not.
func (s *ignoreSet) match(inherit verdict, name string, isDir, plain bool, comps func() []string) verdict {
	if s == nil {
		return inherit
	}
	var cands []int
	for lv := s; lv != nil && lv.base+len(lv.pats) > inherit.idx+1; lv = lv.parent {
		add := func(local []int32) {
			for _, i := range local {
				if g := lv.base + int(i); g > inherit.idx && !(plain && lv.pats[i].dirOnly) {
					cands = append(cands, g)
				}
			}
		}
		add(lv.byName[name])
		for _, n := range lv.suffixLens {
			if n <= len(name) {
				add(lv.bySuffix[name[len(name)-n:]])
			}
		}
		add(lv.globs)
	}
	if len(cands) == 0 {
		return inherit
	}
	slices.Sort(cands)
	path := comps()
	for i := len(cands) - 1; i >= 0; i-- {
		switch s.pattern(cands[i]).Match(path, isDir) {
		case gitignore.Exclude:
			return verdict{cands[i], true}
		case gitignore.Include:
			return verdict{cands[i], false}
		}
	}
	return inherit
}

// pattern finds the pattern with index g in the chain.
func (s *ignoreSet) pattern(g int) ignorePattern {
	for lv := s; ; lv = lv.parent {
		if g >= lv.base {
			return lv.pats[g-lv.base]
		}
	}
}

var errIgnoreTooLarge = errors.New("ignore file too large")

type limitedReader struct {
	r io.Reader
	n int64
}

func (l *limitedReader) Read(p []byte) (int, error) {
	if l.n <= 0 {
		return 0, errIgnoreTooLarge
	}
	if int64(len(p)) > l.n {
		p = p[:l.n]
	}
	n, err := l.r.Read(p)
	l.n -= int64(n)
	return n, err
}

// readIgnoreAt parses the ignore file name in the directory at at. A
// missing file, a symlink (git does not follow a symlinked .gitignore
// either) or anything but a regular file adds nothing; a resource failure
// is returned.
func readIgnoreAt(at dirfd.At, name string, domain func() []string) ([]ignorePattern, error) {
	f, err := at.OpenFile(name, dirfd.ID{})
	if err != nil {
		if dirfd.IsResource(err) {
			return nil, err
		}
		return nil, nil
	}
	defer f.Close()
	ps, err := parseIgnore(f, domain())
	if err != nil && dirfd.IsResource(err) {
		return nil, err
	}
	return ps, nil
}
