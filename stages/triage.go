package stages

import (
	"bytes"
	"context"
	"path"
	"strings"

	"github.com/go-enry/go-enry/v2"
	enrydata "github.com/go-enry/go-enry/v2/data"

	"github.com/repoprep/repoprep/rules"
)

// languageBytes bounds the content go-enry's heuristics and classifier see.
// The head is enough to tell languages apart; the naive Bayes classifier's
// cost grows with it, and it runs for every ambiguous extension (.h, .m,
// .s): at 8 KiB it was most of triage's time on GOROOT/src.
const languageBytes = 2 << 10

// Decision names the rule that decided something about a file, for
// `repoprep explain`: the step, and the pattern, directory or language
// that matched. Both are shared strings, so recording one costs nothing.
type Decision struct {
	Rule   string
	Detail string
}

// The steps of triage, in the order they are tried.
const (
	ruleScan        = "scan or classify"          // symlink, special file, unsafe name, ignored, unreadable
	ruleEmpty       = "empty file"                // staged only with a name from meaningful_empty.txt
	ruleVendorDir   = "vendoring directory"       // vendor.toml [[dir]] with its evidence
	ruleJunkName    = "junk name"                 // junk_names.txt or a [[junk]] glob
	ruleVendorFile  = "known third-party file"    // vendor.toml [[file]]: name and content
	ruleBanner      = "third-party banner"        // vendor.toml [[banner]]
	ruleContentType = "content type"              // mimetype's answer, by extensions.toml's mimes
	ruleZipOnly     = "zip content, by extension" // extensions.toml [zip_only]: a .key that is a Keynote zip
	ruleDER         = "DER content"               // one ASN.1 SEQUENCE spanning the file: a key or certificate
	ruleBinaryExt   = "binary, by extension"      // unknown binary content under an extension with a class
	ruleBinary      = "binary"                    // unknown binary content, no class
	ruleUserClass   = "rules-file class"          // a [[class]] from --rules or .repoprep.toml
	ruleSQL         = "SQL content"               // sql.toml: schema or dump
	ruleTextExt     = "text class by extension"   // extensions.toml: .bak, .dump...
	ruleMinified    = "minified"                  // line length of a .js/.css head
	ruleMediaText   = "media in text"             // a head that is essentially one line of base64
	ruleLFSPointer  = "Git LFS pointer"           // the content is on an LFS server
	ruleGenerated   = "generated"                 // generated.toml, or go-enry's content rules
	ruleLanguage    = "language"                  // go-enry, with languages.toml
	ruleOverride    = "path override"             // [[override]]
	ruleExclude     = "path exclude"              // exclude = [...]
	ruleTestDir     = "test directory"
	ruleTestName    = "test file name"
)

// Triage puts each file in exactly one of the five categories with a fine
// reason, names its language and marks tests. Content decides before the
// name: a ".txt" that is a ZIP is an archive. The user's path rules
// (include, not_vendored, override, exclude) come last, over every built-in
// rule.
func (e *Env) Triage(ctx context.Context, rec *Record) error {
	defer func() { // later stages re-read; don't hold heads
		if rec.work != nil {
			rec.work.head = nil
		}
	}()
	d := e.dirFacts(srcDir(rec.Src()))
	base := path.Base(rec.Path)
	var testWhy Decision
	rec.Test, testWhy = e.testFile(d, base)
	rec.state().testWhy = testWhy
	if rec.Category != "" { // decided by scan or classify: symlink, ignored, unreadable...
		rec.state().why = Decision{ruleScan, rec.Reason}
		return nil
	}
	u := e.userFacts(rec.Path)
	e.triageBuiltIn(rec, d, base, u)
	if u.override != nil {
		rec.Category, rec.Reason = u.override.Category, u.override.Reason
		rec.state().why = Decision{ruleOverride, u.overrideBy}
	}
	if u.excludedBy != "" {
		rec.Category, rec.Reason = "junk", ReasonExcludedByRule
		rec.state().why = Decision{ruleExclude, u.excludedBy}
	}
	return nil
}

// ReasonExcludedByRule is the reason of files and pruned directories a
// rules file's exclude patterns leave out.
const ReasonExcludedByRule = "excluded-by-rule"

// userFacts is what the user's path rules say about one file.
type userFacts struct {
	included    string // the include pattern that matched, or ""
	notVendored bool
	override    *rules.Override
	overrideBy  string
	excludedBy  string
}

func (e *Env) userFacts(p string) userFacts {
	var u userFacts
	pr := &e.Rules.Paths
	if pr.Empty() {
		return u
	}
	u.included, _ = pr.Include.Match(p, false)
	_, u.notVendored = pr.NotVendored.Match(p, false)
	u.notVendored = u.notVendored || u.included != ""
	u.override, u.overrideBy, _ = pr.Override(p)
	u.excludedBy, _ = pr.Exclude.Match(p, false)
	return u
}

// decidedByPath reports whether triage will decide a record from its path
// alone, so classify need not read it: a file under a vendoring directory
// or excluded by a rules file.
func (e *Env) decidedByPath(rec *Record) bool {
	d := e.dirFacts(srcDir(rec.Src()))
	if d.vendored == "" && e.Rules.Paths.Exclude.Len() == 0 {
		return false
	}
	u := e.userFacts(rec.Path)
	return u.excludedBy != "" || d.vendored != "" && !u.notVendored && u.override == nil
}

func (e *Env) triageBuiltIn(rec *Record, d *dirFacts, base string, u userFacts) {
	set := func(category, reason, rule, detail string) {
		rec.Category, rec.Reason = category, reason
		rec.state().why = Decision{rule, detail}
	}
	if rec.Size == 0 && !e.Rules.IsMeaningfulEmpty(base) {
		set("junk", "empty", ruleEmpty, "")
		return
	}
	if d.vendored != "" && !u.notVendored {
		set("junk", "vendored", ruleVendorDir, d.vendored)
		return
	}
	if u.included == "" {
		if reason, glob, ok := e.Rules.JunkRule(base); ok {
			set("junk", reason, ruleJunkName, glob)
			return
		}
	}
	if !u.notVendored {
		if rule, detail := e.vendoredFile(base, rec.sniffed()); rule != "" {
			set("junk", "vendored", rule, detail)
			return
		}
	}
	if u.included == "" && rec.isText && isLFSPointer(rec.sniffed(), rec.Size) {
		set("junk", "lfs-pointer", ruleLFSPointer, "version "+lfsSpec)
		return
	}
	extClass, hasExt := e.Rules.ByExt(base)
	if hasExt && e.Rules.Triage.ZipOnlyExt(base) {
		// A .key is a Keynote presentation only if it is a zip; a PEM or
		// DER key is judged by its content, as if it had no extension.
		if isZipMime(rec.Mime) {
			set(extClass.Category, extClass.Reason, ruleZipOnly, path.Ext(base))
			return
		}
		extClass, hasExt = rules.Class{}, false
	}
	if !rec.isText {
		if c, ok := e.Rules.ByMime(rec.Mime); ok && rec.Mime != octetStream {
			set(c.Category, c.Reason, ruleContentType, rec.Mime)
			return
		}
		// Unknown binary. A name that promises text may still be text
		// mimetype can't see (BOM-less UTF-16): let normalize decide.
		switch {
		case isDER(rec.sniffed(), rec.Size):
			set("junk", "certificate-store", ruleDER, "an ASN.1 SEQUENCE of the file's size")
			// A .crt promises PEM text; DER there is flagged as normalize
			// flagged it when it found the binary.
			rec.ExtMismatch = rec.ExtMismatch || hasExt && extClass.Content == "text"
		case hasExt && extClass.Content != "text":
			set(extClass.Category, extClass.Reason, ruleBinaryExt, path.Ext(base))
		case e.textByName(base, hasExt, extClass):
			e.triageText(rec, d, base, hasExt, extClass, u)
		default:
			set("junk", "binary", ruleBinary, rec.Mime)
		}
		return
	}
	e.triageText(rec, d, base, hasExt, extClass, u)
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

func (e *Env) triageText(rec *Record, d *dirFacts, base string, hasExt bool, extClass rules.Class, u userFacts) {
	head := rec.sniffed()
	if len(head) > languageBytes {
		head = head[:languageBytes]
	}
	set := func(category, reason, rule, detail string) {
		rec.Category, rec.Reason = category, reason
		rec.state().why = Decision{rule, detail}
	}
	switch {
	case hasExt && extClass.User:
		// A rules file's class is the user's word on an extension, text
		// included (the defaults leave text to go-enry's language).
		set(extClass.Category, extClass.Reason, ruleUserClass, path.Ext(base))
		if extClass.Category == "source" || extClass.Category == "text" {
			rec.Language, _ = e.language(base, head)
		}
		return
	case e.Rules.Triage.SQL.IsSQL(base):
		if marker := e.sqlDump(rec.sniffed()); marker != "" {
			set(extClass.Category, extClass.Reason, ruleSQL, marker)
			return
		}
		rec.Language, _ = e.language(base, head)
		set("source", "", ruleSQL, "schema or migration: no dump header, no bulk INSERT or COPY")
		return
	case hasExt && extClass.Content != "binary" && extClass.Category != "text":
		// Text that is data all the same: backups, .dump files, SVG images.
		set(extClass.Category, extClass.Reason, ruleTextExt, path.Ext(base))
		return
	case e.isMediaMime(rec.Mime):
		// An SVG by its content, whatever its name.
		c, _ := e.Rules.ByMime(rec.Mime)
		set(c.Category, c.Reason, ruleContentType, rec.Mime)
		return
	case u.included == "" && isMinified(base, rec.sniffed()):
		set("junk", "minified", ruleMinified, "over 500 bytes a line")
		return
	}
	if u.included == "" {
		if detail := e.generated(d, base, head); detail != "" {
			set("junk", "generated", ruleGenerated, detail)
			return
		}
		if isEncodedBlob(rec.sniffed()) {
			set("junk", reasonMediaText, ruleMediaText, "base64 runs over three quarters of the head")
			return
		}
	}
	lang, how := e.language(base, head)
	rec.Language = lang
	if lang != "" && (enry.GetLanguageType(lang) == enry.Programming || e.Rules.Triage.SourceLanguages[lang]) {
		set("source", "", ruleLanguage, how)
		return
	}
	set("text", "", ruleLanguage, how)
}

// language names a file's language and how it was found. The unambiguous
// extension or file name answers most files from a map; an ambiguous
// extension tries go-enry's per-extension content heuristics (a few
// regexes) and then languages.toml's preference; only the rest (.h, .m,
// no extension) pay for go-enry's full strategies (modelines, shebangs,
// the classifier).
func (e *Env) language(base string, head []byte) (lang, how string) {
	if lang, safe := enry.GetLanguageByExtension(base); safe {
		return lang, "by extension (go-enry)"
	}
	if lang, safe := enry.GetLanguageByFilename(base); safe {
		return lang, "by file name (go-enry)"
	}
	ext := strings.ToLower(path.Ext(base))
	if ext != "" {
		// A preference answers without reading, unless the content is
		// markup the preferred language is not (a Qt Linguist .ts file).
		if lang, ok := e.Rules.Triage.Prefer[ext]; ok && (!startsWithTag(head) || enry.GetLanguageType(lang) == enry.Markup) {
			return lang, e.Rules.Triage.PreferWhy[ext]
		}
		if langs := enry.GetLanguagesByContent(base, head, nil); len(langs) == 1 {
			return langs[0], "by content heuristics (go-enry)"
		}
	}
	return enryLanguage(base, head), "by go-enry's strategies (modeline, shebang, content), then a naive-Bayes classifier over go-enry's tables with ties broken by name"
}

// languageStrategies is go-enry's DefaultStrategies with its classifier
// replaced by classifyLanguages, which breaks ties by name where go-enry's
// break them by map order. withModeline adds the modeline strategy in
// front, as go-enry's list has it.
var (
	languageStrategies = []enry.Strategy{
		enry.GetLanguagesByFilename, enry.GetLanguagesByShebang, enry.GetLanguagesByExtension,
		enry.GetLanguagesByXML, enry.GetLanguagesByManpage, enry.GetLanguagesByContent, classifyLanguages,
	}
	withModeline = append([]enry.Strategy{enry.GetLanguagesByModeline}, languageStrategies...)
)

// enryLanguage is enry.GetLanguage with a deterministic classifier,
// skipping the modeline strategy, whose regexes are most of the cost on
// files with no known extension, when the head holds no modeline marker:
// Emacs's "-*-" or Vim's "vi:", "vim", "Vim" or "ex:" (every form its
// regexes accept contains one of them).
func enryLanguage(base string, head []byte) string {
	if enry.IsBinary(head) {
		return ""
	}
	strategies := languageStrategies
	if bytes.Contains(head, []byte("-*-")) || bytes.Contains(head, []byte("vi:")) || bytes.Contains(head, []byte("vim")) ||
		bytes.Contains(head, []byte("Vim")) || bytes.Contains(head, []byte("ex:")) {
		strategies = withModeline
	}
	var langs []string
	for _, strategy := range strategies { // GetLanguages' loop
		candidates := strategy(base, head, langs)
		switch len(candidates) {
		case 0:
			continue
		case 1:
			return candidates[0]
		}
		langs = candidates
	}
	if len(langs) > 0 {
		return langs[0]
	}
	return ""
}

// startsWithTag reports whether the head opens with an XML or HTML tag.
func startsWithTag(head []byte) bool {
	t := bytes.TrimLeft(head, " \t\r\n\ufeff")
	return len(t) > 1 && t[0] == '<' && (t[1] == '?' || t[1] == '!' || t[1] >= 'A' && t[1] <= 'z')
}

// generated says why a file is generated, or "" when it is not: a
// generated directory, a generated name, or go-enry's content rules.
// JavaScript and CSS only count when a header says so: go-enry calls any
// .js averaging over ~110 bytes a line minified, which drops small
// hand-written modules; isMinified judges those by our own threshold.
func (e *Env) generated(d *dirFacts, base string, head []byte) string {
	if d.generated != "" {
		return d.generated
	}
	lower := strings.ToLower(base)
	if g, ok := e.Rules.Triage.GeneratedNames.Match(lower); ok {
		return "name " + g + " (generated.toml)"
	}
	ext := path.Ext(lower)
	switch ext {
	case ".js", ".mjs", ".cjs", ".css", ".jsx":
		top := bytes.ToLower(head[:min(len(head), 512)])
		for _, m := range e.Rules.Triage.GeneratedJSMarkers {
			if bytes.Contains(top, m) {
				return "head says " + string(m) + " (generated.toml)"
			}
		}
		return ""
	case ".go":
		// go-enry's only rule for .go (isGeneratedGo): "Code generated by"
		// in the first 40 lines of a file of more than one line, without
		// its per-line allocation.
		if generatedGo(head) {
			return "content: Code generated by (go-enry's rule for Go)"
		}
		return ""
	}
	for _, m := range enrydata.GeneratedCodeMatchers {
		if m(lower, ext, head) {
			return "content (go-enry's generated-code rules)"
		}
	}
	return ""
}

func generatedGo(head []byte) bool {
	rest := head
	for n := 0; n < 40 && len(rest) > 0; n++ {
		line := rest
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			line, rest = rest[:i], rest[i+1:]
		} else {
			if n == 0 {
				return false // one line: go-enry wants more
			}
			rest = nil
		}
		if bytes.Contains(line, []byte("Code generated by")) {
			return true
		}
	}
	return false
}

// minifiedLineBytes: hand-written JS and CSS rarely averages more than a
// couple of hundred bytes a line; bundlers put whole files on one.
const minifiedLineBytes = 500

// lfsSpec is the first line of a Git LFS pointer file (git-lfs's
// docs/spec.md); hawser was the project's name before it was released.
const lfsSpec = "https://git-lfs.github.com/spec/v1"

// isLFSPointer reports a Git LFS pointer: under 1024 bytes, a version line
// naming the spec, and the object's id. A checkout without git-lfs leaves
// one where an image or a model should be (788 of them in matomo's
// expected screenshots), and it says nothing a reader wants.
func isLFSPointer(head []byte, size int64) bool {
	if size >= 1024 {
		return false
	}
	rest, ok := bytes.CutPrefix(head, []byte("version "+lfsSpec+"\n"))
	if !ok {
		rest, ok = bytes.CutPrefix(head, []byte("version https://hawser.github.com/spec/v1\n"))
	}
	return ok && bytes.Contains(rest, []byte("oid sha256:"))
}

func isMinified(base string, head []byte) bool {
	switch strings.ToLower(path.Ext(base)) {
	case ".js", ".mjs", ".cjs", ".css":
	default:
		return false
	}
	lines := bytes.Count(head, []byte{'\n'}) + 1
	return len(head)/lines > minifiedLineBytes
}

// vendoredFile checks vendor.toml's known third-party files (name, then
// content) and banners (content) against the first rules.VendorBytes of
// the head.
func (e *Env) vendoredFile(base string, head []byte) (rule, detail string) {
	if len(head) == 0 {
		return "", ""
	}
	top := head[:min(len(head), rules.VendorBytes)]
	t := e.Rules.Triage
	for i := range t.VendorFiles {
		f := &t.VendorFiles[i]
		if g, ok := f.Globs.Match(base); ok && f.Re.Match(top) {
			return ruleVendorFile, g + " with content " + f.Content
		}
	}
	ext := strings.ToLower(path.Ext(base))
	for i := range t.VendorBanners {
		b := &t.VendorBanners[i]
		for _, x := range b.Extensions {
			if x == ext && b.Re.Match(top) {
				return ruleBanner, string(firstLine(top))
			}
		}
	}
	return "", ""
}

func firstLine(b []byte) []byte {
	b = bytes.TrimLeft(b, " \t\r\n")
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		b = b[:i]
	}
	return b[:min(len(b), 120)]
}

// testFile marks tests: everything under a test directory, and files named
// by their language's test convention.
func (e *Env) testFile(d *dirFacts, base string) (bool, Decision) {
	if d.test != "" {
		return true, Decision{ruleTestDir, d.test}
	}
	t := e.Rules.Triage
	if i := t.TestGlobs.Index(base); i >= 0 {
		return true, Decision{ruleTestName, t.TestGlobLanguage[i]}
	}
	return false, Decision{}
}

// Why says which rule decided the record's category and reason.
func (r *Record) Why() Decision {
	if r.work == nil {
		return Decision{} // the loop is done with the record
	}
	return r.work.why
}

// TestWhy says why the record is marked test, if it is.
func (r *Record) TestWhy() Decision {
	if r.work == nil {
		return Decision{}
	}
	return r.work.testWhy
}
