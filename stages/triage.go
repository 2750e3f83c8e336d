package stages

import (
	"bytes"
	"context"
	"path"
	"regexp"
	"strings"

	"github.com/go-enry/go-enry/v2"

	"github.com/repoprep/repoprep/rules"
)

// languageBytes bounds the content go-enry's heuristics and classifier see.
// The head is enough to tell languages apart; the naive Bayes classifier's
// cost grows with it, and it runs for every ambiguous extension (.s, .h,
// .m): at 8 KiB it was most of triage's time on GOROOT/src.
const languageBytes = 2 << 10

// Triage puts each file in exactly one of the five categories with a fine
// reason, names its language and marks tests. Content decides before the
// name: a ".txt" that is a ZIP is an archive.
func (e *Env) Triage(ctx context.Context, rec *Record) error {
	rec.Test = isTestPath(rec.Path)
	defer func() { rec.head = nil }() // later stages re-read; don't hold heads
	if rec.Category != "" {           // decided by scan or classify: symlink, ignored, unreadable...
		return nil
	}
	if rec.Size == 0 {
		rec.Category, rec.Reason = "junk", "empty"
		return nil
	}
	base := path.Base(rec.Path)
	if reason, ok := e.Rules.JunkReason(base); ok {
		rec.Category, rec.Reason = "junk", reason
		return nil
	}
	if e.isVendored(rec.Path) {
		rec.Category, rec.Reason = "junk", "vendored"
		return nil
	}
	extClass, hasExt := e.Rules.ByExt(base)
	if !rec.isText {
		if c, ok := e.Rules.ByMime(rec.Mime); ok && rec.Mime != octetStream {
			rec.Category, rec.Reason = c.Category, c.Reason
			return nil
		}
		// Unknown binary. A name that promises text may still be text
		// mimetype can't see (BOM-less UTF-16): let normalize decide.
		switch {
		case hasExt && extClass.Content != "text":
			rec.Category, rec.Reason = extClass.Category, extClass.Reason
		case e.textByName(base, hasExt, extClass):
			e.triageText(rec, base, hasExt, extClass)
		default:
			rec.Category, rec.Reason = "junk", "binary"
		}
		return nil
	}
	e.triageText(rec, base, hasExt, extClass)
	return nil
}

// textByName reports whether a name promises text.
func (e *Env) textByName(base string, hasExt bool, c rules.Class) bool {
	if hasExt {
		return c.Content == "text"
	}
	_, ok := enry.GetLanguageByExtension(base)
	if !ok {
		_, ok = enry.GetLanguageByFilename(base)
	}
	return ok
}

func (e *Env) triageText(rec *Record, base string, hasExt bool, extClass rules.Class) {
	head := rec.head
	if len(head) > languageBytes {
		head = head[:languageBytes]
	}
	switch {
	case hasExt && extClass.Content != "binary" && extClass.Category != "text":
		// Text that is data all the same: SQL dumps, backups.
		rec.Category, rec.Reason = extClass.Category, extClass.Reason
		return
	case isMinified(base, rec.head):
		rec.Category, rec.Reason = "junk", "minified"
		return
	case isGenerated(rec.Path, base, head):
		rec.Category, rec.Reason = "junk", "generated"
		return
	}
	rec.Language = language(base, head)
	if rec.Language != "" && enry.GetLanguageType(rec.Language) == enry.Programming {
		rec.Category = "source"
		return
	}
	rec.Category = "text"
}

// language names a file's language. The unambiguous extension or file name
// answers most files from a map; only the rest pay for go-enry's content
// strategies (modelines, shebangs, the classifier).
func language(base string, head []byte) string {
	if lang, safe := enry.GetLanguageByExtension(base); safe {
		return lang
	}
	if lang, safe := enry.GetLanguageByFilename(base); safe {
		return lang
	}
	return enry.GetLanguage(base, head)
}

// isGenerated asks go-enry, except for JavaScript and CSS: its check calls
// any .js averaging over ~110 bytes a line minified, which drops small
// hand-written modules. isMinified judges those by our own threshold; here
// they only count as generated when a header says so.
func isGenerated(p, base string, head []byte) bool {
	switch strings.ToLower(path.Ext(base)) {
	case ".js", ".mjs", ".cjs", ".css", ".jsx":
		top := head[:min(len(head), 512)]
		return bytes.Contains(top, []byte("@generated")) || bytes.Contains(bytes.ToLower(top), []byte("do not edit"))
	}
	return enry.IsGenerated(p, head)
}

// minifiedLineBytes: hand-written JS and CSS rarely averages more than a
// couple of hundred bytes a line; bundlers put whole files on one.
const minifiedLineBytes = 500

func isMinified(base string, head []byte) bool {
	switch strings.ToLower(path.Ext(base)) {
	case ".js", ".mjs", ".cjs", ".css":
	default:
		return false
	}
	lines := bytes.Count(head, []byte{'\n'}) + 1
	return len(head)/lines > minifiedLineBytes
}

// isVendored asks go-enry's vendor patterns (vendor/, third_party/,
// jquery.js, gradlew...). Those are linguist's "leave out of language
// statistics" list and also claim testdata/, .github/ and .d.ts files, which
// are the repository's own: rules/defaults/not_vendored.txt takes them back.
func (e *Env) isVendored(p string) bool {
	if !enry.IsVendor(p) {
		return false
	}
	for _, re := range e.Rules.NotVendored {
		if re.MatchString(p) {
			return false
		}
	}
	return true
}

// testDirs are directory names that hold tests and fixtures in most ecosystems.
var testDirs = map[string]bool{
	"test": true, "tests": true, "__tests__": true, "testdata": true,
	"spec": true, "specs": true, "fixtures": true, "__fixtures__": true,
	"__mocks__": true, "e2e": true,
}

// testName catches test file names go-enry misses, such as x.test.jsx
// and x.spec.tsx.
var testName = regexp.MustCompile(`\.(test|spec)\.[cm]?[jt]sx?$|_(test|spec)\.[a-z]+$|^test_.+\.py$`)

// isTestPath marks test files and fixtures: go-enry's test patterns
// (foo_test.go, test_foo.py, foo.spec.ts...) plus test directories.
func isTestPath(p string) bool {
	if enry.IsTest(p) || testName.MatchString(path.Base(p)) {
		return true
	}
	// One pass over the components: walking up with path.Dir cleaned the
	// whole path at every level, quadratic in the depth.
	for seg := range strings.SplitSeq(path.Dir(p), "/") {
		if testDirs[strings.ToLower(seg)] {
			return true
		}
	}
	return false
}
