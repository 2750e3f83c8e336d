package pipeline

import (
	"bufio"
	"path/filepath"

	"github.com/repoprep/repoprep/internal/manifest"
	"github.com/repoprep/repoprep/internal/secrets"
	"github.com/repoprep/repoprep/stages"
)

// PathFinding is one secrets.json finding: where, which rule, and the
// match masked. The full secret is never part of it.
type PathFinding struct {
	Path        string `json:"path"`
	Line        int    `json:"line"`
	Column      int    `json:"column"`
	Rule        string `json:"rule"`
	Description string `json:"description"`
	Match       string `json:"match"`
	Fingerprint string `json:"fingerprint"`
}

// SecretsFile is secrets.json.
type SecretsFile struct {
	Schema   string        `json:"schema"`
	Findings []PathFinding `json:"findings"`
}

func toPathFindings(fs []stages.Finding) []PathFinding {
	out := make([]PathFinding, 0, len(fs))
	for _, f := range fs {
		out = append(out, PathFinding{
			Path: f.Path, Line: f.Line, Column: f.Column, Rule: f.Rule,
			Description: f.Description, Match: f.Match, Fingerprint: f.Fingerprint,
		})
	}
	return out
}

// writeSecrets writes secrets.json and the same findings as SARIF 2.1.0.
func writeSecrets(dir string, fs []PathFinding, version string) error {
	if err := writeJSONFile(filepath.Join(dir, "secrets.json"), SecretsFile{Schema: manifest.SecretsSchema, Findings: fs}); err != nil {
		return err
	}
	sarif := make([]secrets.PathFinding, 0, len(fs))
	for _, f := range fs {
		sarif = append(sarif, secrets.PathFinding{Path: f.Path, Finding: secrets.Finding{
			Line: f.Line, Column: f.Column, Rule: f.Rule, Description: f.Description,
			Match: f.Match, Fingerprint: f.Fingerprint,
		}})
	}
	return writeFile(filepath.Join(dir, "secrets.sarif"), func(w *bufio.Writer) error {
		return secrets.WriteSARIF(w, sarif, version)
	})
}
