package secrets

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"slices"
)

// The formats of secrets.json and of a baseline file.
const (
	Schema         = "repoprep.secrets/v1"
	BaselineSchema = "repoprep.baseline/v1"
)

// FindingsFile is secrets.json: every finding of a run, each at its path,
// masked; never a secret itself.
type FindingsFile struct {
	Schema   string        `json:"schema"`
	Findings []PathFinding `json:"findings"`
}

// SortFindings puts findings in secrets.json's order: by path, line,
// column, rule.
func SortFindings(fs []PathFinding) {
	slices.SortFunc(fs, func(a, b PathFinding) int {
		return cmp.Or(cmp.Compare(a.Path, b.Path), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Column, b.Column), cmp.Compare(a.Rule, b.Rule))
	})
}

// Baseline is a baseline file: the fingerprints of findings that are known
// and accepted, which `run --baseline` leaves out of what it reports.
type Baseline struct {
	Schema       string   `json:"schema"`
	Fingerprints []string `json:"fingerprints"` // sorted, unique
}

// NewBaseline makes the baseline that accepts every finding of fs.
func NewBaseline(fs []PathFinding) Baseline {
	b := Baseline{Schema: BaselineSchema, Fingerprints: []string{}}
	for _, f := range fs {
		b.Fingerprints = append(b.Fingerprints, f.Fingerprint)
	}
	slices.Sort(b.Fingerprints)
	b.Fingerprints = slices.Compact(b.Fingerprints)
	return b
}

// ReadBaseline reads the fingerprints of a baseline file or of a
// secrets.json (whose findings then count as accepted).
func ReadBaseline(r io.Reader) (map[string]bool, error) {
	var doc struct {
		Schema       string        `json:"schema"`
		Fingerprints []string      `json:"fingerprints"`
		Findings     []PathFinding `json:"findings"`
	}
	if err := json.NewDecoder(r).Decode(&doc); err != nil {
		return nil, err
	}
	out := map[string]bool{}
	switch doc.Schema {
	case BaselineSchema:
		for _, fp := range doc.Fingerprints {
			out[fp] = true
		}
	case Schema:
		for _, f := range doc.Findings {
			out[f.Fingerprint] = true
		}
	default:
		return nil, fmt.Errorf("schema %q: want %s or %s", doc.Schema, BaselineSchema, Schema)
	}
	return out, nil
}
