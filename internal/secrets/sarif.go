package secrets

import (
	"cmp"
	"encoding/json"
	"io"
	"net/url"
	"slices"
	"strings"
)

// PathFinding is a Finding in a named file, the unit of secrets.json and SARIF output; its
// JSON is {"path", "line", "column", "rule", "description", "match", "fingerprint"}.
type PathFinding struct {
	Path string `json:"path"` // slash-separated, relative to the scanned root
	Finding
	// Staged: the file has a copy in the snapshot's tree (where the finding is masked
	// when its kind is); false for a file left out (a log, a dump, a minified bundle,
	// an oversize file), whose findings are reported and counted all the same.
	Staged bool `json:"staged"`
}

// sarifFingerprintKey names our fingerprint among a result's partialFingerprints.
const sarifFingerprintKey = "repoprepSecret/v1"

// WriteSARIF writes findings as one SARIF 2.1.0 run that GitHub code scanning accepts: the
// rules that fired (id, description) in tool.driver.rules, and a result per finding with
// its location and fingerprint. Output is deterministic for the same findings.
func WriteSARIF(w io.Writer, findings []PathFinding, version string) error {
	type text struct {
		Text string `json:"text"`
	}
	type sarifRule struct {
		ID                   string            `json:"id"`
		Name                 string            `json:"name"`
		ShortDescription     text              `json:"shortDescription"`
		FullDescription      text              `json:"fullDescription"`
		Help                 text              `json:"help"`
		DefaultConfiguration map[string]string `json:"defaultConfiguration"`
		Properties           map[string]any    `json:"properties"`
	}
	type region struct {
		StartLine   int `json:"startLine"`
		StartColumn int `json:"startColumn"`
	}
	type artifact struct {
		URI       string `json:"uri"`
		URIBaseID string `json:"uriBaseId"`
	}
	type physical struct {
		ArtifactLocation artifact `json:"artifactLocation"`
		Region           region   `json:"region"`
	}
	type location struct {
		PhysicalLocation physical `json:"physicalLocation"`
	}
	// suppression marks an acknowledged finding (an inline marker the user
	// opted in to): code scanning shows it as dismissed.
	type suppression struct {
		Kind          string `json:"kind"`
		Justification string `json:"justification"`
	}
	type result struct {
		RuleID              string            `json:"ruleId"`
		RuleIndex           int               `json:"ruleIndex"`
		Level               string            `json:"level"`
		Message             text              `json:"message"`
		Locations           []location        `json:"locations"`
		PartialFingerprints map[string]string `json:"partialFingerprints"`
		Suppressions        []suppression     `json:"suppressions,omitempty"`
	}

	sorted := slices.Clone(findings)
	slices.SortStableFunc(sorted, func(a, b PathFinding) int {
		return cmp.Or(strings.Compare(a.Path, b.Path), cmp.Compare(a.Line, b.Line),
			cmp.Compare(a.Column, b.Column), strings.Compare(a.Rule, b.Rule))
	})
	ruleIndex := map[string]int{}
	var ids []string
	desc := map[string]string{}
	first := map[string]Finding{} // each rule's first finding: its kind and severity
	for _, f := range sorted {
		if _, ok := desc[f.Rule]; !ok {
			desc[f.Rule] = f.Description
			first[f.Rule] = f.Finding
			ids = append(ids, f.Rule)
		}
	}
	slices.Sort(ids)
	srules := make([]sarifRule, 0, len(ids))
	for i, id := range ids {
		ruleIndex[id] = i
		srules = append(srules, sarifRule{
			ID:                   id,
			Name:                 id,
			ShortDescription:     text{desc[id]},
			FullDescription:      text{desc[id]},
			Help:                 text{"Remove the secret from the file and rotate it; repoprep masks it in the staged copy."},
			DefaultConfiguration: map[string]string{"level": sarifLevel(first[id].Severity)},
			Properties: map[string]any{
				"tags":              []string{"security", "secret", cmp.Or(first[id].Kind, "credential")},
				"precision":         "high",
				"security-severity": securitySeverity(first[id].Severity),
			},
		})
	}
	results := make([]result, 0, len(sorted))
	for _, f := range sorted {
		var sup []suppression
		if f.Acknowledged {
			sup = []suppression{{Kind: "inSource", Justification: AckMarker + " on the line (--inline-allow)"}}
		}
		results = append(results, result{
			Suppressions: sup,
			RuleID:       f.Rule,
			RuleIndex:    ruleIndex[f.Rule],
			Level:        sarifLevel(f.Severity),
			Message:      text{f.Description + ": " + f.Match},
			Locations: []location{{PhysicalLocation: physical{
				ArtifactLocation: artifact{URI: uriPath(f.Path), URIBaseID: "%SRCROOT%"},
				Region:           region{StartLine: max(f.Line, 1), StartColumn: max(f.Column, 1)},
			}}},
			PartialFingerprints: map[string]string{sarifFingerprintKey: f.Fingerprint},
		})
	}
	type driver struct {
		Name           string      `json:"name"`
		Version        string      `json:"version"`
		InformationURI string      `json:"informationUri"`
		Rules          []sarifRule `json:"rules"`
	}
	type run struct {
		Tool struct {
			Driver driver `json:"driver"`
		} `json:"tool"`
		ColumnKind string   `json:"columnKind"` // Finding.Column counts code points
		Results    []result `json:"results"`
	}
	r := run{ColumnKind: "unicodeCodePoints", Results: results}
	r.Tool.Driver = driver{Name: "repoprep", Version: version, InformationURI: InformationURI, Rules: srules}
	doc := struct {
		Schema  string `json:"$schema"`
		Version string `json:"version"`
		Runs    []run  `json:"runs"`
	}{"https://json.schemastore.org/sarif-2.1.0.json", "2.1.0", []run{r}}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(doc)
}

// InformationURI is the SARIF driver's informationUri: the project's page on
// secrets (rules, kinds, severities, redaction), which code scanning links
// to from every alert. A test checks the file exists in this repository.
const InformationURI = "https://github.com/repoprep/repoprep/blob/main/docs/secrets.md"

// uriPath escapes each segment of a slash path for a relative URI reference.
func uriPath(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/")
}

// sarifLevel maps a rule's severity to a SARIF level: high is an error, medium a
// warning, low a note. An empty severity (an old caller) is an error.
func sarifLevel(severity string) string {
	switch severity {
	case "medium":
		return "warning"
	case "low":
		return "note"
	default:
		return "error"
	}
}

// securitySeverity is the score GitHub code scanning sorts security alerts by (0-10):
// high 8.0, medium 5.0, low 2.0.
func securitySeverity(severity string) string {
	switch severity {
	case "medium":
		return "5.0"
	case "low":
		return "2.0"
	default:
		return "8.0"
	}
}
