package secrets

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/repoprep/repoprep/internal/testkit"
)

func TestWriteSARIF(t *testing.T) {
	findings := []PathFinding{
		{Path: "src/app/config.py", Finding: Finding{Line: 12, Column: 11, Rule: "password-assignment",
			Description: "Password assigned in code or configuration", Kind: "credential", Severity: "high", Match: "Kq…(12)", Fingerprint: "password-assignment:0123456789abcdef"}},
		{Path: "docs/setup guide.md", Finding: Finding{Line: 3, Column: 1, Rule: "internal-ipv4",
			Description: "Internal (RFC 1918) IPv4 address", Kind: "pii", Severity: "low", Match: "10…(8)", Fingerprint: "internal-ipv4:fedcba9876543210"}},
		{Path: "src/app/config.py", Finding: Finding{Line: 4, Column: 7, Rule: "internal-ipv4",
			Description: "Internal (RFC 1918) IPv4 address", Kind: "pii", Severity: "low", Match: "19…(11)", Fingerprint: "internal-ipv4:00112233445566ff"}},
	}
	var buf bytes.Buffer
	if err := WriteSARIF(&buf, findings, "1.0.0-test"); err != nil {
		t.Fatal(err)
	}
	testkit.Golden(t, filepath.Join("testdata", "golden", "secrets.sarif"), buf.Bytes())

	// The fields GitHub code scanning requires, read back.
	var doc struct {
		Version string `json:"version"`
		Runs    []struct {
			Tool struct {
				Driver struct {
					Name  string `json:"name"`
					Rules []struct {
						ID               string `json:"id"`
						ShortDescription struct{ Text string }
					} `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
			Results []struct {
				RuleID    string `json:"ruleId"`
				RuleIndex int    `json:"ruleIndex"`
				Level     string `json:"level"`
				Message   struct{ Text string }
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI string }
						Region           struct{ StartLine, StartColumn int }
					}
				}
				PartialFingerprints map[string]string `json:"partialFingerprints"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	run := doc.Runs[0]
	if doc.Version != "2.1.0" || run.Tool.Driver.Name != "repoprep" || len(run.Tool.Driver.Rules) != 2 || len(run.Results) != 3 {
		t.Fatalf("unexpected shape: %+v", doc)
	}
	for _, r := range run.Results {
		if run.Tool.Driver.Rules[r.RuleIndex].ID != r.RuleID || r.Message.Text == "" || r.PartialFingerprints[sarifFingerprintKey] == "" {
			t.Errorf("result %+v inconsistent", r)
		}
		loc := r.Locations[0].PhysicalLocation
		if loc.ArtifactLocation.URI == "" || loc.Region.StartLine < 1 || loc.Region.StartColumn < 1 {
			t.Errorf("bad location %+v", loc)
		}
	}
	// Levels follow severity: the high password is an error, the low addresses notes.
	for _, r := range run.Results {
		if want := map[string]string{"password-assignment": "error", "internal-ipv4": "note"}[r.RuleID]; r.Level != want {
			t.Errorf("%s has level %q, want %q", r.RuleID, r.Level, want)
		}
	}
	if uri := run.Results[0].Locations[0].PhysicalLocation.ArtifactLocation.URI; uri != "docs/setup%20guide.md" {
		t.Errorf("first result %s, want docs/setup%%20guide.md (sorted by path, escaped)", uri)
	}

	buf.Reset()
	if err := WriteSARIF(&buf, nil, "x"); err != nil || !bytes.Contains(buf.Bytes(), []byte(`"results": []`)) {
		t.Errorf("empty run: %v\n%s", err, buf.Bytes())
	}
}

// TestInformationURI: code scanning links every alert to informationUri,
// so it must name a page this repository has.
func TestInformationURI(t *testing.T) {
	const repo = "https://github.com/repoprep/repoprep/blob/main/"
	rel, ok := strings.CutPrefix(InformationURI, repo)
	if !ok {
		t.Fatalf("informationUri %s is not a file of %s", InformationURI, repo)
	}
	if _, err := os.Stat(filepath.Join("..", "..", filepath.FromSlash(rel))); err != nil {
		t.Errorf("informationUri names %s, which the repository does not hold: %v", rel, err)
	}
}
