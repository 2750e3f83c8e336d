package main

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The fixture: one labelled repository whose file is on disk, one whose
// file is not. Values are random on every run: nothing here looks like a
// credential anyone could have used.
const (
	repoA = "0a1b2c3d"
	repoB = "0b0b0b0b" // labelled, but its file is absent from data/
	fileA = repoA + "/test/1111aaaa.py"
)

// fixture writes meta/, data/ and the tools' reports under a temporary
// directory and returns it. Lines of fileA:
//
//	1 password (T, Password)      repoprep finds it
//	2 token (T, Token)            nobody finds it
//	3 key (F, Key)                repoprep flags it: false, on an F label
//	4 plain code, unlabelled      repoprep flags it: false; a pii finding too
//	5 a UUID (T, UUID)            repoprep flags it: counts neither way
//	6-8 a key block (T, PEM)      repoprep on 6, gitleaks on 7: both found
//	9 secret (T, Password:Secret) gitleaks finds it
//	10 unlabelled                 gitleaks flags it: false
func fixture(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	lines := []string{
		`password = "` + rand.Text() + `"`,
		`token = "` + rand.Text() + `"`,
		`key = "` + rand.Text()[:6] + `"`,
		`x = compute(y)`,
		`id = "` + rand.Text() + `"`,
		"-----BEGIN " + "TEST BLOCK-----",
		rand.Text() + rand.Text(),
		"-----END " + "TEST BLOCK-----",
		`secret: ` + rand.Text(),
		`name = "` + rand.Text() + `"`,
	}
	write(t, filepath.Join(dir, "data", fileA), strings.Join(lines, "\n")+"\n")
	write(t, filepath.Join(dir, "meta", repoA+".csv"), csvOf(
		"1,1111aaaa,GitHub,"+repoA+",data/"+fileA+",1,1,T,12,38,,,Password",
		"2,1111aaaa,GitHub,"+repoA+",data/"+fileA+",2,2,T,9,35,,,Token",
		"3,1111aaaa,GitHub,"+repoA+",data/"+fileA+",3,3,F,,,,,Key",
		"4,1111aaaa,GitHub,"+repoA+",data/"+fileA+",5,5,T,6,32,,,UUID",
		"5,1111aaaa,GitHub,"+repoA+",data/"+fileA+",6,8,T,0,20,Private,,PEM Private Key",
		"6,1111aaaa,GitHub,"+repoA+",data/"+fileA+",9,9,T,8,34,,,Password:Secret",
	))
	write(t, filepath.Join(dir, "meta", repoB+".csv"), csvOf(
		"7,2222bbbb,GitHub,"+repoB+",data/"+repoB+"/src/2222bbbb.go,4,4,T,1,9,,,Secret",
	))
	type rf struct {
		Path        string `json:"path"`
		Line        int    `json:"line"`
		Column      int    `json:"column"`
		Rule        string `json:"rule"`
		Kind        string `json:"kind"`
		Fingerprint string `json:"fingerprint"`
	}
	writeJSON(t, filepath.Join(dir, "out", "secrets.json"), map[string]any{
		"schema": "repoprep.secrets/v1",
		"findings": []rf{
			{fileA, 1, 13, "password-assignment", "credential", "password-assignment:01"},
			{fileA, 3, 8, "generic-key", "credential", "generic-key:02"},
			{fileA, 4, 1, "generic-key", "credential", "generic-key:02"}, // a copy of line 3's value
			{fileA, 4, 1, "internal-ipv4", "pii", "internal-ipv4:03"},
			{fileA, 5, 7, "generic-api-key", "credential", "generic-api-key:04"},
			{fileA, 6, 1, "private-key", "credential", "private-key:05"},
			{fileA, 0, 0, "private-key", "credential", "private-key:05"}, // in the name
		},
	})
	type gf struct {
		RuleID    string
		File      string
		StartLine int
	}
	abs := filepath.Join(dir, "data", fileA)
	writeJSON(t, filepath.Join(dir, "gitleaks.json"), []gf{
		{"private-key", abs, 7}, {"generic-api-key", abs, 9}, {"generic-api-key", abs, 10},
	})
	writeJSON(t, filepath.Join(dir, "out", "files.json"), map[string]any{
		"schema": "repoprep.files/v1",
		"files":  []map[string]any{{"path": fileA, "staged": true, "category": "source"}},
		"pruned": []any{},
	})
	return dir
}

func TestScore(t *testing.T) {
	dir := fixture(t)
	l, err := readMeta(filepath.Join(dir, "meta"), onDisk(filepath.Join(dir, "data")))
	if err != nil {
		t.Fatal(err)
	}
	if l.leftRows != 1 || l.leftTrue != 1 || l.asideRows != 1 || len(l.units) != 4 {
		t.Fatalf("labels: left %d rows (%d True), aside %d, %d positives; want 1 (1), 1, 4",
			l.leftRows, l.leftTrue, l.asideRows, len(l.units))
	}
	rf, dropped, err := readRepoprep(filepath.Join(dir, "out", "secrets.json"), l.repos)
	if err != nil {
		t.Fatal(err)
	}
	if dropped != 2 {
		t.Errorf("dropped %d repoprep findings, want 2 (pii, line 0)", dropped)
	}
	gf, err := readGitleaks(filepath.Join(dir, "gitleaks.json"), l.repos)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name                      string
		fs                        []finding
		found, trueLines, flagged int
		onFalse, aside            int
		falseRules                map[string]int
		falseValues               int // values (fingerprints) behind the false lines
	}{
		{"repoprep", rf, 2, 2, 4, 1, 1, map[string]int{"generic-key": 2}, 1},
		{"gitleaks", gf, 2, 2, 3, 0, 0, map[string]int{"generic-api-key": 1}, 0},
		{"nothing", nil, 0, 0, 0, 0, 0, map[string]int{}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := score(tt.name, l, tt.fs)
			if found, all := s.recall(); found != tt.found || all != 4 {
				t.Errorf("recall %d/%d, want %d/4", found, all, tt.found)
			}
			if tl, fl := s.precision(); tl != tt.trueLines || fl != tt.flagged {
				t.Errorf("precision %d/%d, want %d/%d", tl, fl, tt.trueLines, tt.flagged)
			}
			if s.onFalse != tt.onFalse || s.aside != tt.aside {
				t.Errorf("on F/X %d, aside %d; want %d, %d", s.onFalse, s.aside, tt.onFalse, tt.aside)
			}
			for rule, n := range tt.falseRules {
				if len(s.byRule[rule]) != n {
					t.Errorf("rule %s: %d false lines, want %d", rule, len(s.byRule[rule]), n)
				}
			}
			if len(s.byRule) != len(tt.falseRules) {
				t.Errorf("false positives under %d rules, want %d", len(s.byRule), len(tt.falseRules))
			}
			if len(s.byValue) != tt.falseValues {
				t.Errorf("false lines from %d values, want %d", len(s.byValue), tt.falseValues)
			}
		})
	}
}

// TestPerRepository: reports of runs made one per repository (OUTS/<id>/)
// hold paths relative to the repository and score as one run over data/.
func TestPerRepository(t *testing.T) {
	dir := fixture(t)
	var doc map[string]any
	data, err := os.ReadFile(filepath.Join(dir, "out", "secrets.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	for _, f := range doc["findings"].([]any) {
		m := f.(map[string]any)
		m["path"] = strings.TrimPrefix(m["path"].(string), repoA+"/")
	}
	writeJSON(t, filepath.Join(dir, "outs", repoA, "secrets.json"), doc)
	l, err := readMeta(filepath.Join(dir, "meta"), onDisk(filepath.Join(dir, "data")))
	if err != nil {
		t.Fatal(err)
	}
	fs, _, err := readRepoprep(filepath.Join(dir, "outs", "*", "secrets.json"), l.repos)
	if err != nil {
		t.Fatal(err)
	}
	if found, all := score("repoprep", l, fs).recall(); found != 2 || all != 4 {
		t.Errorf("recall %d/%d, want 2/4", found, all)
	}
}

func TestRun(t *testing.T) {
	dir := fixture(t)
	tests := []struct {
		name     string
		args     []string
		code     int
		contains []string
	}{
		{"both tools", []string{"-meta", filepath.Join(dir, "meta"), "-data", filepath.Join(dir, "data"),
			"-secrets", filepath.Join(dir, "out", "secrets.json"), "-files", filepath.Join(dir, "out", "files.json"),
			"-gitleaks", filepath.Join(dir, "gitleaks.json")}, 0,
			[]string{"50.0% (2 / 4)", "generic-key: 2 lines (1 on F/X labels)", fileA + ":4  x = compute(y)",
				"Token: missed 1 of 1", "scanned, no finding on the line", repoB + "  1 rows, 1 True",
				"2 lines in 1 repositories: generic-key", "Password:Secret: 1\n  " + fileA + ":9  [generic-api-key]"}},
		{"no data dir", []string{"-meta", filepath.Join(dir, "meta"), "-secrets", filepath.Join(dir, "out", "secrets.json")}, 0,
			[]string{"positives: 5 "}},
		{"no secrets", []string{"-meta", filepath.Join(dir, "meta")}, 2, []string{"usage"}},
		{"missing report", []string{"-meta", filepath.Join(dir, "meta"), "-secrets", filepath.Join(dir, "none.json")}, 1, []string{"no such file"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if code := run(tt.args, &stdout, &stderr); code != tt.code {
				t.Fatalf("exit %d, want %d; stderr: %s", code, tt.code, stderr.String())
			}
			out := stdout.String() + stderr.String()
			for _, want := range tt.contains {
				if !strings.Contains(out, want) {
					t.Errorf("output lacks %q:\n%s", want, out)
				}
			}
		})
	}
}

func TestUnderData(t *testing.T) {
	repos := map[string]bool{repoA: true}
	tests := []struct{ in, want string }{
		{fileA, fileA},
		{"data/" + fileA, fileA},
		{"/abs/creddata/data/" + fileA, fileA},
		{"other/x.go", "other/x.go"},
	}
	for _, tt := range tests {
		if got := underData(tt.in, repos); got != tt.want {
			t.Errorf("underData(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestBadMeta(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, repoA+".csv"), csvOf("1,1111aaaa,GitHub,"+repoA+",data/"+fileA+",9,3,T,,,,,Key"))
	if _, err := readMeta(dir, nil); err == nil || !strings.Contains(err.Error(), "LineStart") {
		t.Errorf("LineEnd before LineStart: err %v, want one naming LineStart", err)
	}
}

func csvOf(rows ...string) string {
	return "Id,FileID,Domain,RepoName,FilePath,LineStart,LineEnd,GroundTruth,ValueStart,ValueEnd,CryptographyKey,PredefinedPattern,Category\n" +
		strings.Join(rows, "\n") + "\n"
}

func write(t *testing.T, name, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func writeJSON(t *testing.T, name string, v any) {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	write(t, name, string(data))
}
