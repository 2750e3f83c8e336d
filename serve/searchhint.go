package serve

// What a search's last line advises is about this snapshot and this
// pattern: the example path_glob, and what it says of letter case.

import (
	"cmp"
	"path"
	"regexp/syntax"
	"slices"
	"strings"
	"sync"
	"unicode"

	"github.com/repoprep/repoprep/snapshot"
)

// exampleGlob is the path_glob a search suggests when it left matches out:
// one that fits the snapshot (src/**/*.py in a Python repository, never
// src/**/*.go there). Found on the first use; safe for concurrent use.
type exampleGlob struct {
	once sync.Once
	glob string
}

// exampleGlob is the snapshot's main kind of file as a glob: the extension
// most staged source files have (of any staged file when there is no
// source), under the top-level directory holding most of them, e.g.
// "src/**/*.py", or "**/*.py" when most lie at the root.
func (sn *view) exampleGlob() string {
	sn.glob.once.Do(func() { sn.glob.glob = mainGlob(sn.readable) })
	return sn.glob.glob
}

func mainGlob(readable []*snapshot.Entry) string {
	byExt := map[string]int{}
	for _, source := range []bool{true, false} {
		for _, e := range readable {
			if ext := path.Ext(e.Path); ext != "" && (e.Category == "source") == source {
				byExt[ext]++
			}
		}
		if len(byExt) > 0 {
			break // source files decide when there are any
		}
	}
	ext := most(byExt)
	if ext == "" {
		return "**"
	}
	byDir := map[string]int{}
	atRoot := 0
	for _, e := range readable {
		if path.Ext(e.Path) != ext {
			continue
		}
		if dir, _, ok := strings.Cut(e.Path, "/"); ok {
			byDir[dir]++
		} else {
			atRoot++
		}
	}
	if dir := most(byDir); dir != "" && byDir[dir] > atRoot {
		return dir + "/**/*" + ext
	}
	return "**/*" + ext
}

// most is the key with the largest count, the first in byte order among
// equals, or "" for an empty map.
func most(counts map[string]int) string {
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int {
		return cmp.Or(counts[b]-counts[a], strings.Compare(a, b))
	})
	if len(keys) == 0 {
		return ""
	}
	return keys[0]
}

// caseNote is what a search that found nothing says about letter case:
// how to ignore it when the pattern heeds it, that it is ignored already
// when (?i) covers every letter, nothing when the pattern has no letters
// (`\d{40}`) or ignores case in part only.
func caseNote(tree *syntax.Regexp) string {
	folded, exact := caseOfLetters(tree)
	switch {
	case exact && !folded:
		return ", case-sensitive (prefix (?i) to ignore case)"
	case folded && !exact:
		return ", case-insensitive"
	}
	return ""
}

// caseOfLetters reports whether the pattern has letters matched ignoring
// case and letters matched exactly.
func caseOfLetters(re *syntax.Regexp) (folded, exact bool) {
	if re.Op == syntax.OpLiteral {
		for _, r := range re.Rune {
			if unicode.SimpleFold(r) == r {
				continue // no other case: neither
			}
			if re.Flags&syntax.FoldCase != 0 {
				folded = true
			} else {
				exact = true
			}
		}
	}
	for _, sub := range re.Sub {
		f, e := caseOfLetters(sub)
		folded, exact = folded || f, exact || e
	}
	return folded, exact
}
