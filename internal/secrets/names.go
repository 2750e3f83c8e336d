package secrets

import (
	"context"
	"strings"

	"github.com/repoprep/repoprep/rules"
)

// ScanName finds credentials in a file name or a symlink's target (the whole slash path,
// as files.json writes it): a key in backup-AKIA….txt, a token in
// https://deploy:…@host/r.git. Only credential rules run (a log named 10.0.0.1.log is how
// hosts name logs), path allowlists apply to name itself, and each finding has line 0 and
// its column in the name. vals, when not nil, receives each value for the cross-file pass.
func (s *Scanner) ScanName(name string, vals *Values) []Finding {
	if name == "" {
		return nil // most link targets: no rule keeps an empty match (secretSpan)
	}
	skip := s.pathSkips(name)
	if skip == nil {
		skip = make([]bool, len(s.rules))
	}
	for i := range s.rules {
		if s.rules[i].kind != rules.KindCredential {
			skip[i] = true
		}
	}
	content := []byte(name)
	cands, _ := s.candidates(context.Background(), content, skip, "")
	hits := s.findings(content, cands, 0, 0)
	out := make([]Finding, 0, len(hits))
	for _, h := range hits {
		h.Line = 0
		if vals != nil {
			vals.add(h.Rule, h.values)
		}
		out = append(out, h.Finding)
	}
	return out
}

// MaskName returns name with each finding of ScanName replaced by
// [REDACTED:<fingerprint>]: the fingerprint keeps two masked names apart, so files.json
// paths stay unique.
func MaskName(name string, fs []Finding) string {
	var b strings.Builder
	var pos int64
	for _, f := range mergeSpans(fs, int64(len(name))) {
		b.WriteString(name[pos:f.Start])
		b.WriteString("[REDACTED:" + f.Fingerprint + "]")
		pos = f.End
	}
	b.WriteString(name[pos:])
	return b.String()
}

// ScanName finds the matcher's values in a name (a path or a link target), as ScanFile
// does in a file: findings with line 0 and their column in the name. A name holding a
// value caught in some content is masked like one a rule catches.
func (m *Matcher) ScanName(name string) []Finding {
	if m == nil || m.Len() == 0 || name == "" {
		return nil
	}
	spans, err := m.find(strings.NewReader(name), valueBlockBytes)
	if err != nil || len(spans) == 0 {
		return nil // a strings.Reader does not fail
	}
	fs, err := m.locate(strings.NewReader(name), spans)
	if err != nil {
		return nil
	}
	for i := range fs {
		fs[i].Line = 0
	}
	return fs
}
