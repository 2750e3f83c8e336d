package report

import (
	"fmt"
	"html/template"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/repoprep/repoprep/rules"
)

// The sections of report.html, in the order the page shows them. Each
// builds its tables from the Page; a figure names its source (html_num.go).

func tokensSection(p Page, a *Audit) section {
	s := section{ID: "tokens", Title: "Where the tokens are"}
	dirs := table{Caption: "Tokens by top-level directory", Head: []string{"directory", "staged files", "tokens"}, Empty: "No staged files."}
	for i, d := range a.TokensByDir {
		name := d.Name + "/"
		if d.Name == "." {
			name = "(files at the root)"
		}
		dirs.Rows = append(dirs.Rows, row{Name: name, Cells: []cell{
			fig(numInt(d.Files, srcReport("audit.tokens_by_dir[%d].files", i))),
			fig(numInt(d.Tokens, srcReport("audit.tokens_by_dir[%d].tokens", i))),
		}})
	}
	top := table{Caption: "Staged files with the most tokens", Head: []string{"file", "tokens", "lines", "category"}, Empty: "No staged files."}
	for i, f := range a.TopTokenFiles {
		top.Rows = append(top.Rows, row{Name: f.Path, Cells: []cell{
			fig(numInt(f.Tokens, srcReport("audit.top_token_files[%d].tokens", i))),
			fig(numInt(f.Lines, srcReport("audit.top_token_files[%d].lines", i))),
			text(f.Category),
		}})
	}
	s.Tables = []table{dirs, top}
	return s
}

func categoriesSection(p Page, a *Audit) section {
	s := section{ID: "categories", Title: "Categories and languages"}
	tokensOf := map[string]int{}
	for i, c := range a.TokensByCategory {
		tokensOf[c.Name] = i
	}
	cats := table{Caption: "Files by category", Head: []string{"category", "files", "bytes", "staged tokens"}, Empty: "No files."}
	for i, c := range a.Categories {
		tok := text("none staged")
		if j, ok := tokensOf[c.Name]; ok {
			tok = fig(numInt(a.TokensByCategory[j].Tokens, srcReport("audit.tokens_by_category[%d].tokens", j)))
		}
		cats.Rows = append(cats.Rows, row{Name: c.Name, Cells: []cell{
			fig(numInt(c.Files, srcReport("audit.categories[%d].files", i))),
			fig(numBytes(c.Bytes, srcReport("audit.categories[%d].bytes", i))),
			tok,
		}})
	}
	type lang struct {
		name          string
		files         int
		bytes, tokens int64
	}
	byLang := map[string]*lang{}
	for i := range p.Manifest.Files {
		e := &p.Manifest.Files[i]
		if !e.Staged {
			continue
		}
		l := byLang[e.Language]
		if l == nil {
			l = &lang{name: e.Language}
			byLang[e.Language] = l
		}
		l.files++
		l.bytes += e.Size
		l.tokens += int64(e.Tokens)
	}
	langs := slices.Collect(maps.Values(byLang))
	sort.Slice(langs, func(i, j int) bool {
		if langs[i].tokens != langs[j].tokens {
			return langs[i].tokens > langs[j].tokens
		}
		return langs[i].name < langs[j].name
	})
	lt := table{Caption: "Staged files by language", Head: []string{"language", "files", "bytes", "tokens"}, Empty: "No staged files."}
	for _, l := range langs[:min(len(langs), pageMaxRows)] {
		pred, name := eq("language", l.name), l.name
		if l.name == "" {
			pred, name = "!language", "(no language)"
		}
		lt.Rows = append(lt.Rows, row{Name: name, Cells: []cell{
			fig(numInt(l.files, srcAgg("files", "count", "", "staged", pred))),
			fig(numBytes(l.bytes, srcAgg("files", "sum", "size", "staged", pred))),
			fig(numInt(l.tokens, srcAgg("files", "sum", "tokens", "staged", pred))),
		}})
	}
	lt.More = more(len(langs), pageMaxRows, srcAgg("files", "distinct", "language", "staged"))
	exts := table{Caption: "Extensions with the most files", Head: []string{"extension", "files", "bytes"}}
	for i, c := range a.Extensions {
		exts.Rows = append(exts.Rows, row{Name: c.Name, Cells: []cell{
			fig(numInt(c.Files, srcReport("audit.extensions[%d].files", i))),
			fig(numBytes(c.Bytes, srcReport("audit.extensions[%d].bytes", i))),
		}})
	}
	s.Tables = []table{cats, lt, exts}
	return s
}

func leftOutSection(a *Audit) section {
	s := section{ID: "left-out", Title: "What was left out, and why"}
	reasons := table{Caption: "Files by category and reason", Head: []string{"category/reason", "files", "bytes"}, Empty: "Every file is plain source or text."}
	for i, c := range a.Reasons {
		reasons.Rows = append(reasons.Rows, row{Name: c.Name, Cells: []cell{
			fig(numInt(c.Files, srcReport("audit.reasons[%d].files", i))),
			fig(numBytes(c.Bytes, srcReport("audit.reasons[%d].bytes", i))),
		}})
	}
	files := table{Caption: "Largest files left out", Head: []string{"file", "size", "category/reason"}, Empty: "Every file was staged (or is a duplicate of a staged one)."}
	for i, f := range a.LeftOut {
		why := f.Category
		if f.Reason != "" {
			why += "/" + f.Reason
		}
		r := row{Name: f.Path, Cells: []cell{fig(numBytes(f.Size, srcReport("audit.left_out[%d].size", i))), text(why)}}
		if f.Test {
			r.Mark = "test"
		}
		files.Rows = append(files.Rows, r)
	}
	files.More = more(a.LeftOutCount, len(a.LeftOut), srcReport("audit.left_out_count"))
	pruned := table{Caption: "Directories not walked", Head: []string{"directory", "files below", "reason"}, Empty: "Every directory was walked."}
	for i, d := range a.PrunedDirs {
		n := numInt(d.Files, srcReport("audit.pruned_dirs[%d].files", i))
		if d.Capped {
			n += "+" // the count stopped at its bound
		}
		pruned.Rows = append(pruned.Rows, row{Name: d.Path + "/", Cells: []cell{fig(n), text(d.Reason)}})
	}
	pruned.More = more(a.Pruned, len(a.PrunedDirs), srcReport("audit.pruned"))
	s.Notes = []template.HTML{
		"Not walked: " + numInt(a.Pruned, srcReport("audit.pruned")) + " directories holding " +
			numInt(a.PrunedFiles, srcReport("audit.pruned_files")) + " files (counted from their entries).",
	}
	large := table{Caption: "Files over 5 MiB", Head: []string{"file", "size", "category"}}
	for i, f := range a.LargeFiles {
		large.Rows = append(large.Rows, row{Name: f.Path, Cells: []cell{fig(numBytes(f.Size, srcReport("audit.large_files[%d].size", i))), text(f.Category)}})
	}
	large.More = more(a.LargeCount, len(a.LargeFiles), srcReport("audit.large_count"))
	mism := table{Caption: "Extension and content disagree", Head: []string{"file", "size", "content"}}
	for i, f := range a.Mismatches {
		r := row{Name: f.Path, Cells: []cell{fig(numBytes(f.Size, srcReport("audit.mismatches[%d].size", i))), text(f.Mime)}}
		if f.Test {
			r.Mark = "test"
		}
		mism.Rows = append(mism.Rows, r)
	}
	mism.More = more(a.MismatchCount, len(a.Mismatches), srcReport("audit.mismatch_count"))
	s.Tables = []table{reasons, files, pruned}
	for _, t := range []table{large, mism} {
		if len(t.Rows) > 0 {
			s.Tables = append(s.Tables, t)
		}
	}
	return s
}

// refusedReasons are the reasons of texts no decoding was good enough for.
var refusedReasons = []string{"undecodable", "mojibake"}

func encodingsSection(p Page, a *Audit) section {
	s := section{ID: "encodings", Title: "Encodings"}
	found := table{Caption: "Source encodings of the staged texts", Head: []string{"encoding", "files", "bytes"}, Empty: "No staged texts."}
	for i, c := range a.Encodings {
		r := row{Name: c.Name, Cells: []cell{
			fig(numInt(c.Files, srcReport("audit.encodings[%d].files", i))),
			fig(numBytes(c.Bytes, srcReport("audit.encodings[%d].bytes", i))),
		}}
		if c.Name != "utf-8" {
			r.Mark = "converted to UTF-8"
		}
		found.Rows = append(found.Rows, r)
	}
	var bom, crlf, moji, replaced int64
	for i := range p.Manifest.Files {
		e := &p.Manifest.Files[i]
		if !e.Staged {
			continue
		}
		bom += b2i(e.BOM)
		crlf += b2i(e.CRLF)
		moji += b2i(e.Mojibake)
		replaced += int64(e.Replaced)
	}
	conv := table{Caption: "Conversions of the staged texts", Head: []string{"conversion", "files"}}
	conv.Rows = []row{
		{Name: "byte-order mark removed", Cells: []cell{fig(numInt(bom, srcAgg("files", "count", "", "staged", "bom")))}},
		{Name: "CRLF line ends made LF", Cells: []cell{fig(numInt(crlf, srcAgg("files", "count", "", "staged", "crlf")))}},
		{Name: "staged as written, looks double-encoded", Cells: []cell{fig(numInt(moji, srcAgg("files", "count", "", "staged", "mojibake")))}},
		{Name: "broken double-byte pairs replaced (characters)", Cells: []cell{fig(numInt(replaced, srcAgg("files", "sum", "replaced", "staged")))}},
	}
	s.Tables = []table{found, conv}
	for _, reason := range refusedReasons {
		t := table{Caption: "Refused: " + reason, Head: []string{"file", "size", "category"}}
		n := 0
		for i := range p.Manifest.Files {
			e := &p.Manifest.Files[i]
			if e.Reason != reason {
				continue
			}
			n++
			if n <= pageMaxRows {
				t.Rows = append(t.Rows, row{Name: e.Path, Cells: []cell{fig(numBytes(e.Size, srcAgg("files", "sum", "size", eq("path", e.Path)))), text(e.Category)}})
			}
		}
		if n == 0 {
			continue
		}
		t.More = more(n, pageMaxRows, srcAgg("files", "count", "", eq("reason", reason)))
		s.Tables = append(s.Tables, t)
	}
	if len(s.Tables) == 2 {
		s.Notes = []template.HTML{"No text was refused for its encoding."}
	}
	return s
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func secretsSection(p Page, a *Audit) section {
	s := section{ID: "secrets", Title: "Secrets (masked)"}
	var cred, pii, left int
	kindOf := map[string]string{}
	type fileRow struct {
		path      string
		findings  int
		notStaged bool
		rules     []string
	}
	byPath := map[string]*fileRow{}
	var paths []string
	for _, f := range p.Secrets {
		switch f.Kind {
		case rules.KindCredential:
			cred++
		case rules.KindPII:
			pii++
		}
		if !f.Staged {
			left++
		}
		kindOf[f.Rule] = f.Kind
		fr := byPath[f.Path]
		if fr == nil {
			fr = &fileRow{path: f.Path}
			byPath[f.Path] = fr
			paths = append(paths, f.Path)
		}
		fr.findings++
		fr.notStaged = fr.notStaged || !f.Staged
		if !slices.Contains(fr.rules, f.Rule) {
			fr.rules = append(fr.rules, f.Rule)
		}
	}
	s.Notes = []template.HTML{
		numInt(len(p.Secrets), srcAgg("secrets", "count", "")) + " findings: " +
			numInt(cred, srcAgg("secrets", "count", "", eq("kind", rules.KindCredential))) + " credentials, " +
			numInt(pii, srcAgg("secrets", "count", "", eq("kind", rules.KindPII))) + " personal data; " +
			numInt(left, srcAgg("secrets", "count", "", "!staged")) + " in files that were not staged (marked \u201cnot staged\u201d: reported, never copied).",
	}
	if len(p.Secrets) == 0 {
		s.Notes = []template.HTML{"No secrets found."}
		return s
	}
	byRule := table{Caption: "Findings per rule", Head: []string{"rule", "kind", "files", "findings"}}
	for i, c := range a.Secrets {
		byRule.Rows = append(byRule.Rows, row{Name: c.Name, Cells: []cell{
			text(kindLabel(kindOf[c.Name])),
			fig(numInt(c.Files, srcReport("audit.secrets[%d].files", i))),
			fig(numInt(c.Findings, srcReport("audit.secrets[%d].findings", i))),
		}})
	}
	sort.SliceStable(paths, func(i, j int) bool {
		a, b := byPath[paths[i]], byPath[paths[j]]
		if a.findings != b.findings {
			return a.findings > b.findings
		}
		return a.path < b.path
	})
	byFile := table{Caption: "Files with findings, most first", Head: []string{"file", "findings", "rules"}}
	for _, pth := range paths[:min(len(paths), pageMaxRows)] {
		fr := byPath[pth]
		r := row{Name: fr.path, Cells: []cell{
			fig(numInt(fr.findings, srcAgg("secrets", "count", "", eq("path", fr.path)))),
			text(strings.Join(fr.rules, ", ")),
		}}
		if fr.notStaged {
			r.Mark = "not staged"
		}
		byFile.Rows = append(byFile.Rows, r)
	}
	byFile.More = more(len(paths), pageMaxRows, srcAgg("secrets", "distinct", "path"))
	list := table{Caption: "Findings, in secrets.json's order", Head: []string{"file", "line", "rule", "kind", "masked value"}}
	for i, f := range p.Secrets[:min(len(p.Secrets), pageMaxRows)] {
		r := row{Name: f.Path, Cells: []cell{
			fig(numInt(f.Line, fmt.Sprintf("secrets:findings[%d].line", i))),
			text(f.Rule), text(kindLabel(f.Kind)), text(f.Match),
		}}
		if !f.Staged {
			r.Mark = "not staged"
		}
		list.Rows = append(list.Rows, r)
	}
	list.More = more(len(p.Secrets), pageMaxRows, srcAgg("secrets", "count", ""))
	s.Tables = []table{byRule, byFile, list}
	return s
}

func kindLabel(kind string) string {
	switch kind {
	case rules.KindCredential:
		return "credential"
	case rules.KindPII:
		return "personal data"
	}
	return kind
}

func duplicatesSection(p Page, a *Audit) section {
	s := section{ID: "duplicates", Title: "Duplicates"}
	s.Notes = []template.HTML{
		numInt(a.DuplicateFiles, srcReport("audit.duplicate_files")) + " files are copies of another file (" +
			numBytes(a.DuplicateBytes, srcReport("audit.duplicate_bytes")) + " not staged twice), in " +
			numInt(a.DuplicateGroups, srcReport("audit.duplicate_groups")) + " groups.",
	}
	type group struct {
		canonical string
		copies    int
		bytes     int64
	}
	byCanon := map[string]*group{}
	for i := range p.Manifest.Files {
		e := &p.Manifest.Files[i]
		if e.DuplicateOf == "" {
			continue
		}
		g := byCanon[e.DuplicateOf]
		if g == nil {
			g = &group{canonical: e.DuplicateOf}
			byCanon[e.DuplicateOf] = g
		}
		g.copies++
		g.bytes += e.Size
	}
	groups := slices.Collect(maps.Values(byCanon))
	sort.Slice(groups, func(i, j int) bool {
		if groups[i].copies != groups[j].copies {
			return groups[i].copies > groups[j].copies
		}
		return groups[i].canonical < groups[j].canonical
	})
	if len(groups) == 0 {
		return s
	}
	t := table{Caption: "Duplicate groups, most copies first", Head: []string{"canonical copy (staged)", "copies", "their bytes"}}
	for _, g := range groups[:min(len(groups), pageMaxRows)] {
		t.Rows = append(t.Rows, row{Name: g.canonical, Cells: []cell{
			fig(numInt(g.copies, srcAgg("files", "count", "", eq("duplicate_of", g.canonical)))),
			fig(numBytes(g.bytes, srcAgg("files", "sum", "size", eq("duplicate_of", g.canonical)))),
		}})
	}
	t.More = more(len(groups), pageMaxRows, srcAgg("files", "distinct", "duplicate_of", "duplicate_of"))
	s.Tables = []table{t}
	return s
}

func documentsSection(p Page, a *Audit) section {
	s := section{ID: "documents", Title: "Extracted documents"}
	formats := table{Caption: "Documents read as text, by format", Head: []string{"format", "files", "bytes"}}
	for i, c := range a.DocumentsExtracted {
		formats.Rows = append(formats.Rows, row{Name: c.Name, Cells: []cell{
			fig(numInt(c.Files, srcReport("audit.documents_extracted[%d].files", i))),
			fig(numBytes(c.Bytes, srcReport("audit.documents_extracted[%d].bytes", i))),
		}})
	}
	refused := table{Caption: "Documents refused, by reason", Head: []string{"reason", "files", "bytes"}}
	for i, c := range a.DocumentsRefused {
		refused.Rows = append(refused.Rows, row{Name: c.Name, Cells: []cell{
			fig(numInt(c.Files, srcReport("audit.documents_refused[%d].files", i))),
			fig(numBytes(c.Bytes, srcReport("audit.documents_refused[%d].bytes", i))),
		}})
	}
	list := table{Caption: "Extracted documents (cut short ones say what was left out)", Head: []string{"document", "format", "tokens", "truncated"}}
	n, cut := 0, 0
	for i := range p.Manifest.Files {
		e := &p.Manifest.Files[i]
		if e.Truncated != "" {
			cut++
		}
		if e.ExtractedFrom == "" || !e.Staged {
			continue
		}
		n++
		if n <= pageMaxRows {
			list.Rows = append(list.Rows, row{Name: e.Path, Cells: []cell{
				text(e.ExtractedFrom),
				fig(numInt(e.Tokens, srcAgg("files", "sum", "tokens", eq("path", e.Path)))),
				text(e.Truncated),
			}})
		}
	}
	list.More = more(n, pageMaxRows, srcAgg("files", "count", "", "extracted_from", "staged"))
	if n+len(refused.Rows) == 0 {
		s.Notes = []template.HTML{"No documents were read as text."}
		return s
	}
	s.Notes = []template.HTML{numInt(cut, srcAgg("files", "count", "", "truncated")) + " texts were cut short at a work limit."}
	for _, t := range []table{formats, refused, list} {
		if len(t.Rows) > 0 {
			s.Tables = append(s.Tables, t)
		}
	}
	return s
}

func instructionsSection(p Page) section {
	s := section{ID: "instructions", Title: "Agent instruction files"}
	if len(p.Instructions) == 0 {
		s.Notes = []template.HTML{"No agent instruction files (CLAUDE.md, AGENTS.md, Cursor or Copilot rules)."}
		return s
	}
	t := table{Caption: "Instruction files an agent loads", Head: []string{"file", "agent", "kind", "activation", "tokens", "with imports", "imports", "warnings"}}
	for i, f := range p.Instructions[:min(len(p.Instructions), pageMaxRows)] {
		t.Rows = append(t.Rows, row{Name: f.Path, Cells: []cell{
			text(f.Agent), text(f.Kind), text(f.Activation),
			fig(numInt(f.Tokens, fmt.Sprintf("instructions:files[%d].tokens", i))),
			fig(numInt(f.TotalTokens, fmt.Sprintf("instructions:files[%d].total_tokens", i))),
			fig(numInt(f.Imports, fmt.Sprintf("instructions:len(files[%d].imports)", i))),
			text(strings.Join(f.Warnings, "; ")),
		}})
	}
	t.More = more(len(p.Instructions), pageMaxRows, "instructions:len(files)")
	s.Tables = []table{t}
	return s
}

func refreshSection(r *Report) section {
	s := section{ID: "refresh", Title: "Refresh"}
	f := r.Refresh
	if f == nil {
		s.Notes = []template.HTML{"This report says nothing of a previous snapshot."}
		return s
	}
	switch {
	case f.Unchanged:
		s.Notes = append(s.Notes, "Nothing changed since the previous snapshot: it was checked and kept, not published again.")
	case f.Previous == PreviousUsed:
		s.Notes = append(s.Notes, numInt(f.Reused, srcReport("refresh.reused"))+" of "+numInt(r.Files, srcReport("files"))+" files were taken from the previous snapshot.")
	default:
		// Words, and a detail that may hold anything: a text span.
		why := strings.TrimPrefix(f.Line(r.Files), "none: ")
		s.Notes = append(s.Notes, `Nothing was taken from the previous snapshot: <span class="t">`+template.HTML(template.HTMLEscapeString(why))+`</span>.`)
	}
	t := table{Caption: "Files read again, by why", Head: []string{"why", "files"}}
	for _, k := range slices.Sorted(maps.Keys(f.NotReused)) {
		t.Rows = append(t.Rows, row{Name: k, Cells: []cell{fig(numInt(f.NotReused[k], srcReport("refresh.not_reused.%s", k)))}})
	}
	if len(t.Rows) > 0 {
		s.Tables = []table{t}
	}
	return s
}

func timeSection(r *Report) section {
	s := section{ID: "time", Title: "Time"}
	t := table{Caption: "Stages", Head: []string{"stage", "wall", "CPU", "files", "MiB/s"}, Empty: "No stage times."}
	for i, st := range r.Stages {
		t.Rows = append(t.Rows, row{Name: st.Name, Cells: []cell{
			fig(numSeconds(st.Seconds, srcReport("stages[%d].seconds", i))),
			fig(numSeconds(st.CPUSeconds, srcReport("stages[%d].cpu_seconds", i))),
			fig(numInt(st.Files, srcReport("stages[%d].files", i))),
			fig(figure(strconv.FormatFloat(st.MBPerSec, 'f', -1, 64), srcReport("stages[%d].mb_per_sec", i), fmt.Sprintf("%.1f", st.MBPerSec))),
		}})
	}
	s.Notes = []template.HTML{"The whole run took " + numSeconds(r.Seconds, srcReport("seconds")) + "."}
	s.Tables = []table{t}
	return s
}
