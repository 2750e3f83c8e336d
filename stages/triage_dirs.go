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
func srcDir(src string) string { return filepath.Dir(src) }

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
	parent := e.dirFacts(filepath.Dir(dir))
	f := *parent
	slash := filepath.ToSlash(dir)
	segs := strings.Split(slash, "/")
	name := segs[len(segs)-1]
	t := e.Rules.Triage
	if f.vendored == "" {
		for i := range t.VendorDirs {
			r := &t.VendorDirs[i]
			if r.Match(segs) && e.hasEvidence(r, segs) {
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
				if r.Match(segs) && e.hasEvidence(r, segs) {
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

// hasEvidence checks a directory rule's beside and inside files for the
// directory with these segments.
func (e *Env) hasEvidence(r *rules.DirRule, segs []string) bool {
	if e.Src == nil {
		return len(r.Beside)+len(r.Inside) == 0
	}
	holder := path.Join(segs[:len(segs)-len(r.Segments)]...)
	for _, b := range r.Beside {
		if !e.exists(path.Join(holder, b)) {
			return false
		}
	}
	self := path.Join(segs...)
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
