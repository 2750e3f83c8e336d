package stages

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"github.com/repoprep/repoprep/rules"
)

// dirFacts are triage's answers that depend only on a file's directory:
// whether everything below is vendored, tests or generated. They are
// computed once per directory, from the parent's facts and the directory's
// own name and evidence, instead of matching path regexes against every
// file (go-enry's vendor and test lists were a fifth of a run's CPU).
type dirFacts struct {
	vendored   string // why everything below is vendored, or ""
	test       string // why everything below is tests, or ""
	generated  string // why everything below is generated, or ""
	mainSource bool   // below a main source set: directory names mark no tests
	context    string // the four, as DirContext gives them
}

var rootFacts = &dirFacts{}

// srcDir is the OS directory of a record's source path ("." at the root).
// The path is '/'-separated and clean (Record.Src): cut at its last
// slash, not cleaned again, which would cost its length per file.
func srcDir(src string) string {
	if i := strings.LastIndexByte(src, '/'); i >= 0 {
		return src[:i]
	}
	return "."
}

// dirFacts returns the facts of an OS directory relative to Src, computing
// them (and their parents') on first use. Concurrent workers may compute a
// directory twice; the answers are equal and the first stored wins.
func (e *Env) dirFacts(dir string) *dirFacts {
	if dir == "." || dir == "" {
		return rootFacts
	}
	if v, ok := e.dirs.Load(dir); ok {
		return v.(*dirFacts)
	}
	parent := e.dirFacts(srcDir(dir))
	f := *parent
	slash := filepath.ToSlash(dir)
	t := e.Rules.Triage
	// The rules look at the last few segments only (their own length):
	// splitting the whole path would cost each directory its depth.
	segs := tailSegs(slash, maxRuleSegs(t))
	name := segs[len(segs)-1]
	if f.vendored == "" {
		for i := range t.VendorDirs {
			r := &t.VendorDirs[i]
			if r.Match(segs) && e.hasEvidence(r, slash) {
				f.vendored = fmt.Sprintf("%s/: %s", slash, r.Describe())
				break
			}
		}
	}
	if f.test == "" && !f.mainSource {
		if t.TestDirs[strings.ToLower(name)] {
			f.test = slash + "/ (tests.toml dirs)"
		} else {
			for i := range t.TestDirsIf {
				r := &t.TestDirsIf[i]
				if r.Match(segs) && e.hasEvidence(r, slash) {
					f.test = fmt.Sprintf("%s/: %s", slash, r.Describe())
					break
				}
			}
		}
	}
	if !f.mainSource {
		for _, ms := range t.MainSources {
			if hasSuffixSegs(segs, ms) {
				f.mainSource = true
			}
		}
	}
	if f.generated == "" && t.GeneratedDirs[name] {
		f.generated = slash + "/ (generated.toml dirs)"
	}
	f.context = ""
	if f.vendored != "" || f.test != "" || f.generated != "" || f.mainSource {
		f.context = fmt.Sprintf("%q %q %q %t", f.vendored, f.test, f.generated, f.mainSource)
	}
	v, _ := e.dirs.LoadOrStore(dir, &f)
	return v.(*dirFacts)
}

func hasSuffixSegs(segs, suffix []string) bool {
	if len(segs) < len(suffix) {
		return false
	}
	tail := segs[len(segs)-len(suffix):]
	for i := range suffix {
		if tail[i] != suffix[i] {
			return false
		}
	}
	return true
}

// tailSegs is the last n '/'-separated segments of p, or all of them.
func tailSegs(p string, n int) []string {
	start := len(p)
	for range max(n, 1) {
		i := strings.LastIndexByte(p[:start], '/')
		if i < 0 {
			start = 0
			break
		}
		start = i
	}
	if start > 0 {
		start++ // past the slash
	}
	return strings.Split(p[start:], "/")
}

// maxRuleSegs is the most segments any directory rule of t looks at.
func maxRuleSegs(t *rules.Triage) int {
	n := 1
	for i := range t.VendorDirs {
		n = max(n, len(t.VendorDirs[i].Segments))
	}
	for i := range t.TestDirsIf {
		n = max(n, len(t.TestDirsIf[i].Segments))
	}
	for _, ms := range t.MainSources {
		n = max(n, len(ms))
	}
	return n
}

// hasEvidence checks a directory rule's beside and inside files for the
// directory at slash (a '/'-separated path the rule matched).
func (e *Env) hasEvidence(r *rules.DirRule, slash string) bool {
	if e.Src == nil {
		return len(r.Beside)+len(r.Inside) == 0
	}
	holder := slash // less the segments the rule matched
	for range r.Segments {
		i := strings.LastIndexByte(holder, '/')
		if i < 0 {
			holder = ""
			break
		}
		holder = holder[:i]
	}
	for _, b := range r.Beside {
		if !e.exists(path.Join(holder, b)) {
			return false
		}
	}
	self := slash
	for _, in := range r.Inside {
		if !e.exists(path.Join(self, in)) {
			return false
		}
	}
	return true
}

// exists reports whether a slash path relative to Src exists; a glob in
// its last segment is matched against the directory's entries.
func (e *Env) exists(p string) bool {
	dir, name := path.Split(p)
	d := e.Src.DirAt(strings.TrimSuffix(dir, "/"))
	if !strings.ContainsAny(name, `*?[\`) {
		_, err := d.Lstat(name)
		return err == nil
	}
	names, _ := d.ReadDir()
	for _, n := range names {
		if ok, _ := path.Match(name, n); ok {
			return true
		}
	}
	return false
}

// DirContext is everything triage takes from a file's surroundings rather
// than from the file itself: whether its directory is vendored, tests or
// generated, or below a main source set, which depends on other files
// (a vendor/modules.txt, a spec_helper.rb). A refresh reuses an entry only
// when this is unchanged. Safe for concurrent use.
func (e *Env) DirContext(rec *Record) string {
	return e.dirFacts(srcDir(rec.Src())).context
}
