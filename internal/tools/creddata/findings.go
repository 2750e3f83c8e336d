package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// finding is one reported secret, reduced to where it is and who found it.
type finding struct {
	path   string // below CredData's data/, as the labels are
	line   int    // 1-based; the line the match starts on
	column int    // 1-based code points; 0 when the tool does not say
	rule   string
	value  string // repoprep: the fingerprint, one per secret value; empty for gitleaks
	masked string // repoprep: the masked match, e.g. "ap…(11)"
}

// secretsSchema is the only secrets.json format this reads.
const secretsSchema = "repoprep.secrets/v1"

// outputs expands a -secrets or -files argument: one file, or a glob
// pattern (OUTS/*/secrets.json) for runs made one per repository. A file
// whose directory is named after a labelled repository holds paths relative
// to that repository; prefix says so.
func outputs(pattern string, repos map[string]bool) (names, prefixes []string, err error) {
	names, err = filepath.Glob(pattern)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", pattern, err)
	}
	if len(names) == 0 {
		return nil, nil, fmt.Errorf("%s: no such file", pattern)
	}
	for _, name := range names {
		prefix := ""
		if dir := filepath.Base(filepath.Dir(name)); repos[dir] {
			prefix = dir + "/"
		}
		prefixes = append(prefixes, prefix)
	}
	return names, prefixes, nil
}

// readRepoprep reads repoprep's secrets.json files (see outputs).
// Personal-data findings (kind pii) and findings in names (line 0) are not
// credentials on lines; they are counted and dropped.
func readRepoprep(pattern string, repos map[string]bool) (fs []finding, dropped int, err error) {
	names, prefixes, err := outputs(pattern, repos)
	if err != nil {
		return nil, 0, err
	}
	for i, name := range names {
		more, n, err := readSecrets(name, prefixes[i], repos)
		if err != nil {
			return nil, 0, err
		}
		fs, dropped = append(fs, more...), dropped+n
	}
	return fs, dropped, nil
}

func readSecrets(name, prefix string, repos map[string]bool) (fs []finding, dropped int, err error) {
	var doc struct {
		Schema   string `json:"schema"`
		Findings []struct {
			Path        string `json:"path"`
			Line        int    `json:"line"`
			Column      int    `json:"column"`
			Rule        string `json:"rule"`
			Kind        string `json:"kind"`
			Match       string `json:"match"`
			Fingerprint string `json:"fingerprint"`
		} `json:"findings"`
	}
	if err := readJSON(name, &doc); err != nil {
		return nil, 0, err
	}
	if doc.Schema != secretsSchema {
		return nil, 0, fmt.Errorf("read %s: schema %q, want %q", name, doc.Schema, secretsSchema)
	}
	for _, f := range doc.Findings {
		if f.Kind != "credential" || f.Line < 1 {
			dropped++
			continue
		}
		fs = append(fs, finding{path: underData(prefix+f.Path, repos), line: f.Line, column: f.Column,
			rule: f.Rule, value: f.Fingerprint, masked: f.Match})
	}
	return fs, dropped, nil
}

// readGitleaks reads a gitleaks JSON report (--report-format json): an
// array of findings whose File is the path as gitleaks was given it.
func readGitleaks(name string, repos map[string]bool) ([]finding, error) {
	var doc []struct {
		RuleID      string `json:"RuleID"`
		File        string `json:"File"`
		StartLine   int    `json:"StartLine"`
		StartColumn int    `json:"StartColumn"`
	}
	if err := readJSON(name, &doc); err != nil {
		return nil, err
	}
	fs := make([]finding, 0, len(doc))
	for _, f := range doc {
		fs = append(fs, finding{path: underData(f.File, repos), line: f.StartLine, column: f.StartColumn, rule: f.RuleID})
	}
	return fs, nil
}

// scanState says, per file, whether repoprep scanned it for secrets and, if
// not, why: repoprep scans only the texts it stages (a duplicate is scanned
// through its canonical copy).
type scanState struct {
	notScanned map[string]string // path below data/ -> reason
	pruned     map[string]string // directory below data/ -> reason
}

// readFilesJSON reads repoprep's files index (OUT/files.json), one file or
// a glob pattern as outputs takes.
func readFilesJSON(pattern string, repos map[string]bool) (*scanState, error) {
	names, prefixes, err := outputs(pattern, repos)
	if err != nil {
		return nil, err
	}
	st := &scanState{notScanned: map[string]string{}, pruned: map[string]string{}}
	for i, name := range names {
		if err := st.read(name, prefixes[i], repos); err != nil {
			return nil, err
		}
	}
	return st, nil
}

func (st *scanState) read(name, prefix string, repos map[string]bool) error {
	var doc struct {
		Files []struct {
			Path        string `json:"path"`
			Category    string `json:"category"`
			Reason      string `json:"reason"`
			Staged      bool   `json:"staged"`
			DuplicateOf string `json:"duplicate_of"`
			Error       string `json:"error"`
		} `json:"files"`
		Pruned []struct {
			Path   string `json:"path"`
			Reason string `json:"reason"`
		} `json:"pruned"`
	}
	if err := readJSON(name, &doc); err != nil {
		return err
	}
	for _, f := range doc.Files {
		if f.Staged || f.DuplicateOf != "" {
			continue
		}
		why := f.Category
		if f.Reason != "" {
			why += " (" + f.Reason + ")"
		}
		if f.Error != "" {
			why = "error"
		}
		st.notScanned[underData(prefix+f.Path, repos)] = why
	}
	for _, p := range doc.Pruned {
		st.pruned[underData(prefix+p.Path, repos)] = "pruned directory (" + p.Reason + ")"
	}
	return nil
}

// why says why repoprep did not scan p, or "" when it did.
func (st *scanState) why(p string) string {
	if st == nil {
		return ""
	}
	if w, ok := st.notScanned[p]; ok {
		return "not scanned: " + w
	}
	for dir := path.Dir(p); dir != "." && dir != "/"; dir = path.Dir(dir) {
		if w, ok := st.pruned[dir]; ok {
			return "not scanned: " + w
		}
	}
	return ""
}

// underData turns a tool's path into the labels' form: from the first
// segment that is a labelled repository id on, so a scan of data/, of
// CredData's root or of an absolute path all match.
func underData(p string, repos map[string]bool) string {
	p = filepath.ToSlash(p)
	segs := strings.Split(p, "/")
	for i, s := range segs {
		if repos[s] {
			return strings.Join(segs[i:], "/")
		}
	}
	return dataRel(p)
}

func readJSON(name string, v any) error {
	data, err := os.ReadFile(name)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("read %s: %w", name, err)
	}
	return nil
}
