package stages

import (
	"bufio"
	"errors"
	"io"
	"slices"
	"strings"

	"github.com/repoprep/repoprep/internal/dirfd"
	"github.com/repoprep/repoprep/rules"
)

// maxIgnoreBytes bounds an ignore file read: a hostile multi-gigabyte
// .gitignore must not exhaust memory.
const maxIgnoreBytes = 1 << 20

// ignorePattern is one ignore line of the ignore file in the directory
// whose path has domain components.
type ignorePattern struct {
	rules.Glob
	domain int
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
		ps = append(ps, ignorePattern{Glob: rules.ParseGlob(line), domain: len(domain)})
	}
	if err := sc.Err(); err != nil && !errors.Is(err, errIgnoreTooLarge) {
		return ps, err
	}
	return ps, nil
}

// ignoreSet is the ignore patterns in force in one directory: its
// parent's, then those of its own ignore files, with later patterns
// winning as in git. Patterns are numbered across the chain (base), so an
// index names one pattern for the whole walk.
//
// Matching is indexed, not a pass over every pattern per file: a 1 MiB
// .gitignore holds tens of thousands of patterns, and testing each one
// against each file cost 13 ms a file. A pattern decides on a path only
// when it matches the path itself, so its last element must match the
// path's last component: literal last elements are found in a map,
// "*.ext" ones by suffix; only other globs are tried one by one. A path
// below an excluded directory is excluded whatever follows (git cannot
// re-include it); the walk prunes such directories unless a rules file
// takes them back.
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
		switch key := p.Last(); {
		case key != "" && !hasMeta(key):
			s.byName[key] = append(s.byName[key], int32(i))
		case len(key) > 1 && key[0] == '*' && !hasMeta(key[1:]):
			lit := key[1:]
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

// match returns the verdict for the entry name in a directory whose own
// verdict is dir: an excluded directory's entries are excluded by the same
// pattern; otherwise the latest pattern in the chain that matches the
// entry's path decides, and a directory-only pattern only on a directory.
// comps gives the entry's OS path components from the root.
func (s *ignoreSet) match(dir verdict, name string, isDir bool, comps func() []string) verdict {
	if s == nil || dir.exclude {
		return dir
	}
	var cands []int
	for lv := s; lv != nil; lv = lv.parent {
		add := func(local []int32) {
			for _, i := range local {
				if isDir || !lv.pats[i].DirOnly {
					cands = append(cands, lv.base+int(i))
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
		return noVerdict
	}
	slices.Sort(cands)
	path := comps()
	for i := len(cands) - 1; i >= 0; i-- {
		if p := s.pattern(cands[i]); len(path) > p.domain && p.Match(path[p.domain:], isDir) {
			return verdict{cands[i], !p.Negate}
		}
	}
	return noVerdict
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
